"""Check every engine of tests/blind_contract4 against PyTorch (float64), on probes from the contract.

Usage: /work/torchenv/bin/python tests/blind_contract4/_probes/probe.py [LAB ...] [--engine NAME]
       [--verbose] [--json OUT]
(any Python with torch installed; the engines themselves only need the standard library).

For labs 01-03 every probe is a small program written against the contract's names (`Value`,
`zero_grad`, `numerical_grad`, `check_grad`). It runs once with the engine's `value.py` and once
with `TorchValue` below, whose every number (`data`) and every local derivative comes from
PyTorch (torch.float64 tensors and torch.autograd.grad), and whose bookkeeping (seed 1.0,
gradients added with +=, zero_grad, the finite-difference formulas) is the README's, written in
the plainest way. Where a probe backpropagates once from zeroed gradients, the oracle also
checks its own leaf gradients against torch.autograd.grad on the same graph (an oracle mismatch
is printed, and would void the run). For lab04 the oracle is a PyTorch network: the same weights
drawn with `random.uniform(-1, 1)` in the contract's order, the README's loss, full-batch gradient
descent with torch.autograd.

Every probe runs in a child process per engine, under a time limit. A correct engine (intents
correct, equivalent) must match the oracle on every probe; a cosmetic engine may differ on the
`structure_*` probes only; a bug engine must differ on at least one probe. The report names, per
engine, the probes that differ.

Copied from tests/blind_contract/_probes/probe.py and extended (every probe added for this corpus
is marked `# blind_contract2`): lab01 graph_extended_after_backward, equal_subexpressions,
number_leaf_grads; lab02 tanh_mid; lab03 check_grad_totals, check_grad_mean, check_grad_default_tol,
check_grad_positional_tol, check_grad_sign, check_grad_steep, check_grad_shared_scale,
zero_grad_list_twice; lab04 losses_type, train_positional, large_inputs, neuron_direct.

Copied again from tests/blind_contract2/_probes/probe.py for tests/blind_contract3 and extended
(every probe added for the third corpus is marked `# blind_contract3`): lab01 augmented_assign,
data_changed, backward_from_intermediate, constructor_by_name, graph_extended_deeper; lab02
graph_extended_after_backward, sigmoid_mid; lab03 numgrad_positional_h, numgrad_range, numgrad_twice,
check_grad_negative_scale, diamond_sibling_order; lab04 nouts_reused, wide_layer.

Copied again from tests/blind_contract3/_probes/probe.py for tests/blind_contract4 and extended
(every probe added for the fourth corpus is marked `# blind_contract4`): lab02 relu_keeps_input;
lab04 value_inputs.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent
LABS = ["lab01_graph", "lab02_ops", "lab03_backprop", "lab04_xor"]
PROBE_SECONDS = {"engine": 20, "torch": 600}
TOL = {"lab01_graph": 1e-9, "lab02_ops": 1e-9, "lab03_backprop": 1e-6, "lab04_xor": 1e-6}
ABS = {"lab01_graph": 1e-305, "lab02_ops": 1e-305, "lab03_backprop": 1e-300, "lab04_xor": 1e-10}
ORACLE_MISMATCHES: list[str] = []


# ------------------------------------------------------------------------------------ the oracle

def torch_namespace():
    """Value, zero_grad, numerical_grad, check_grad and verify, numbers from PyTorch."""
    import torch

    dt = torch.float64

    def leaf_tensor(x):
        return torch.tensor(float(x), dtype=dt, requires_grad=True)

    def _leaf_backward():
        return None

    class Value:
        def __init__(self, data, _children=(), _op=''):
            self._prev = tuple(_children)
            self.data = data
            self.grad = 0.0
            self._backward = _leaf_backward
            self._op = _op

        @property
        def data(self):
            return self._d

        @data.setter
        def data(self, v):
            self._d = v
            if not self._prev or not hasattr(self, "_t"):  # a leaf, or a node made by hand
                self._t = leaf_tensor(v)

        @staticmethod
        def _node(label, fn, *parents):
            """A node fn(parents): its number and each parent's local derivative from torch."""
            copies = [leaf_tensor(p.data) for p in parents]
            y = fn(*copies)
            grads = torch.autograd.grad(y, copies, allow_unused=True)
            local = [0.0 if g is None else g.item() for g in grads]
            out = Value(y.item(), parents, label)
            out._t = fn(*[p._t for p in parents])

            def _backward():
                for p, d in zip(parents, local):
                    p.grad += d * out.grad
            out._backward = _backward
            return out

        @staticmethod
        def _v(x):
            return x if isinstance(x, Value) else Value(x)

        def __add__(self, o):
            return Value._node('+', lambda x, y: x + y, self, Value._v(o))

        def __radd__(self, o):
            return Value._node('+', lambda x, y: x + y, Value._v(o), self)

        def __mul__(self, o):
            return Value._node('*', lambda x, y: x * y, self, Value._v(o))

        def __rmul__(self, o):
            return Value._node('*', lambda x, y: x * y, Value._v(o), self)

        def __neg__(self):
            return Value._node('neg', lambda x: -x, self)

        def __sub__(self, o):
            return Value._node('-', lambda x, y: x - y, self, Value._v(o))

        def __rsub__(self, o):
            return Value._node('-', lambda x, y: x - y, Value._v(o), self)

        def __truediv__(self, o):
            return Value._node('/', lambda x, y: x / y, self, Value._v(o))

        def __rtruediv__(self, o):
            return Value._node('/', lambda x, y: x / y, Value._v(o), self)

        def __pow__(self, n):
            if isinstance(n, bool) or not isinstance(n, (int, float)):
                raise TypeError("exponent must be an int or a float")
            return Value._node(f'**{n}', lambda x: torch.pow(x, n), self)

        def exp(self):
            return Value._node('exp', torch.exp, self)

        def log(self):
            return Value._node('log', torch.log, self)

        def tanh(self):
            return Value._node('tanh', torch.tanh, self)

        def relu(self):
            return Value._node('ReLU', torch.relu, self)

        def sigmoid(self):
            return Value._node('sigmoid', torch.sigmoid, self)

        def backward(self):
            order, state, stack = [], {}, [(self, False)]
            while stack:
                v, done = stack.pop()
                if done:
                    state[id(v)] = 2
                    order.append(v)
                elif id(v) not in state:
                    state[id(v)] = 1
                    stack.append((v, True))
                    for p in v._prev:
                        if state.get(id(p)) == 1:
                            raise ValueError("cycle")
                        if id(p) not in state:
                            stack.append((p, False))
                elif state[id(v)] == 1:
                    raise ValueError("cycle")
            self.grad = 1.0
            for v in reversed(order):
                v._backward()

    def nodes_of(roots):
        seen, stack, out = set(), list(roots), []
        while stack:
            v = stack.pop()
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
                stack.extend(v._prev)
        return out

    def zero_grad(nodes):
        for v in nodes_of([nodes] if isinstance(nodes, Value) else list(nodes)):
            v.grad = 0.0

    def numerical_grad(f, xs, h=1e-6):
        grads = []
        for x in xs:
            kept = x.data
            x.data = kept + h
            fp = f(*xs).data
            x.data = kept - h
            fm = f(*xs).data
            x.data = kept
            grads.append((fp - fm) / (2 * h))
        return grads

    def check_grad(f, xs, tol=1e-4):
        out = f(*xs)
        zero_grad(out)
        out.backward()
        got = [x.grad for x in xs]
        return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in zip(got, numerical_grad(f, xs)))

    def verify(out, leaves, where):
        """After one backward() from zeroed gradients: the leaves' grads against torch.autograd."""
        grads = torch.autograd.grad(out._t, [x._t for x in leaves], allow_unused=True, retain_graph=True)
        for x, g in zip(leaves, grads):
            want = 0.0 if g is None else g.item()
            if not close(x.grad, want, 1e-9, 1e-300):
                ORACLE_MISMATCHES.append(f"{where}: oracle {x.grad!r} torch {want!r}")

    return dict(Value=Value, zero_grad=zero_grad, numerical_grad=numerical_grad, check_grad=check_grad,
                verify=verify)


def torch_network():
    """MLP, Value-like views and train_xor in PyTorch, for lab04's probes."""
    import torch

    dt = torch.float64
    inputs = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
    targets = [-1.0, 1.0, 1.0, -1.0]

    class MLP:
        def __init__(self, nin, nouts):
            sizes = [nin] + list(nouts)
            self.layers = []
            for i in range(len(nouts)):
                rows = [[random.uniform(-1, 1) for _ in range(sizes[i])] for _ in range(sizes[i + 1])]
                w = torch.tensor(rows, dtype=dt, requires_grad=True)
                b = torch.zeros(sizes[i + 1], dtype=dt, requires_grad=True)
                self.layers.append((w, b, i != len(nouts) - 1))

        def forward(self, x):
            h = torch.tensor([float(v) for v in x], dtype=dt)
            for w, b, nonlin in self.layers:
                h = w @ h + b
                if nonlin:
                    h = torch.tanh(h)
            return h

        def tensors(self):
            return [t for w, b, _ in self.layers for t in (w, b)]

        def flat(self, attr):
            vals = []
            for w, b, _ in self.layers:
                wv = (w if attr == "data" else w.grad).detach().tolist()
                bv = (b if attr == "data" else b.grad).detach().tolist()
                for row, bias in zip(wv, bv):
                    vals.extend(row)
                    vals.append(bias)
            return vals

        def loss(self):
            total = sum((self.forward(x)[0] - y) ** 2 for x, y in zip(inputs, targets))
            return total / 4

    def train_xor(model, steps=150, lr=0.2):
        losses = []
        for _ in range(steps):
            loss = model.loss()
            for t in model.tensors():
                t.grad = None
            loss.backward()
            with torch.no_grad():
                for t in model.tensors():
                    t -= lr * t.grad
            losses.append(loss.item())
        return losses

    return MLP, train_xor


def close(a, b, rel, abs_):
    """Numbers equal up to the tolerances (two infinities of one sign, two NaNs count as equal)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def same(a, b, rel, abs_):
    """Two probe results agree: numbers within tolerance, everything else equal."""
    num = (int, float)
    if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
        return close(float(a), float(b), rel, abs_)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rel, abs_) for x, y in zip(a, b))
    return a == b


# ---------------------------------------------------------------------------------- the probes

def num(x):
    """A number result as a plain float, anything else as its type name (a Value, None, ...)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return f"<{type(x).__name__}>"
    return float(x)


def cycle_verdict(run):
    """'cycle-error' when run() raises ValueError or RuntimeError mentioning 'cycle'."""
    try:
        run()
    except (ValueError, RuntimeError) as e:
        return "cycle-error" if "cycle" in str(e).lower() else f"{type(e).__name__} without 'cycle'"
    except Exception as e:  # noqa: BLE001 - what else it raised is the finding
        return f"raised {type(e).__name__}"
    return "no error"


def probes_lab01(ns):
    V = ns["Value"]
    verify = ns.get("verify", lambda *a: None)
    P = {}

    def basic():
        a, b, c = V(2.0), V(-3.0), V(10.0)
        d = a * b + c
        d.backward()
        verify(d, [a, b, c], "basic")
        return [num(d.data), num(a.grad), num(b.grad), num(c.grad), num(d.grad)]
    P["basic"] = basic

    def numbers_right():
        res = []
        for k in (0.5, 3, -2.25, 7, 1e100, 1e-300):
            for op in ("+", "*"):
                a = V(1.5)
                out = a + k if op == "+" else a * k
                out.backward()
                verify(out, [a], "numbers_right")
                res.append([num(out.data), num(a.grad)])
        return res
    P["numbers_right"] = numbers_right

    def numbers_left():
        res = []
        for k in (0.5, 3, -2.25, 7, 1e100, 1e-300):
            for op in ("+", "*"):
                a = V(1.5)
                out = k + a if op == "+" else k * a
                out.backward()
                verify(out, [a], "numbers_left")
                res.append([num(out.data), num(a.grad)])
        return res
    P["numbers_left"] = numbers_left

    def same_twice():
        res = []
        for build in (lambda a: a * a, lambda a: a + a, lambda a: a * a * a, lambda a: (a + a) * a,
                      lambda a: a * a + a):
            a = V(1.5)
            out = build(a)
            out.backward()
            verify(out, [a], "same_twice")
            res.append([num(out.data), num(a.grad)])
        return res
    P["same_twice"] = same_twice

    def edges():
        pairs = [(0, 5), (5, 0), (0.0, 0.0), (1, -1), (-1, 1), (1e-300, 3.0), (3.0, 1e-300), (1e100, 1e100),
                 (1e100, -1e-100), (2, 3), (-7, 0.5), (-1e-300, -1e100)]
        res = []
        for x, y in pairs:
            for op in ("+", "*"):
                a, b, c = V(x), V(y), V(1.5)
                mid = a + b if op == "+" else a * b
                z = mid * c
                z.backward()
                verify(z, [a, b, c], "edges")
                res.append([num(mid.data), num(z.data), num(a.grad), num(b.grad), num(c.grad)])
        return res
    P["edges"] = edges

    def diamonds():
        res = []
        x = V(0.7)
        y = x * 2
        z = y * 3 + x
        w = z * z + y
        w.backward()
        verify(w, [x], "diamonds1")
        res.append([num(w.data), num(x.grad), num(y.grad), num(z.grad)])
        a, b, c = V(1.1), V(-0.4), V(2.0)
        e = ((a * b + a) * c + a * a) * (a + 2)
        e.backward()
        verify(e, [a, b, c], "diamonds2")
        res.append([num(e.data), num(a.grad), num(b.grad), num(c.grad)])
        x0 = V(0.9)
        x1 = x0 * x0 + x0
        x2 = x1 * x0 + x1 * 3
        x3 = x2 * x1 + x0 * x2 + x1
        x4 = x3 * x0 + x3 * x2
        x4.backward()
        verify(x4, [x0], "diamonds3")
        res.append([num(x4.data), num(x0.grad), num(x1.grad), num(x2.grad), num(x3.grad)])
        p, q = V(0.5), V(-1.5)
        s1 = p * q
        s2 = s1 + p
        s3 = s2 * s1
        s4 = s3 + s2 * q
        s5 = s4 * p + s1
        s5.backward()
        verify(s5, [p, q], "diamonds4")
        res.append([num(s5.data), num(p.grad), num(q.grad), num(s1.grad), num(s2.grad)])
        return res
    P["diamonds"] = diamonds

    def long_chain():
        x = V(0.5)
        y = x
        for _ in range(200):
            y = y * 1.001 + x * 0.001
        y.backward()
        verify(y, [x], "long_chain")
        return [num(y.data), num(x.grad)]
    P["long_chain"] = long_chain

    def random_graphs():
        rng = random.Random(20261206)
        res = []
        for _ in range(30):
            leaves = [V(round(rng.uniform(-2, 2), 3)) for _ in range(rng.randint(2, 4))]
            nodes = list(leaves)
            for _ in range(rng.randint(4, 12)):
                a = rng.choice(nodes)
                kind = rng.random()
                if kind < 0.2:
                    k = round(rng.uniform(-2, 2), 2)
                    n = (k + a if rng.random() < 0.5 else a + k) if rng.random() < 0.5 else \
                        (k * a if rng.random() < 0.5 else a * k)
                else:
                    b = rng.choice(nodes)
                    n = a + b if rng.random() < 0.5 or abs(a.data * b.data) > 1e6 else a * b
                nodes.append(n)
            out = nodes[-1]
            for n in nodes[len(leaves):-1]:
                if rng.random() < 0.3:
                    out = out + n
            out.backward()
            verify(out, leaves, "random_graphs")
            res.append([num(out.data)] + [num(x.grad) for x in leaves])
        return res
    P["random_graphs"] = random_graphs

    def several_outputs():
        a, b, c = V(2.0), V(-3.0), V(0.5)
        y1 = a * b
        y2 = a + c
        y1.backward()
        y2.backward()
        y3 = b * c
        y3.backward()
        return [num(a.grad), num(b.grad), num(c.grad), num(y1.grad), num(y2.grad)]
    P["several_outputs"] = several_outputs

    def fresh_after_died():
        res = []
        for t in range(40):
            junk = [V(float(i)) * V(2.0) + V(1.0) for i in range(30)]
            del junk
            a, b = V(1.0 + t / 10), V(2.0)
            c = a * b
            d = c + a
            e = d * c
            f = e + d * b
            f.backward()
            res.append([num(f.data), num(a.grad), num(b.grad)])
            del a, b, c, d, e, f
        return res
    P["fresh_after_died"] = fresh_after_died

    def interleaved():
        a, b = V(1.5), V(-0.5)
        p1 = a * b
        q1 = b + 3
        p2 = p1 * a
        q2 = q1 * q1
        p3 = p2 + p1
        q3 = q2 * b
        q3.backward()
        r1 = [num(a.grad), num(b.grad)]
        p3.backward()
        return r1 + [num(a.grad), num(b.grad), num(p3.data), num(q3.data)]
    P["interleaved"] = interleaved

    def equal_data():
        a, b, c = V(2.0), V(2.0), V(2.0)
        d = a * b
        e = d + c
        f = e * a + b * c
        f.backward()
        verify(f, [a, b, c], "equal_data")
        return [num(f.data), num(a.grad), num(b.grad), num(c.grad)]
    P["equal_data"] = equal_data

    def leaf_output():
        v = V(3.0)
        v.backward()
        return [num(v.grad)]
    P["leaf_output"] = leaf_output

    def initial_grad():
        a = V(2.0)
        return [num(a.grad), num((a + V(1.0)).grad), num((a * 2).grad), num((3 + a).grad)]
    P["initial_grad"] = initial_grad

    def graph_extended_after_backward():  # blind_contract2
        a, b, c = V(0.5), V(-1.5), V(2.0)
        x = a + b
        z = x * c
        z.backward()
        first = [num(a.grad), num(b.grad), num(c.grad), num(x.grad)]
        w = z * z + x
        w.backward()
        return first + [num(w.data), num(a.grad), num(b.grad), num(c.grad), num(x.grad), num(z.grad)]
    P["graph_extended_after_backward"] = graph_extended_after_backward

    def equal_subexpressions():  # blind_contract2
        a, b = V(1.5), V(-2.0)
        x = a * b
        y = a * b
        s = x + y
        p = (a + b) * (a + b)
        out = s * p + x
        out.backward()
        verify(out, [a, b], "equal_subexpressions")
        return [num(out.data), num(a.grad), num(b.grad), num(x.grad), num(y.grad)]
    P["equal_subexpressions"] = equal_subexpressions

    def number_leaf_grads():  # blind_contract2
        a, b = V(2.0), V(5.0)
        out1 = a * 3
        out1.backward()
        out2 = b * 3 + 4
        out2.backward()
        out3 = 3 * a
        out3.backward()
        leaves1 = sorted(num(p.grad) for p in out1._prev if p is not a)
        return [leaves1, num(a.grad), num(b.grad), num(out1.data), num(out2.data)]
    P["number_leaf_grads"] = number_leaf_grads

    def structure_nodes():
        res = []
        a, b = V(2.0), V(3.0)
        for build, operands in ((lambda: a + b, (a, b)), (lambda: a * b, (a, b)), (lambda: a + 1, (a,)),
                                (lambda: 1 + a, (a,)), (lambda: 2 * a, (a,)), (lambda: a * 2, (a,)),
                                (lambda: a * a, (a,)), (lambda: a + a, (a,))):
            out = build()
            prev = list(out._prev)
            res.append([isinstance(out, V), all(out is not o for o in operands),
                        all(isinstance(p, V) for p in prev), all(any(p is o for p in prev) for o in operands),
                        len(prev) == 2, out._op != ''])
        res.append([len(V(1.0)._prev) == 0, V(1.0)._op == '', (a + b)._op != (a * b)._op])
        return res
    P["structure_nodes"] = structure_nodes

    def augmented_assign():  # blind_contract3: a sum built with +=
        a, b = V(1.5), V(-2.0)
        total = V(0.0)
        for v in (a, b, a):
            total += v * v
        total += 1
        total.backward()
        return [num(total.data), num(a.grad), num(b.grad), num(a.data), num(b.data)]
    P["augmented_assign"] = augmented_assign

    def data_changed():  # blind_contract3: an operation reads data when it is called
        a, b = V(2.0), V(5.0)
        p1 = a * b
        a.data = 3.0
        p2 = a * b
        s = a + 1
        t = 2 * a
        p2.backward()
        return [num(p1.data), num(p2.data), num(s.data), num(t.data), num(b.grad), num(a.grad)]
    P["data_changed"] = data_changed

    def backward_from_intermediate():  # blind_contract3: a second output inside the first graph
        a, b, c = V(1.5), V(-2.0), V(0.5)
        z = a * b
        w = z * c + z
        w.backward()
        first = [num(a.grad), num(b.grad), num(z.grad)]
        z.backward()
        return first + [num(a.grad), num(b.grad), num(z.grad), num(c.grad)]
    P["backward_from_intermediate"] = backward_from_intermediate

    def constructor_by_name():  # blind_contract3: Value(data, _children=(), _op='') by position and name
        a = V(2.0)
        n1 = V(3.0, (a,), 'x')
        n2 = V(data=4.0, _children=(a,), _op='y')
        return [num(n1.data), len(list(n1._prev)), n1._op, num(n2.data), len(list(n2._prev)), n2._op,
                num(n2.grad)]
    P["constructor_by_name"] = constructor_by_name

    def graph_extended_deeper():  # blind_contract3: a graph extended above nodes two levels deep
        a = V(1.5)
        x = a * 2
        y = x * 3 + a
        y.backward()
        first = num(a.grad)
        z = y * y
        z.backward()
        return [first, num(a.grad), num(x.grad), num(y.grad), num(z.data)]
    P["graph_extended_deeper"] = graph_extended_deeper
    return P


def probes_lab02(ns):
    V = ns["Value"]
    verify = ns.get("verify", lambda *a: None)
    P = {}
    unary = {
        "neg": (lambda a: -a, [0, 1, -1, 1e-300, 1e100, -2.5, 3]),
        "exp": (lambda a: a.exp(), [-700, -1, 0, 1e-300, 1, 10, 700]),
        "log": (lambda a: a.log(), [1e-300, 1e-5, 0.5, 1, 2.718281828459045, 10, 1e100, 1e300]),
        "tanh": (lambda a: a.tanh(), [-1e300, -1000, -20, -1, -1e-300, 0, 1e-300, 0.5, 1, 20, 1000, 1e300]),
        "relu": (lambda a: a.relu(), [-1e300, -1000, -1, -1e-300, 0, 0.0, 1e-300, 1, 1000, 1e300, 1.5e308]),
        "sigmoid": (lambda a: a.sigmoid(), [-1e300, -1000, -700, -30, -1, 0, 1e-300, 1, 30, 700, 1000, 1e300]),
    }

    def unary_probe(name):
        fn, points = unary[name]

        def run():
            res = []
            for x in points:
                a = V(x)
                y = fn(a)
                y.backward()
                verify(y, [a], f"unary_{name}")
                res.append([num(y.data), num(a.grad)])
            return res
        return run
    for name in unary:
        P[f"unary_{name}"] = unary_probe(name)

    def tanh_mid():  # blind_contract2: between the usual points (saturation, small angles)
        res = []
        for x in (7, -7, 6.5, 0.005, -0.005, 0.02):
            a = V(x)
            y = a.tanh()
            y.backward()
            verify(y, [a], "tanh_mid")
            res.append([num(y.data), num(a.grad)])
        return res
    P["tanh_mid"] = tanh_mid

    def pow_int():
        res = []
        for base in (-2.5, -1, -0.5, 0.5, 1, 3, 7, 1e100):
            for k in (-3, -2, -1, 0, 1, 2, 3):
                a = V(base)
                y = a ** k
                y.backward()
                verify(y, [a], "pow_int")
                res.append([num(y.data), num(a.grad)])
        for k in (1, 2, 3):
            a = V(0.0)
            y = a ** k
            y.backward()
            res.append([num(y.data), num(a.grad)])
        return res
    P["pow_int"] = pow_int

    def pow_float():
        res = []
        for base in (0.25, 1, 3, 1e100, 1e-5):
            for k in (0.5, 2.5, -1.5, 1.0, 0.0, 3.0):
                a = V(base)
                y = a ** k
                y.backward()
                verify(y, [a], "pow_float")
                res.append([num(y.data), num(a.grad)])
        return res
    P["pow_float"] = pow_float

    def binary_values():
        res = []
        for x, y in ((3, 2), (0, 5), (-1, 1), (1, -1), (1e-300, 2), (1e100, 3), (2, -0.5), (7, 2), (0.5, 1e100),
                     (-4.0, 1e-5)):
            for op in ("-", "/"):
                a, b = V(x), V(y)
                out = a - b if op == "-" else a / b
                out.backward()
                verify(out, [a, b], "binary_values")
                res.append([num(out.data), num(a.grad), num(b.grad)])
        return res
    P["binary_values"] = binary_values

    def numbers_right():
        res = []
        for k in (2, 0.5, -3, 1e100, 1e-5, 7):
            for x in (1.5, -2.0, 0.0):
                a = V(x)
                y = a - k
                y.backward()
                verify(y, [a], "numbers_right")
                a2 = V(x)
                z = a2 / k
                z.backward()
                verify(z, [a2], "numbers_right")
                res.append([num(y.data), num(a.grad), num(z.data), num(a2.grad)])
        return res
    P["numbers_right"] = numbers_right

    def numbers_left():
        res = []
        for k in (2, 0.5, -3, 0, 1e100, 7):
            for x in (1.5, -2.0, 4):
                a = V(x)
                y = k - a
                y.backward()
                verify(y, [a], "numbers_left")
                a2 = V(x)
                z = k / a2
                z.backward()
                verify(z, [a2], "numbers_left")
                res.append([num(y.data), num(a.grad), num(z.data), num(a2.grad)])
        return res
    P["numbers_left"] = numbers_left

    def upstream():
        res = []
        ops = [lambda a: -a, lambda a: a - 1.5, lambda a: 1.5 - a, lambda a: a / 3, lambda a: 3 / a,
               lambda a: a ** 3, lambda a: a ** -2, lambda a: a ** 0.5, lambda a: a.exp(), lambda a: a.log(),
               lambda a: a.tanh(), lambda a: a.relu(), lambda a: a.sigmoid()]
        for x in (0.8, 2.5):
            for fn in ops:
                a, c = V(x), V(-1.7)
                y = fn(a) * c
                y.backward()
                verify(y, [a, c], "upstream")
                a2 = V(x)
                z = fn(a2) + a2
                z.backward()
                verify(z, [a2], "upstream")
                res.append([num(y.data), num(a.grad), num(c.grad), num(z.data), num(a2.grad)])
        return res
    P["upstream"] = upstream

    def same_twice():
        res = []
        for build in (lambda a: a - a, lambda a: a / a, lambda a: a * a, lambda a: a ** 2 * a,
                      lambda a: a.exp() * a, lambda a: a.log() / a, lambda a: -a + a, lambda a: a.tanh() - a,
                      lambda a: a / (a + 1), lambda a: (a - 1) / a):
            a = V(1.7)
            out = build(a)
            out.backward()
            verify(out, [a], "same_twice")
            res.append([num(out.data), num(a.grad)])
        return res
    P["same_twice"] = same_twice

    def shared_input():
        res = []
        for x in (0.7, 1.3):
            a = V(x)
            out = a.exp() * a.tanh() + a.log() / a - a.sigmoid() + a ** 3 - 1 / a + a.relu() - (2 - a) * a
            out.backward()
            verify(out, [a], "shared_input")
            res.append([num(out.data), num(a.grad)])
        return res
    P["shared_input"] = shared_input

    def value_exponent():
        a = V(2.0)
        try:
            a ** V(2.0)
        except (TypeError, AssertionError, NotImplementedError, ValueError):
            return "refused"
        except Exception as e:  # noqa: BLE001
            return f"raised {type(e).__name__}"
        return "accepted"
    P["value_exponent"] = value_exponent

    def fresh_after_died():
        res = []
        for t in range(30):
            junk = [V(float(i)).log() for i in range(1, 20)]
            del junk
            v = V(1.0 + t)
            r = [v.log(), v.exp(), v.tanh(), v.sigmoid(), v ** 2]
            res.append([num(x.data) for x in r])
            del v, r
        return res
    P["fresh_after_died"] = fresh_after_died

    def data_changed():
        a = V(2.0)
        y1 = a.log()
        a.data = 5.0
        y2 = a.log()
        y3 = a.exp()
        return [num(y1.data), num(y2.data), num(y3.data)]
    P["data_changed"] = data_changed

    def interleaved():
        a, b = V(0.6), V(2.2)
        la = a.log()
        lb = b.log()
        sa = a.sigmoid()
        sb = b.sigmoid()
        ta = a.tanh()
        tb = b.tanh()
        out = la * lb + sa * sb + ta / tb
        out.backward()
        verify(out, [a, b], "interleaved")
        return [num(out.data), num(a.grad), num(b.grad)]
    P["interleaved"] = interleaved

    def equal_data():
        a, b = V(2.0), V(2.0)
        out = a.log() * b.exp() - a / b + (a - b) * a.tanh() + b ** 2 / a
        out.backward()
        verify(out, [a, b], "equal_data")
        return [num(out.data), num(a.grad), num(b.grad)]
    P["equal_data"] = equal_data

    def int_data():
        res = []
        for build in (lambda: V(7) / V(2), lambda: V(7) - V(2), lambda: V(3) ** 2, lambda: 7 / V(2),
                      lambda: V(7) / 2, lambda: V(-9) / V(4), lambda: V(1) / V(3)):
            out = build()
            out.backward()
            res.append([num(out.data)])
        return res
    P["int_data"] = int_data

    def random_exprs():
        rng = random.Random(42)
        res = []
        for _ in range(25):
            leaves = [V(round(rng.uniform(0.5, 2.0), 3)) for _ in range(3)]
            nodes = list(leaves)
            for _ in range(8):
                a = rng.choice(nodes)
                b = rng.choice(nodes)
                op = rng.choice(["+", "-", "*", "/", "pow", "exp", "log", "tanh", "relu", "sigmoid", "neg",
                                 "rsub", "rdiv"])
                x = a.data
                if op == "+":
                    n = a + b
                elif op == "-":
                    n = a - b
                elif op == "*":
                    n = a * b
                elif op == "/" and abs(b.data) > 0.2:
                    n = a / b
                elif op == "pow" and abs(x) > 0.2 and abs(x) < 5:
                    n = a ** rng.choice([-2, -1, 2, 3, 0.5 if x > 0 else 2])
                elif op == "exp" and abs(x) < 5:
                    n = a.exp()
                elif op == "log" and x > 0.05:
                    n = a.log()
                elif op == "tanh":
                    n = a.tanh()
                elif op == "relu":
                    n = a.relu()
                elif op == "sigmoid":
                    n = a.sigmoid()
                elif op == "neg":
                    n = -a
                elif op == "rsub":
                    n = 1.5 - a
                elif op == "rdiv" and abs(x) > 0.2:
                    n = 2.0 / a
                else:
                    n = a * 0.5
                if abs(n.data) > 1e6:
                    n = n.tanh()
                nodes.append(n)
            out = nodes[-1] + nodes[-2] * nodes[-3]
            out.backward()
            verify(out, leaves, "random_exprs")
            res.append([num(out.data)] + [num(x.grad) for x in leaves])
        return res
    P["random_exprs"] = random_exprs

    def graph_extended_after_backward():  # blind_contract3: one input, graphs one after another
        a = V(0.8)
        y1 = a.log() * 2
        y1.backward()
        first = num(a.grad)
        y2 = a.exp() + a.tanh() + a.sigmoid() * a + a ** 2
        y2.backward()
        return [first, num(a.grad), num(y2.data)]
    P["graph_extended_after_backward"] = graph_extended_after_backward

    def sigmoid_mid():  # blind_contract3: sigmoid between the usual points, where 1 - s is small
        res = []
        for x in (17, 19, 20, -19, 8.5):
            a = V(x)
            y = a.sigmoid()
            y.backward()
            verify(y, [a], "sigmoid_mid")
            res.append([num(y.data), num(a.grad)])
        return res
    P["sigmoid_mid"] = sigmoid_mid

    def relu_keeps_input():  # blind_contract4: an operation leaves its operand's data as it was
        res = []
        for x in (-2.0, -1e-300, 3.0):
            a = V(x)
            y = a.relu()
            z = a * 3 + y
            z.backward()
            res.append([num(a.data), num(y.data), num(z.data), num(a.grad)])
        return res
    P["relu_keeps_input"] = relu_keeps_input

    def structure_new_value():
        res = []
        for x, fn in ((2.0, lambda a: -a), (2.0, lambda a: a - 1), (2.0, lambda a: 1 - a), (2.0, lambda a: a / 2),
                      (2.0, lambda a: 2 / a), (2.0, lambda a: a ** 0), (2.0, lambda a: a ** 1),
                      (2.0, lambda a: a ** 1.0), (2.0, lambda a: a.exp()), (2.0, lambda a: a.log()),
                      (2.0, lambda a: a.tanh()), (-1.0, lambda a: a.relu()), (2.0, lambda a: a.relu()),
                      (2.0, lambda a: a.sigmoid())):
            a = V(x)
            out = fn(a)
            res.append([isinstance(out, V), out is not a])
        return res
    P["new_value"] = structure_new_value

    def structure_prev():
        res = []
        for fn in (lambda a: a.exp(), lambda a: a.log(), lambda a: a.tanh(), lambda a: a.relu(),
                   lambda a: a.sigmoid(), lambda a: a ** 2):
            a = V(2.0)
            res.append(any(p is a for p in fn(a)._prev))
        return res
    P["structure_prev"] = structure_prev
    return P


def probes_lab03(ns):
    V = ns["Value"]
    zero_grad, numerical_grad, check_grad = ns["zero_grad"], ns["numerical_grad"], ns["check_grad"]
    verify = ns.get("verify", lambda *a: None)
    P = {}

    def graph():
        a, b, c = V(1.5), V(-2.0), V(0.5)
        d = a * b
        e = d + c
        f = e * d
        g = f.tanh() + a.exp() * c
        return (a, b, c, d, e, f, g)

    def basic():
        a, b, c, d, e, f, g = graph()
        g.backward()
        verify(g, [a, b, c], "basic")
        return [num(v.grad) for v in (a, b, c, d, e, f, g)]
    P["basic"] = basic

    def second_backward():
        a, b, c, d, e, f, g = graph()
        g.backward()
        first = [num(v.grad) for v in (a, b, c, d, e, f, g)]
        g.backward()
        return first + [num(v.grad) for v in (a, b, c, d, e, f, g)]
    P["second_backward"] = second_backward

    def second_backward_chain():
        x = V(0.3)
        y = x
        mids = []
        for i in range(6):
            y = y * (1.0 + i / 10) + x
            mids.append(y)
        y.backward()
        y.backward()
        return [num(x.grad)] + [num(m.grad) for m in mids]
    P["second_backward_chain"] = second_backward_chain

    def chain_100k():
        x, b = V(0.5), V(2.0)
        y = x
        for _ in range(100_000):
            y = y + b
        y.backward()
        r = [num(b.grad), num(x.grad), num(y.data)]
        zero_grad(y)
        return r + [num(b.grad), num(x.grad), num(y.grad)]
    P["chain_100k"] = chain_100k

    def ladder_40():
        x0, c, d = V(1.0), V(0.5), V(0.5)
        x = x0
        for _ in range(40):
            x = x * c + x * d
        x.backward()
        r = [num(x.data), num(x0.grad), num(c.grad), num(d.grad)]
        zero_grad([x])
        return r + [num(x0.grad), num(c.grad)]
    P["ladder_40"] = ladder_40

    def cycle_below():
        a = V(1.0)
        b = a * 2
        c = b + 1
        d = c * 3
        a._prev = (c,)
        return cycle_verdict(d.backward)
    P["cycle_below"] = cycle_below

    def cycle_through_output():
        a, b = V(1.0), V(2.0)
        out = a * b
        a._prev = (out,)
        return cycle_verdict(out.backward)
    P["cycle_through_output"] = cycle_through_output

    def cycle_after_backward():
        a, b = V(1.0), V(2.0)
        c = a * b
        d = c + a
        d.backward()
        a._prev = (d,)
        return cycle_verdict(d.backward)
    P["cycle_after_backward"] = cycle_after_backward

    def zero_grad_value():
        a, b, c, d, e, f, g = graph()
        g.backward()
        zero_grad(g)
        return [num(v.grad) for v in (a, b, c, d, e, f, g)]
    P["zero_grad_value"] = zero_grad_value

    def zero_grad_list():
        a, b, c, d, e, f, g = graph()
        h = b * c + a
        g.backward()
        h.backward()
        zero_grad([g, h])
        return [num(v.grad) for v in (a, b, c, d, e, f, g, h)]
    P["zero_grad_list"] = zero_grad_list

    def zero_grad_intermediate():
        a, b, c, d, e, f, g = graph()
        g.backward()
        zero_grad(e)
        return [num(v.grad) for v in (a, b, c, d, e, f, g)]
    P["zero_grad_intermediate"] = zero_grad_intermediate

    def zero_then_backward():
        a, b, c, d, e, f, g = graph()
        g.backward()
        g.backward()
        zero_grad(g)
        g.backward()
        verify(g, [a, b, c], "zero_then_backward")
        return [num(v.grad) for v in (a, b, c, d, e, f, g)]
    P["zero_then_backward"] = zero_then_backward

    def numgrad_example():
        a, b = V(2.0), V(3.0)
        r = numerical_grad(lambda a, b: a ** 2 * b, [a, b], h=0.001)
        return [type(r).__name__, [num(x) for x in r], a.data == 2.0, b.data == 3.0]
    P["numgrad_example"] = numgrad_example

    def numgrad_default_h():
        x = V(0.1)
        r = numerical_grad(lambda x: x ** 4, [x])
        return [num(v) for v in r]
    P["numgrad_default_h"] = numgrad_default_h

    def numgrad_multi():
        a, b = V(0.3), V(1.7)
        r = numerical_grad(lambda a, b: a * b + a.exp() * b ** 2, [a, b], h=1e-3)
        return [num(v) for v in r] + [a.data == 0.3, b.data == 1.7]
    P["numgrad_multi"] = numgrad_multi

    def numgrad_order():
        a, b, c = V(0.5), V(0.5), V(-1.0)
        r = numerical_grad(lambda a, b, c: a + 2 * b + 3 * c * c, [a, b, c], h=1e-3)
        return [num(v) for v in r]
    P["numgrad_order"] = numgrad_order

    def numgrad_repeated_input():
        a, b = V(1.2), V(-0.7)
        r = numerical_grad(lambda x, y, z: x * y * z, [a, a, b], h=1e-3)
        return [len(r)] + [num(v) for v in r]
    P["numgrad_repeated_input"] = numgrad_repeated_input

    def numgrad_tiny():
        x = V(3.0)
        r = numerical_grad(lambda x: x * 1e-8 + 1.0, [x], h=1e-3)
        return [num(v) for v in r]
    P["numgrad_tiny"] = numgrad_tiny

    def numgrad_restores():
        xs = [V(0.1), V(0.7), V(1e-3)]
        numerical_grad(lambda a, b, c: a * b + c.exp(), xs, h=1e-3)
        numerical_grad(lambda a, b, c: a * b + c.exp(), xs)
        return [xs[0].data == 0.1, xs[1].data == 0.7, xs[2].data == 1e-3]
    P["numgrad_restores"] = numgrad_restores

    def check_grad_right():
        return [check_grad(lambda a, b: a ** 2 * b + a.tanh(), [V(1.3), V(-0.4)]),
                check_grad(lambda x: (x * x + 1).log() / x, [V(0.8)])]
    P["check_grad_right"] = check_grad_right

    def scaled(x, k):
        """A node holding x.data whose _backward passes k times the gradient (k = 1: the identity)."""
        out = V(x.data, (x,), 'scaled')

        def _backward():
            x.grad += k * out.grad
        out._backward = _backward
        return out

    def check_grad_wrong():
        return [check_grad(lambda a: scaled(a, 2.0) * a, [V(1.5)]),
                check_grad(lambda a, b: scaled(a, 1.0) * b + scaled(b, 1.3), [V(0.5), V(2.0)])]
    P["check_grad_wrong"] = check_grad_wrong

    def check_grad_tol():
        return [check_grad(lambda a: scaled(a, 1.01) * 2.0, [V(1.5)], tol=0.05),
                check_grad(lambda a: scaled(a, 1.01) * 2.0, [V(1.5)]),
                check_grad(lambda a, b: a.exp() * b, [V(1.1), V(0.9)], tol=1e-13)]
    P["check_grad_tol"] = check_grad_tol

    def check_grad_zero_derivative():
        return [check_grad(lambda x: x ** 3, [V(0.0)]), check_grad(lambda x, y: x ** 3 * y, [V(0.0), V(2.0)])]
    P["check_grad_zero_derivative"] = check_grad_zero_derivative

    def check_grad_stale():
        a, b = V(0.9), V(-1.1)
        a.grad, b.grad = 5.0, -3.0
        first = check_grad(lambda a, b: a * b + b.exp(), [a, b])
        a.grad, b.grad = -2.0, 11.0
        return [first, check_grad(lambda a, b: (a * b).tanh() * a, [a, b])]
    P["check_grad_stale"] = check_grad_stale

    def check_grad_type():
        return [type(check_grad(lambda a: a * a, [V(1.0)])).__name__,
                type(check_grad(lambda a: scaled(a, 3.0), [V(1.0)])).__name__]
    P["check_grad_type"] = check_grad_type

    def check_grad_totals():  # blind_contract2: errors that cancel in a sum
        return [check_grad(lambda a, b: scaled(a, 1.5) + scaled(b, 0.5), [V(0.3), V(0.9)]),
                check_grad(lambda a, b: scaled(a, 1.0) * 2.0 + b, [V(0.3), V(0.9)])]
    P["check_grad_totals"] = check_grad_totals

    def check_grad_mean():  # blind_contract2: one input off by 1.5e-4, the other right
        return [check_grad(lambda a, b: scaled(a, 1.00015) + b * 1.0, [V(0.4), V(1.2)]),
                check_grad(lambda a, b, c: scaled(a, 1.00015) + b + c, [V(0.4), V(1.2), V(2.0)])]
    P["check_grad_mean"] = check_grad_mean

    def check_grad_default_tol():  # blind_contract2: relative error 1e-3 under the default tol
        return [check_grad(lambda a: scaled(a, 1.001) * 2.0, [V(1.5)]),
                check_grad(lambda a: scaled(a, 1.001) * 2.0, [V(1.5)], tol=1e-2)]
    P["check_grad_default_tol"] = check_grad_default_tol

    def check_grad_positional_tol():  # blind_contract2: tol passed by position
        return [check_grad(lambda a: scaled(a, 1.01) * 2.0, [V(1.5)], 0.05),
                check_grad(lambda a: scaled(a, 1.01) * 2.0, [V(1.5)], 1e-4)]
    P["check_grad_positional_tol"] = check_grad_positional_tol

    def check_grad_sign():  # blind_contract2: a gradient of the wrong sign
        return [check_grad(lambda a: scaled(a, -1.0) * 2.0, [V(1.5)]),
                check_grad(lambda a, b: a * b + scaled(b, -1.0), [V(0.5), V(2.0)])]
    P["check_grad_sign"] = check_grad_sign

    def check_grad_steep():  # blind_contract2: third derivative large: the step matters
        return [check_grad(lambda x: (x * 30).exp(), [V(1.0)]), check_grad(lambda x: (x * 20).exp() * x, [V(1.0)])]
    P["check_grad_steep"] = check_grad_steep

    def check_grad_shared_scale():  # blind_contract2: one large gradient beside a small wrong one
        return [check_grad(lambda a, b: a * 1000.0 + scaled(b, 1.05), [V(0.2), V(0.7)])]
    P["check_grad_shared_scale"] = check_grad_shared_scale

    def zero_grad_list_twice():  # blind_contract2: the same list passed to zero_grad twice
        a, b, c, d, e, f, g = graph()
        nodes = [g]
        g.backward()
        zero_grad(nodes)
        g.backward()
        g.backward()
        zero_grad(nodes)
        return [num(v.grad) for v in (a, b, c, d, e, f, g)] + [len(nodes)]
    P["zero_grad_list_twice"] = zero_grad_list_twice

    def numgrad_positional_h():  # blind_contract3: h passed by position
        a, b = V(2.0), V(3.0)
        return [num(v) for v in numerical_grad(lambda a, b: a ** 2 * b, [a, b], 0.001)]
    P["numgrad_positional_h"] = numgrad_positional_h

    def numgrad_range():  # blind_contract3: the README's inputs 0 ... 1e100, h given and by default
        res = []
        for x0 in (0.0, 1e-300, 0.001, 1.5, 1000.0, 1e100):
            for kw in ({}, {"h": 1e-3}):
                x = V(x0)
                r = numerical_grad(lambda x: x * 3.0 + 1.0, [x], **kw)
                res.append([num(v) for v in r] + [x.data == x0])
        return res
    P["numgrad_range"] = numgrad_range

    def numgrad_twice():  # blind_contract3: two calls, each returns its own list
        a = V(1.5)
        r1 = numerical_grad(lambda a: a * a, [a])
        r2 = numerical_grad(lambda a: a * 3.0, [a])
        return [len(r1), len(r2), [num(v) for v in r2]]
    P["numgrad_twice"] = numgrad_twice

    def check_grad_negative_scale():  # blind_contract3: a large negative gradient, right
        return [check_grad(lambda x: (x * -20).exp(), [V(-1.0)]), check_grad(lambda x: (x * -30).exp(), [V(-1.0)])]
    P["check_grad_negative_scale"] = check_grad_negative_scale

    def diamond_sibling_order():  # blind_contract3: a node's later parent is built on its earlier parent
        res = []
        for build in (lambda n: n + n * 3.0, lambda n: (n + n * 3.0) * n, lambda n: n * (n + 1.0).tanh()):
            a, b = V(1.5), V(-0.5)
            n = a * b
            out = build(n)
            out.backward()
            verify(out, [a, b], "diamond_sibling_order")
            res.append([num(out.data), num(a.grad), num(b.grad), num(n.grad)])
        return res
    P["diamond_sibling_order"] = diamond_sibling_order

    def random_shared():
        rng = random.Random(7)
        res = []
        for _ in range(20):
            leaves = [V(round(rng.uniform(0.3, 1.5), 3)) for _ in range(3)]
            nodes = list(leaves)
            for _ in range(10):
                a, b = rng.choice(nodes), rng.choice(nodes)
                op = rng.random()
                n = a + b if op < 0.35 else a * b if op < 0.7 else a.tanh() if op < 0.85 else a.sigmoid()
                nodes.append(n)
            out = nodes[-1] + nodes[-4]
            out.backward()
            verify(out, leaves, "random_shared")
            res.append([num(out.data)] + [num(x.grad) for x in leaves])
        return res
    P["random_shared"] = random_shared

    def structure_labels():
        a, b = V(1.0), V(2.0)
        return [a._op == '', (a + b)._op != '', (a * b)._op != (a + b)._op]
    P["structure_labels"] = structure_labels
    return P


def probes_lab04(nn, oracle):
    """lab04's probes; `oracle` is None for an engine (nn is its module), else (MLP, train_xor) of torch."""
    P = {}

    def make(seed, nin, nouts):
        random.seed(seed)
        return (oracle[0] if oracle else nn.MLP)(nin, nouts)

    def params(m, attr="data"):
        if oracle:
            return m.flat(attr)
        return [num(getattr(p, attr)) for p in m.parameters()]

    def out(m, x):
        if oracle:
            vals = m.forward(x).tolist()
            return vals[0] if len(vals) == 1 else ["list", vals]
        y = m(x)
        if isinstance(y, list):
            return ["list", [num(v.data) for v in y]]
        return num(y.data) if hasattr(y, "data") else f"<{type(y).__name__}>"

    def train(m, *args, **kw):
        if oracle:
            return oracle[1](m, *args, **kw)
        losses = nn.train_xor(m, *args, **kw)
        return [x if type(x) is float else f"<{type(x).__name__}>" for x in losses]

    def init():
        res = []
        for seed in (0, 5):
            m = make(seed, 2, [4, 1])
            p = params(m)
            res.append([len(p), p])
        return res
    P["init"] = init

    def init_multi():
        m = make(1, 3, [4, 4, 2])
        return [params(m), out(m, [0.5, -1.0, 2.0])]
    P["init_multi"] = init_multi

    def single_output():
        m = make(2, 2, [4, 1])
        return [out(m, [1.0, -1.0]), out(m, [-0.3, 0.8])]
    P["single_output"] = single_output

    def two_outputs():
        m = make(9, 2, [3, 2])
        return [out(m, [0.3, -0.7]), out(m, [-1.0, 1.0])]
    P["two_outputs"] = two_outputs

    def parameters_identity():
        m = make(3, 2, [4, 1])
        if oracle:
            return [True, "list", 17]
        p1, p2 = m.parameters(), m.parameters()
        p1 = list(p1) if not isinstance(p1, list) else p1
        return [all(a is b for a, b in zip(p1, p2)), type(m.parameters()).__name__, len(p1)]
    P["parameters_identity"] = parameters_identity

    def grads():
        m = make(3, 2, [4, 1])
        if oracle:
            loss = m.loss()
            loss.backward()
            return [loss.item(), m.flat("grad")]
        loss = sum((m(x) - y) ** 2 for x, y in zip(nn.XOR_INPUTS, nn.XOR_TARGETS)) / 4
        m.zero_grad()
        loss.backward()
        return [num(loss.data), params(m, "grad")]
    P["grads"] = grads

    def zero_grad():
        m = make(3, 2, [4, 1])
        if oracle:
            return [0.0] * 17
        loss = sum((m(x) - y) ** 2 for x, y in zip(nn.XOR_INPUTS, nn.XOR_TARGETS)) / 4
        loss.backward()
        m.zero_grad()
        return params(m, "grad")
    P["zero_grad"] = zero_grad

    def train_default():
        res = []
        for seed in (0, 1):
            m = make(seed, 2, [4, 1])
            losses = train(m)
            res.append([len(losses), losses, params(m)])
        return res
    P["train_default"] = train_default

    def train_short():
        m = make(4, 2, [4, 1])
        return [train(m, steps=0), train(m, steps=1, lr=0.1), train(m, steps=7, lr=0.05), params(m)]
    P["train_short"] = train_short

    def random_state():
        m = make(7, 2, [4, 1])
        state = random.getstate()
        train(m, steps=10)
        return [random.getstate() == state]
    P["random_state"] = random_state

    def two_models():
        random.seed(8)
        m1 = make(8, 2, [4, 1])
        m2 = (oracle[0] if oracle else nn.MLP)(2, [4, 1])
        before = params(m1)
        train(m2, steps=5)
        return [len(params(m1)), len(params(m2)), before == params(m1), out(m1, [1.0, 1.0]), out(m2, [1.0, 1.0])]
    P["two_models"] = two_models

    def losses_type():  # blind_contract2: the raw return value of train_xor
        m = make(6, 2, [4, 1])
        if oracle:
            return ["list", 3]
        r = nn.train_xor(m, steps=3)
        return [type(r).__name__, len(list(r))]
    P["losses_type"] = losses_type

    def train_positional():  # blind_contract2: steps and lr by position
        m = make(11, 2, [4, 1])
        return [train(m, 3, 0.1), params(m)]
    P["train_positional"] = train_positional

    def large_inputs():  # blind_contract2: the README's range of inputs
        m = make(12, 2, [4, 1])
        return [out(m, [1e100, -3.0]), out(m, [0.0, 1e-300]), out(m, [-2.5, 40.0])]
    P["large_inputs"] = large_inputs

    def neuron_direct():  # blind_contract2: Neuron(nin) with its default nonlin
        random.seed(13)
        if oracle:
            w0, w1 = random.uniform(-1, 1), random.uniform(-1, 1)
            return math.tanh(w0 * 0.5 + w1 * -1.0 + 0.0)
        n = nn.Neuron(2)
        return num(n([0.5, -1.0]).data)
    P["neuron_direct"] = neuron_direct

    def nouts_reused():  # blind_contract3: one list of layer sizes for two models
        sizes = [4, 1]
        m1 = make(21, 2, sizes)
        m2 = make(22, 2, sizes)
        return [list(sizes), len(params(m1)), len(params(m2)), out(m2, [0.5, -1.0])]
    P["nouts_reused"] = nouts_reused

    def wide_layer():  # blind_contract3: more than ten inputs and more than ten neurons
        m = make(23, 12, [11, 1])
        x = [0.1 * i - 0.5 for i in range(12)]
        return [params(m), out(m, x)]
    P["wide_layer"] = wide_layer

    def value_inputs():  # blind_contract4: x holds Values (the README: numbers or Values)
        m = make(24, 2, [4, 1])
        res = []
        for x in ([0.5, -1.0], [1e-300, 2.0]):
            res.append(out(m, x if oracle else [nn.Value(v) for v in x]))
        return res
    P["value_inputs"] = value_inputs
    return P


# ------------------------------------------------------------------------------- child process

def child(lab: str, backend: str, engine: str) -> None:
    """Run every probe of `lab` with the engine (or the oracle) and print the results as JSON."""
    if backend == "torch":
        if lab == "lab04_xor":
            probes = probes_lab04(None, torch_network())
        else:
            probes = {"lab01_graph": probes_lab01, "lab02_ops": probes_lab02,
                      "lab03_backprop": probes_lab03}[lab](torch_namespace())
    else:
        sys.path.insert(0, engine)
        if lab == "lab04_xor":
            import nn  # noqa: PLC0415
            probes = probes_lab04(nn, None)
        else:
            import value  # noqa: PLC0415
            probes = {"lab01_graph": probes_lab01, "lab02_ops": probes_lab02,
                      "lab03_backprop": probes_lab03}[lab](vars(value))

    def timeout(*_):
        raise TimeoutError("probe time limit")
    signal.signal(signal.SIGALRM, timeout)
    results = {}
    for name, run in probes.items():
        signal.alarm(PROBE_SECONDS[backend])
        try:
            results[name] = run()
        except RecursionError:
            results[name] = "raised RecursionError"
        except Exception as e:  # noqa: BLE001 - every failure is a result
            results[name] = f"raised {type(e).__name__}: {str(e)[:80]}"
        finally:
            signal.alarm(0)
    print(json.dumps({"results": results, "oracle_mismatches": ORACLE_MISMATCHES}))


def run_child(lab: str, backend: str, engine: Path | None) -> dict:
    """Results of one child process (a crash of the whole child is one result for every probe)."""
    cmd = [sys.executable, "-W", "ignore", __file__, "--child", lab, backend, str(engine or "")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd="/tmp", timeout=3600,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"})
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"results": None, "crash": (proc.stderr or "")[-300:], "oracle_mismatches": []}


def main() -> None:
    """Probe each engine of the corpus and print whether it behaves as its NOTE says."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labs", nargs="*", default=LABS)
    ap.add_argument("--engine", action="append")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--child", nargs=3, metavar=("LAB", "BACKEND", "ENGINE"))
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    report, ok_all = {}, True
    for lab in args.labs:
        oracle = run_child(lab, "torch", None)
        if oracle.get("results") is None or oracle["oracle_mismatches"]:
            print(f"{lab}: ORACLE FAILED {oracle.get('crash', '')} {oracle['oracle_mismatches'][:5]}")
            ok_all = False
            continue
        expected = oracle["results"]
        bad_oracle = [k for k, v in expected.items() if isinstance(v, str) and v.startswith("raised")]
        if bad_oracle:
            print(f"{lab}: oracle raised on {bad_oracle}: {[expected[k] for k in bad_oracle]}")
            ok_all = False
        for note in sorted((CORPUS / lab).glob("*/NOTE.toml")):
            name = note.parent.name
            if args.engine and name not in args.engine:
                continue
            meta = tomllib.loads(note.read_text(encoding="utf-8"))
            got = run_child(lab, "engine", note.parent)
            results = got.get("results") or {}
            differ = [k for k in expected if not same(results.get(k, "missing"), expected[k], TOL[lab],
                                                      1e-9 if k.startswith("random") else ABS[lab])]
            intent = meta["intent"]
            if intent in ("correct", "equivalent"):
                ok = not differ
            elif intent == "cosmetic":
                ok = bool(differ) and all(k.startswith("structure") for k in differ)
            else:
                ok = bool(differ)
            ok_all &= ok
            report[f"{lab}/{name}"] = {"intent": intent, "differ": differ, "ok": ok}
            print(f"{'ok  ' if ok else 'FAIL'} {lab}/{name:34} {intent:10} differs on: {', '.join(differ) or '-'}")
            if args.verbose or not ok:
                for k in differ:
                    print(f"        {k}: got {json.dumps(results.get(k))[:300]}")
                    print(f"        {' ' * len(k)}  want {json.dumps(expected[k])[:300]}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print("every engine behaves as its NOTE says" if ok_all else "SOME ENGINES DO NOT BEHAVE AS THEIR NOTE SAYS")
    sys.exit(0 if ok_all else 1)


if __name__ == "__main__":
    main()
