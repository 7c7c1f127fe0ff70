"""Write every one-edit engine of the corpus (bug, equivalent) from its correct base.

Usage: python tests/blind_contract2/_probes/make_variants.py
Each variant is (lab, name, base, intent, file, edits, description, pitfall_guess, operations,
dimension); an edit is (old, new[, count]): `old` must occur exactly `count` times (default 1) in
the base's file. The engine folder gets the edited file, the base's other files unchanged, and a
NOTE.toml. `shown_by` in NOTE.toml lists the probes of probe.py on which the engine differs from
PyTorch, read from probe.py's last report (_probes/last_run.json): run the probe first, then this
script again. (Same format as tests/blind_contract/_probes/make_variants.py.)
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

V = "value.py"
N = "nn.py"

L1, L2, L3, L4 = "lab01_graph", "lab02_ops", "lab03_backprop", "lab04_xor"

VARIANTS = [
    # ----------------------------------------------------------------------------- lab01_graph
    (L1, "number_not_in_prev", "c_tape_weakref", "bug", V, [
        ("    def __add__(self, other):\n        other = other if isinstance(other, Value) else Value(other)\n"
         "        out = Value(self.data + other.data, (self, other), '+')\n",
         "    def __add__(self, other):\n        if not isinstance(other, Value):\n"
         "            # a plain number is a constant: it needs no node of its own\n"
         "            out = Value(self.data + other, (self,), '+')\n\n            def _backward_number():\n"
         "                self.grad += out.grad\n            out._backward = _backward_number\n"
         "            _record(out)\n            return out\n"
         "        out = Value(self.data + other.data, (self, other), '+')\n"),
        ("    def __mul__(self, other):\n        other = other if isinstance(other, Value) else Value(other)\n"
         "        out = Value(self.data * other.data, (self, other), '*')\n",
         "    def __mul__(self, other):\n        if not isinstance(other, Value):\n"
         "            out = Value(self.data * other, (self,), '*')\n\n            def _backward_number():\n"
         "                self.grad += other * out.grad\n            out._backward = _backward_number\n"
         "            _record(out)\n            return out\n"
         "        out = Value(self.data * other.data, (self, other), '*')\n")],
     "a plain-number operand is folded into the closure: a + 2 and 2 * a make a node whose _prev holds only "
     "the Value (gradients stay right; the number never becomes a leaf Value)",
     "number-operand", ["+", "*"], "graph structure: a number operand as a leaf in _prev"),
    (L1, "leaf_flush_tiny", "c_height_match", "bug", V, [
        ("        self.data = data\n", "        self.data = 0.0 if abs(data) < 1e-12 else data  # float noise is zero\n")],
     "the constructor flushes any number below 1e-12 in size to 0.0 (to hide float noise), so 1e-300 * 3 is 0 "
     "and tiny operands lose their value and the gradients they pass on",
     "domain-edge", ["+", "*"], "edge values: tiny operands (1e-300)"),
    (L1, "grad_clipped", "c_height_match", "bug", V, [
        ("def _leaf_backward():", "MAX_GRAD = 1e6\n\n\ndef _leaf_backward():"),
        ("        for node in nodes:\n            node._backward()\n",
         "        for node in nodes:\n            node._backward()\n"
         "            for parent in node._prev:  # keep gradients from exploding\n"
         "                parent.grad = max(-MAX_GRAD, min(MAX_GRAD, parent.grad))\n")],
     "backward() clips every gradient it passes on to [-1e6, 1e6], so a product with a large operand (1e100) "
     "gives its other operand a gradient of 1e6",
     "domain-edge", ["backward"], "edge values: large operands (1e100)"),
    (L1, "tape_replays_other_graphs", "c_tape_weakref", "bug", V, [
        ("            if node is not None and needed.get(id(node)) is node:\n",
         "            if node is not None:\n")],
     "backward() replays the whole tape, the _backward of every live node ever made, not only of the nodes "
     "the output depends on: a graph that was backpropagated before passes its old gradients on again",
     "shared-state", ["backward"], "instance state: graphs built side by side (several outputs, interleaved)"),
    (L1, "tape_cleared_after_backward", "c_tape_weakref", "bug", V, [
        ("                node._backward()   # the leaves (nothing to do, but every node's _backward is called)\n",
         "                node._backward()   # the leaves (nothing to do, but every node's _backward is called)\n"
         "        _TAPE.clear()  # this graph is done: start a fresh tape\n")],
     "backward() clears the tape when it ends, so a graph built on top of nodes made before that backward() "
     "never runs the old nodes' _backward (their gradients stop there)",
     "shared-state", ["backward"], "repetition: a graph extended after a backward()"),
    (L1, "prev_generator_expression", "c_tape_weakref", "bug", V, [
        ("        self._prev = tuple(_children)\n", "        self._prev = (c for c in _children)\n")],
     "_prev is a generator expression (written as if it were a tuple comprehension): the first traversal "
     "uses it up, so a second backward() through the same nodes stops below them",
     "graph-construction", ["+", "*", "backward"], "repetition: a graph extended after a backward()"),
    (L1, "visited_by_structure", "c_height_match", "bug", V, [
        ("            if id(node) in seen:\n                continue\n            seen.add(id(node))\n",
         "            key = (node._op, tuple(id(p) for p in node._prev)) if node._prev else id(node)\n"
         "            if key in seen:  # the same operation on the same operands is the same node\n"
         "                continue\n            seen.add(key)\n")],
     "backward()'s visited set keys an operation node by its label and its parents' ids, so two separate "
     "nodes a * b and a * b count as one and the second one's _backward never runs",
     "missing-visited-set", ["backward"], "instance state: equal subexpressions in distinct nodes"),
    (L1, "leaf_requires_float", "c_subclass_registry", "bug", V, [
        ("        self.data = data\n", "        assert isinstance(data, float), \"a Value holds a float\"\n"
         "        self.data = data\n")],
     "the constructor asserts that data is a float, so Value(2) and a + 3 (an int operand) fail with "
     "AssertionError",
     "number-operand", ["+", "*"], "operand kind: int leaves and int numbers"),
    (L1, "leaf_asserts_magnitude", "c_tape_weakref", "bug", V, [
        ("        self.data = data\n", "        assert abs(data) < 1e15, f\"value {data} is exploding\"\n"
         "        self.data = data\n")],
     "the constructor asserts |data| < 1e15 as a sanity check, so large operands (1e100) raise AssertionError",
     "domain-edge", ["+", "*"], "edge values: large operands (1e100)"),
    (L1, "dfs_pops_front", "c_subclass_registry", "bug", V, [
        ("            node, expanded = stack.pop()\n", "            node, expanded = stack.pop(0)\n")],
     "the post-order walk takes its frames from the front of the list (pop(0)), a queue instead of a "
     "stack, so a node can be emitted before a node that uses it",
     "topological-order", ["backward"], "graph shape: diamonds at different depths"),
    (L1, "number_leaves_interned", "c_subclass_registry", "bug", V, [
        ("    @staticmethod\n    def _lift(x):\n        return x if isinstance(x, Value) else Value(x)\n",
         "    _constants = {}\n\n    @staticmethod\n    def _lift(x):\n        if isinstance(x, Value):\n"
         "            return x\n        if x not in Value._constants:  # one leaf per constant, reused\n"
         "            Value._constants[x] = Value(x)\n        return Value._constants[x]\n")],
     "number operands are interned: every a * 3 and 3 * b shares one leaf Value(3) kept in a class-level "
     "dict, whose gradient collects the contributions of every graph",
     "shared-state", ["+", "*"], "instance state: a class-level table of constants"),
    (L1, "mul_minus_one_fast_path", "c_tape_weakref", "bug", V, [
        ("        out = Value(self.data * other.data, (self, other), '*')\n",
         "        if other.data == -1:  # multiplying by -1 is a negation\n"
         "            out = Value(-self.data, (self, other), '*')\n\n            def _negate():\n"
         "                self.grad -= out.grad\n            out._backward = _negate\n            _record(out)\n"
         "            return out\n        out = Value(self.data * other.data, (self, other), '*')\n")],
     "a product whose right operand is -1 takes a negation shortcut whose _backward forgets the -1 "
     "operand's gradient (a * Value(-1) gives the -1 no gradient)",
     "domain-edge", ["*"], "edge values: an operand exactly -1"),
    (L1, "leaf_op_none", "c_height_match", "bug", V, [
        ("    def __init__(self, data, _children=(), _op=''):", "    def __init__(self, data, _children=(), _op=None):")],
     "the constructor's default label is None, so a leaf's _op is None instead of ''",
     "graph-construction", ["leaf"], "return values: a leaf's label"),
    (L1, "height_from_first_parent", "c_height_match", "bug", V, [
        ("        self._height = 1 + max((c._height for c in self._prev), default=-1)\n",
         "        self._height = self._prev[0]._height + 1 if self._prev else 0\n")],
     "a node's height is one more than its first parent's, not than its highest parent's, so a node can sort "
     "below a parent reached through its second operand and run its _backward too early",
     "topological-order", ["backward"], "graph shape: diamonds at different depths"),
    (L1, "tape_seeds_last_recorded", "c_tape_weakref", "bug", V, [
        ("        self.grad = 1.0\n",
         "        last = _TAPE[-1]() if _TAPE else None\n"
         "        (last if last is not None else self).grad = 1.0  # the output is the last operation recorded\n")],
     "backward() seeds the last node recorded on the tape, assuming it is the output: right when backward() "
     "is called on the newest node, wrong for an older output",
     "seed-gradient", ["backward"], "graph shape: several outputs"),
    (L1, "eq_tape_unpruned", "c_tape_weakref", "equivalent", V, [
        ("    if len(_TAPE) % _PRUNE_EVERY == 0 and _TAPE:\n        _TAPE[:] = [r for r in _TAPE if r() is not None]\n", "")],
     "the tape of weak references is never pruned of dead entries (it only grows)",
     "none", ["backward"], "equivalent: nothing observable changes"),

    # ------------------------------------------------------------------------------- lab02_ops
    (L2, "exp_via_expm1", "c_closure_factory", "bug", V, [
        ("Value.exp = _unary(math.exp, lambda x, y: y, 'exp')",
         "Value.exp = _unary(lambda x: math.expm1(x) + 1.0, lambda x, y: y, 'exp')  # expm1 is the precise one")],
     "exp is computed as expm1(x) + 1, which is 0.0 for x below about -37 (exp(-700) is 9.9e-305), and so is "
     "its gradient",
     "domain-edge", ["exp"], "edge values: very negative inputs to exp"),
    (L2, "log_domain_guard_epsilon", "c_match_dispatch", "bug", V, [
        ("            case 'log':\n                data, locals_ = math.log(x), (1.0 / x,)",
         "            case 'log':\n                if x < 1e-12:\n"
         "                    raise ValueError(f\"log of a non-positive number: {x}\")\n"
         "                data, locals_ = math.log(x), (1.0 / x,)")],
     "log refuses inputs below 1e-12 as 'non-positive' (a guard with a tolerance), so log(1e-300) raises",
     "domain-edge", ["log"], "edge values: tiny inputs to log"),
    (L2, "relu_epsilon_threshold", "c_edge_namedtuple", "bug", V, [
        ("        positive = self.data > 0\n", "        positive = self.data > 1e-12  # below this it is rounding noise\n")],
     "relu treats inputs up to 1e-12 as non-positive, so relu(1e-300) is 0 with gradient 0 instead of 1e-300 "
     "with gradient 1",
     "domain-edge", ["relu"], "edge values: tiny positive inputs to relu"),
    (L2, "pow_grad_zero_guard", "c_closure_factory", "bug", V, [
        ("lambda x, y: exponent * x ** (exponent - 1),",
         "lambda x, y: exponent * x ** (exponent - 1) if x != 0 else 0.0,")],
     "the power rule's derivative is guarded to 0 at a base of 0, so d(x ** 1)/dx at x = 0 is 0 instead of 1",
     "domain-edge", ["**"], "edge values: a base of 0 with exponent 1"),
    (L2, "tanh_saturates_early", "c_match_dispatch", "bug", V, [
        ("            case 'tanh':\n                data = math.tanh(x)",
         "            case 'tanh':\n                data = math.copysign(1.0, x) if abs(x) > 6 else math.tanh(x)  # saturated")],
     "tanh returns exactly +-1 (and so a gradient of 0) for |x| > 6, where tanh(7) is 0.9999983 and its "
     "gradient 3.3e-6",
     "domain-edge", ["tanh"], "edge values: moderately large inputs to tanh"),
    (L2, "pow_asserts_nonnegative", "c_edge_namedtuple", "bug", V, [
        ("            raise TypeError(\"exponent must be a plain int or float\")\n",
         "            raise TypeError(\"exponent must be a plain int or float\")\n"
         "        assert k >= 0, \"negative powers are not supported\"\n")],
     "** refuses negative exponents with an assert, so a ** -2 and every division (built on b ** -1) fail",
     "unsupported-operand", ["**", "/"], "operand kind: a negative int exponent"),
    (L2, "div_prev_rewired_to_operands", "c_edge_namedtuple", "bug", V, [
        ("    def __truediv__(self, other):\n        other = other if isinstance(other, Value) else Value(other)\n"
         "        return self * other ** -1\n\n    def __rtruediv__(self, other):\n"
         "        return Value(other) * self ** -1\n",
         "    def __truediv__(self, other):\n        other = other if isinstance(other, Value) else Value(other)\n"
         "        out = self * other ** -1\n"
         "        out._prev, out._op = (self, other), '/'  # show the two operands of the division\n"
         "        return out\n\n    def __rtruediv__(self, other):\n        other = Value(other)\n"
         "        out = other * self ** -1\n        out._prev, out._op = (other, self), '/'\n        return out\n")],
     "a / b is built as a * b**-1 and then its _prev is set to (a, b) for a nicer graph: the b**-1 node drops "
     "out of the traversal, so the divisor gets no gradient",
     "graph-construction", ["/"], "graph structure: a composed operation's parents"),
    (L2, "tanh_cancels_near_zero", "c_closure_factory", "bug", V, [
        ("def _sigmoid(x):\n    z = math.exp(-abs(x))",
         "def _tanh(x):\n    if x > 20:\n        return 1.0\n    if x < -20:\n        return -1.0\n"
         "    return 1.0 - 2.0 / (math.exp(2 * x) + 1.0)\n\n\ndef _sigmoid(x):\n    z = math.exp(-abs(x))"),
        ("Value.tanh = _unary(math.tanh,", "Value.tanh = _unary(_tanh,")],
     "tanh is 1 - 2 / (e^2x + 1) (guarded against overflow beyond +-20), which cancels to 0 for tiny x: "
     "tanh(1e-300) is 0 instead of 1e-300",
     "domain-edge", ["tanh"], "edge values: tiny inputs to tanh"),
    (L2, "sigmoid_overflow_guard_sign", "c_match_dispatch", "bug", V, [
        ("def _sigmoid(x):\n    if x >= 0:\n        return 1.0 / (1.0 + math.exp(-x))\n    e = math.exp(x)\n"
         "    return e / (1.0 + e)\n",
         "def _sigmoid(x):\n    try:\n        return 1.0 / (1.0 + math.exp(-x))\n"
         "    except OverflowError:  # exp(-x) too large to hold\n        return 1.0\n")],
     "sigmoid catches the OverflowError of exp(-x) but returns 1.0 instead of 0.0, so sigmoid(-1000) is 1",
     "domain-edge", ["sigmoid"], "edge values: very negative inputs to sigmoid"),
    (L2, "tanh_small_angle_approx", "c_edge_namedtuple", "bug", V, [
        ("        t = math.tanh(self.data)\n",
         "        t = self.data if abs(self.data) < 0.01 else math.tanh(self.data)  # tanh(x) ~ x for small x\n")],
     "tanh uses the small-angle approximation tanh(x) = x for |x| < 0.01, off by x**3 / 3 (and the gradient by x**2)",
     "wrong-local-derivative", ["tanh"], "edge values: small inputs to tanh"),
    (L2, "pow_grad_precedence_slip", "c_match_dispatch", "bug", V, [
        ("                data, locals_ = x ** k, (k * x ** (k - 1),)",
         "                data, locals_ = x ** k, (k * x ** k-1,)")],
     "the power rule is typed k * x ** k-1 without parentheses, which Python reads as k * x**k - 1",
     "wrong-local-derivative", ["**", "/"], "operations: the power rule"),
    (L2, "grad_clipped_in_ops", "c_closure_factory", "bug", V, [
        ("            self.grad += derivative(self.data, out.data) * out.grad\n",
         "            local = max(-1e6, min(1e6, derivative(self.data, out.data)))  # no exploding slopes\n"
         "            self.grad += local * out.grad\n")],
     "every one-input operation clips its local derivative to [-1e6, 1e6], so log at 1e-300 and 1e100 ** 3 "
     "pass on a slope of 1e6",
     "domain-edge", ["log", "**", "exp"], "edge values: large local derivatives"),
    (L2, "data_flushed_tiny", "c_match_dispatch", "bug", V, [
        ("        self.data = data\n",
         "        self.data = 0.0 if isinstance(data, float) and abs(data) < 1e-12 else data\n")],
     "the constructor flushes floats below 1e-12 in size to 0.0, so exp(-700) holds 0 and log(1e-300) fails",
     "domain-edge", ["exp", "log", "tanh", "relu"], "edge values: tiny data"),
    (L2, "div_asserts_float_operands", "c_match_dispatch", "bug", V, [
        ("            case '/':\n                data, locals_",
         "            case '/':\n                assert isinstance(y, float), \"divide by a float, never an int\"\n"
         "                data, locals_")],
     "division asserts that the divisor is a float (a Python 2 habit against integer division), so a / 2 "
     "and Value(7) / Value(2) fail",
     "number-operand", ["/"], "operand kind: int divisors"),
    (L2, "pow_negative_exponent_grad_sign", "c_edge_namedtuple", "bug", V, [
        ("        return Value._made(self.data ** k, f'**{k}', Edge(self, k * self.data ** (k - 1)))\n",
         "        if k < 0:  # x ** -n is 1 / x ** n\n            n = -k\n"
         "            return Value._made(1.0 / self.data ** n, f'**{k}', Edge(self, n * self.data ** (k - 1)))\n"
         "        return Value._made(self.data ** k, f'**{k}', Edge(self, k * self.data ** (k - 1)))\n")],
     "a negative exponent is handled as 1 / x ** n, and its derivative n * x ** (k - 1) loses the minus sign "
     "(so does the divisor's gradient in a / b)",
     "wrong-local-derivative", ["**", "/"], "operand kind: a negative int exponent"),
    (L2, "eq_rsub_as_negated_sub", "c_match_dispatch", "equivalent", V, [
        ("        return Value(other)._node('-', self)\n", "        return -(self - other)\n")],
     "number - a is built as -(a - number): the same number (negation is exact) and gradient",
     "none", ["-"], "equivalent: nothing observable changes"),

    # -------------------------------------------------------------------------- lab03_backprop
    (L3, "check_grad_compares_totals", "c_enter_exit_match", "bug", V, [
        ("    grads = [x.grad for x in xs]\n"
         "    for analytic, numeric in zip(grads, numerical_grad(f, xs), strict=True):\n"
         "        if abs(analytic - numeric) > tol * max(1, abs(numeric)):\n            return False\n    return True\n",
         "    grads = [x.grad for x in xs]\n"
         "    total, numeric = sum(grads), sum(numerical_grad(f, xs))  # one number to compare\n"
         "    return abs(total - numeric) <= tol * max(1, abs(numeric))\n")],
     "check_grad compares the sum of the analytic gradients with the sum of the numeric ones, so errors of "
     "opposite sign on two inputs cancel",
     "finite-difference", ["check_grad"], "check_grad's formula: per input"),
    (L3, "check_grad_mean_error", "c_height_sort", "bug", V, [
        ("    return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in zip(analytic, numeric))\n",
         "    errors = [abs(a - n) / max(1, abs(n)) for a, n in zip(analytic, numeric)]\n"
         "    return sum(errors) / len(errors) <= tol  # the average relative error\n")],
     "check_grad averages the relative errors over the inputs, so one wrong input among right ones passes",
     "finite-difference", ["check_grad"], "check_grad's formula: every input"),
    (L3, "check_grad_default_tol_loose", "c_dict_order_deque", "bug", V, [
        ("def check_grad(f, xs, tol=1e-4):", "def check_grad(f, xs, tol=1e-2):")],
     "check_grad's default tolerance is 1e-2 instead of the contract's 1e-4",
     "finite-difference", ["check_grad"], "defaults: tol"),
    (L3, "check_grad_none_on_failure", "c_height_sort", "bug", V, [
        ("    return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in zip(analytic, numeric))\n",
         "    if all(abs(a - n) <= tol * max(1, abs(n)) for a, n in zip(analytic, numeric)):\n        return True\n")],
     "check_grad returns True when the gradients agree and falls off its end (None) when they do not",
     "finite-difference", ["check_grad"], "return types: check_grad's verdict"),
    (L3, "zero_grad_reuses_last_order", "c_height_sort", "bug", V, [
        ("        nodes.sort(key=lambda n: height[id(n)], reverse=True)\n",
         "        nodes.sort(key=lambda n: height[id(n)], reverse=True)\n"
         "        Value._last_order = nodes  # zero_grad reuses it\n"),
        ("    frontier = [nodes] if isinstance(nodes, Value) else list(nodes)\n    seen = {id(v) for v in frontier}\n"
         "    while frontier:\n        below = []\n        for v in frontier:\n            v.grad = 0.0\n"
         "            for p in v._prev:\n                if id(p) not in seen:\n                    seen.add(id(p))\n"
         "                    below.append(p)\n        frontier = below\n",
         "    roots = [nodes] if isinstance(nodes, Value) else list(nodes)\n    for v in roots:\n        v.grad = 0.0\n"
         "    # the graph was already sorted by the last backward(): reset the nodes it found\n"
         "    for v in getattr(Value, '_last_order', []):\n        v.grad = 0.0\n")],
     "zero_grad resets the nodes given and the nodes of the last backward()'s order (kept on the class), not the "
     "graph of the nodes given",
     "missing-zero-grad", ["zero_grad"], "instance state: the last backward()'s order kept on the class"),
    (L3, "zero_grad_consumes_list", "c_dict_order_deque", "bug", V, [
        ("    todo = deque([nodes] if isinstance(nodes, Value) else nodes)\n",
         "    todo = [nodes] if isinstance(nodes, Value) else nodes  # no copy needed\n"),
        ("        v = todo.popleft()\n", "        v = todo.pop()\n")],
     "zero_grad uses the caller's list as its work stack, so the list is empty afterwards and a second "
     "zero_grad(same_list) resets nothing",
     "missing-zero-grad", ["zero_grad"], "repetition: zero_grad twice on one list"),
    (L3, "cycle_by_step_budget", "c_enter_exit_match", "bug", V, [
        ("        frames = [('enter', self)]\n        while frames:\n",
         "        frames = [('enter', self)]\n        entered = 0\n        while frames:\n"),
        ("                    on_path.add(id(node))\n",
         "                    entered += 1\n"
         "                    if entered > 100_000:  # more nodes than any real graph: we must be going round a cycle\n"
         "                        raise RuntimeError(\"cycle suspected: too many nodes\")\n"
         "                    on_path.add(id(node))\n")],
     "backward() suspects a cycle once it has entered more than 100,000 nodes, so the contract's 100,000-node "
     "chain (100,002 nodes) raises a cycle error",
     "cycle-detection", ["backward"], "graph shape: a 100,000-node chain"),
    (L3, "numgrad_passes_list", "c_enter_exit_match", "bug", V, [
        ("        plus = f(*xs).data\n", "        plus = f(xs).data\n"),
        ("        minus = f(*xs).data\n", "        minus = f(xs).data\n")],
     "numerical_grad calls f(xs) with the list instead of f(*xs) with the Values",
     "finite-difference", ["numerical_grad"], "arguments: how f is called"),
    (L3, "numgrad_minus_step_from_shifted", "c_enter_exit_match", "bug", V, [
        ("        x.data = original - h\n", "        x.data -= h\n")],
     "numerical_grad moves x back with x.data -= h after the + h evaluation, so the second point is x, not "
     "x - h, and the estimate is half a one-sided difference",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula"),
    (L3, "numgrad_step_named_eps", "c_dict_order_deque", "bug", V, [
        ("def numerical_grad(f, xs, h=1e-6):", "def numerical_grad(f, xs, eps=1e-6):"),
        ("            x.data = saved[id(x)] + h\n", "            x.data = saved[id(x)] + eps\n"),
        ("            x.data = saved[id(x)] - h\n", "            x.data = saved[id(x)] - eps\n"),
        ("            result.append((up - down) / (2 * h))\n", "            result.append((up - down) / (2 * eps))\n")],
     "numerical_grad's step is named eps, so numerical_grad(f, xs, h=0.001) raises TypeError",
     "finite-difference", ["numerical_grad"], "arguments: the step's name"),
    (L3, "check_grad_extra_h_parameter", "c_dict_order_deque", "bug", V, [
        ("def check_grad(f, xs, tol=1e-4):", "def check_grad(f, xs, h=1e-6, tol=1e-4):"),
        ("    want = numerical_grad(f, xs)\n", "    want = numerical_grad(f, xs, h)\n")],
     "check_grad takes an extra h parameter before tol, so check_grad(f, xs, 0.05) sets the step, not the tolerance",
     "finite-difference", ["check_grad"], "arguments: tol by position"),
    (L3, "check_grad_ignores_sign", "c_enter_exit_match", "bug", V, [
        ("        if abs(analytic - numeric) > tol * max(1, abs(numeric)):\n",
         "        if abs(abs(analytic) - abs(numeric)) > tol * max(1, abs(numeric)):\n")],
     "check_grad compares the sizes of the gradients, abs(abs(analytic) - abs(numeric)), so a gradient of the "
     "wrong sign passes",
     "finite-difference", ["check_grad"], "check_grad's formula: signs"),
    (L3, "check_grad_numeric_with_example_h", "c_height_sort", "bug", V, [
        ("    numeric = numerical_grad(f, xs)\n", "    numeric = numerical_grad(f, xs, h=0.001)\n")],
     "check_grad estimates with the README example's h = 0.001 instead of numerical_grad's default, so steep "
     "functions fail a right gradient",
     "finite-difference", ["check_grad"], "check_grad's formula: the default step"),
    (L3, "check_grad_shared_scale", "c_dict_order_deque", "bug", V, [
        ("    return all(abs(g - w) <= tol * max(1, abs(w)) for g, w in zip(got, want))\n",
         "    scale = max([1.0] + [abs(w) for w in want])  # the size of the gradient\n"
         "    return all(abs(g - w) <= tol * scale for g, w in zip(got, want))\n")],
     "check_grad scales the tolerance by the largest numeric gradient of all inputs, so a small wrong gradient "
     "beside a large one passes",
     "finite-difference", ["check_grad"], "check_grad's formula: per-input scale"),
    (L3, "numgrad_half_steps", "c_dict_order_deque", "bug", V, [
        ("            x.data = saved[id(x)] + h\n", "            x.data = saved[id(x)] + h / 2  # h is the whole width\n"),
        ("            x.data = saved[id(x)] - h\n", "            x.data = saved[id(x)] - h / 2\n")],
     "numerical_grad nudges x by h / 2 each way (h taken as the whole width) but still divides by 2h, so every "
     "estimate is half the derivative",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula"),
    (L3, "eq_zero_grad_only_nonzero", "c_height_sort", "equivalent", V, [
        ("        for v in frontier:\n            v.grad = 0.0\n",
         "        for v in frontier:\n            if v.grad:\n                v.grad = 0.0\n")],
     "zero_grad writes 0.0 only where the gradient is not already 0, and still walks the whole graph",
     "none", ["zero_grad"], "equivalent: nothing observable changes"),

    # ------------------------------------------------------------------------------- lab04_xor
    (L4, "mlp_builds_layers_backwards", "c_recursive_descent", "bug", N, [
        ("    first = Layer(sizes[i], sizes[i + 1], nonlin=i != last_index)\n"
         "    return [first] + _build(sizes, last_index, i + 1)\n",
         "    rest = _build(sizes, last_index, i + 1)\n"
         "    return [Layer(sizes[i], sizes[i + 1], nonlin=i != last_index)] + rest\n")],
     "the recursive builder makes the later layers first, so the last layer's weights are drawn first and "
     "the seeded initialisation differs",
     "nn-structure", ["MLP"], "seeded initialisation: the order of the draws"),
    (L4, "weights_drawn_input_major", "c_list_subclasses", "bug", N, [
        ("    def __init__(self, nin, nonlin=True):\n        self.w = []\n        for _ in range(nin):\n"
         "            self.w.append(Value(random.uniform(-1, 1)))\n",
         "    def __init__(self, nin, nonlin=True, weights=None):\n        self.w = []\n        for i in range(nin):\n"
         "            self.w.append(Value(weights[i] if weights is not None else random.uniform(-1, 1)))\n"),
        ("        list.__init__(self, (Neuron(nin, **kwargs) for _ in range(nout)))\n",
         "        # the weight matrix, one row per input (W[j][i] connects input j to neuron i)\n"
         "        matrix = [[random.uniform(-1, 1) for _ in range(nout)] for _ in range(nin)]\n"
         "        list.__init__(self, (Neuron(nin, weights=[row[i] for row in matrix], **kwargs) for i in range(nout)))\n")],
     "a layer draws its weight matrix input by input (row j holds input j's weight in every neuron), so each "
     "neuron's weights are not the consecutive draws the contract asks for",
     "nn-structure", ["Layer"], "seeded initialisation: the order of the draws"),
    (L4, "train_xor_yields_losses", "c_slots_step_generator", "bug", N, [
        ("    return list(itertools.islice(_steps(model, lr), steps))\n",
         "    yield from itertools.islice(_steps(model, lr), steps)\n")],
     "train_xor is a generator function: it returns a generator, not a list, and trains only as it is iterated",
     "training-loop", ["train_xor"], "return types: train_xor's losses"),
    (L4, "bias_plain_float", "c_recursive_descent", "bug", N, [
        ("        self.b = Value(0.0)\n", "        self.b = 0.0\n")],
     "the bias is a plain float 0.0, not a Value: the output is still right, but parameters() holds a float "
     "that has no grad and is never trained",
     "nn-structure", ["Neuron"], "return types: parameters() holds Values"),
    (L4, "neuron_default_linear", "c_recursive_descent", "bug", N, [
        ("    def __init__(self, nin, nonlin=True):", "    def __init__(self, nin, nonlin=False):")],
     "Neuron's nonlin defaults to False, so Neuron(2) is linear (an MLP passes nonlin explicitly and is right)",
     "nn-structure", ["Neuron"], "defaults: Neuron's nonlin"),
    (L4, "train_xor_lr_before_steps", "c_slots_step_generator", "bug", N, [
        ("def train_xor(model, steps=STEPS, lr=LEARNING_RATE):", "def train_xor(model, lr=LEARNING_RATE, steps=STEPS):")],
     "train_xor's parameters are (model, lr, steps), so train_xor(model, 3, 0.1) runs with lr 3 for 0.1 steps",
     "training-loop", ["train_xor"], "arguments: steps and lr by position"),
    (L4, "train_xor_on_copy", "c_recursive_descent", "bug", N, [
        ("def train_xor(model, steps=STEPS, lr=LEARNING_RATE):\n    losses = []\n",
         "def train_xor(model, steps=STEPS, lr=LEARNING_RATE):\n    import copy\n"
         "    model = copy.deepcopy(model)  # leave the caller's model as it was\n    losses = []\n")],
     "train_xor trains a deep copy of the model and returns its losses, so the caller's model is never trained",
     "parameters-copy", ["train_xor"], "whole run: the model trained in place"),
    (L4, "private_rng", "c_list_subclasses", "bug", N, [
        ("TARGET_LOSS = 0.05\n", "TARGET_LOSS = 0.05\n_RNG = random.Random(2026)  # our own generator, for reproducible weights\n"),
        ("            self.w.append(Value(random.uniform(-1, 1)))\n", "            self.w.append(Value(_RNG.uniform(-1, 1)))\n")],
     "weights come from a module-level random.Random(2026), so random.seed(s) does not decide them and two "
     "models built after the same seed differ",
     "nn-structure", ["Neuron"], "seeded initialisation: the generator used"),
    (L4, "lazy_weights", "c_slots_step_generator", "bug", N, [
        ("        self.w = tuple(Value(random.uniform(-1, 1)) for _ in range(nin))\n",
         "        self.w = None  # drawn at the first call, when the inputs are known\n"),
        ("    def __call__(self, x):\n        act = sum(",
         "    def __call__(self, x):\n        if self.w is None:\n"
         "            self.w = tuple(Value(random.uniform(-1, 1)) for _ in x)\n        act = sum("),
        ("        yield from self.w\n", "        yield from self.w or ()\n")],
     "a neuron draws its weights at its first call (lazy initialisation), so parameters() after MLP(2, [4, 1]) "
     "holds only the biases and the draws come later, in call order",
     "nn-structure", ["Neuron"], "seeded initialisation: when the draws happen"),
    (L4, "layer_shares_one_bias", "c_list_subclasses", "bug", N, [
        ("    def __init__(self, nin, nonlin=True):", "    def __init__(self, nin, nonlin=True, bias=None):"),
        ("        self.b = Value(0.0)\n", "        self.b = bias if bias is not None else Value(0.0)\n"),
        ("        list.__init__(self, (Neuron(nin, **kwargs) for _ in range(nout)))\n",
         "        bias = Value(0.0)  # one bias for the layer\n"
         "        list.__init__(self, (Neuron(nin, bias=bias, **kwargs) for _ in range(nout)))\n")],
     "every neuron of a layer shares one bias Value, listed once per neuron in parameters(), so training moves "
     "it by the sum of their gradients, several times per step",
     "nn-structure", ["Layer"], "instance state: a parameter shared between neurons"),
    (L4, "layer_returns_tuple", "c_slots_step_generator", "bug", N, [
        ("        return outs if rest else only\n", "        return tuple(outs) if rest else only\n")],
     "a layer of several neurons returns a tuple of Values instead of a list",
     "nn-structure", ["Layer"], "return types: a layer's outputs"),
    (L4, "forward_built_once", "c_recursive_descent", "bug", N, [
        ("    losses = []\n    for _ in range(steps):\n        loss = _loss(model)\n",
         "    losses = []\n    loss = _loss(model)  # the graph of the loss, built once\n    for _ in range(steps):\n")],
     "train_xor builds the loss's graph once before the loop and backpropagates it at every step: the "
     "recorded loss never changes and the gradients mix stale forward values with new parameters",
     "training-loop", ["train_xor"], "whole run: a fresh forward pass per step"),
    (L4, "losses_record_grad", "c_list_subclasses", "bug", N, [
        ("        history.append(loss.data)\n", "        history.append(loss.grad)\n")],
     "train_xor appends loss.grad (always 1.0 after backward) instead of loss.data",
     "training-loop", ["train_xor"], "whole run: the returned values"),
    (L4, "neuron_clips_numeric_inputs", "c_recursive_descent", "bug", N, [
        ("    def __call__(self, x):\n        act = sum(",
         "    def __call__(self, x):\n"
         "        x = [max(-1.0, min(1.0, xi)) if isinstance(xi, (int, float)) else xi for xi in x]  # inputs live in [-1, 1]\n"
         "        act = sum(")],
     "a neuron clips plain-number inputs to [-1, 1] (the XOR range), so large inputs give other outputs",
     "nn-structure", ["Neuron"], "edge values: large inputs to a module"),
    (L4, "train_ignores_steps_argument", "c_slots_step_generator", "bug", N, [
        ("    return list(itertools.islice(_steps(model, lr), steps))\n",
         "    return list(itertools.islice(_steps(model, lr), STEPS))\n")],
     "train_xor always runs STEPS steps, whatever steps it is given",
     "training-loop", ["train_xor"], "arguments: steps"),
    (L4, "eq_loss_target_minus_output", "c_recursive_descent", "equivalent", N, [
        ("    return sum((model(x) - y) ** 2 for x, y", "    return sum((y - model(x)) ** 2 for x, y")],
     "the loss squares y - model(x) instead of model(x) - y: the same numbers and gradients",
     "none", ["train_xor"], "equivalent: nothing observable changes"),
]

CORRECT = {
    (L1, "c_tape_weakref"): ("style: explicit tape (Wengert list) of weak references",
                             "every operation node is recorded on a module-level tape of weakref.ref at creation; "
                             "backward() collects the nodes the output depends on and replays the tape backwards, "
                             "calling only theirs", ["+", "*"]),
    (L1, "c_subclass_registry"): ("style: __init_subclass__ operation registry",
                                  "Sum and Product are subclasses registered under '+' and '*' by "
                                  "Value.__init_subclass__; one bound _chain method per node applies forward/partials "
                                  "staticmethods; backward() is a (node, expanded) stack walk", ["+", "*"]),
    (L1, "c_height_match"): ("style: height-ordered backward, match on the label, __slots__",
                             "each node stores at birth its height (longest path to a leaf); backward() sorts the "
                             "reachable nodes by height, highest first; local derivatives chosen by a match "
                             "statement; __slots__", ["+", "*"]),
    (L2, "c_match_dispatch"): ("style: one _node method with a match statement",
                               "every operation goes through _node(op, other), whose match statement gives the number "
                               "and the local derivatives (computed at build time); -, / and neg are nodes of their "
                               "own; stable two-branch sigmoid", ["-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L2, "c_closure_factory"): ("style: method factories attached after the class",
                                "_binary and _unary factories build every operator method from (forward, derivatives) "
                                "lambdas and are assigned to Value after its definition; ** builds a _unary on the fly; "
                                "backward walks a stack of (node, iterator) frames",
                                ["-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L2, "c_edge_namedtuple"): ("style: namedtuple edges with local derivatives, __slots__",
                                "every node keeps a tuple of Edge(parent, local) namedtuples computed at build time; "
                                "one bound _chain method is each node's _backward; - and / composed as a + (-b) and "
                                "a * b**-1", ["-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L3, "c_height_sort"): ("style: nodes sorted by height, level sweep zero_grad",
                            "backward() computes each node's height (longest path to a leaf) in an iterative DFS with "
                            "an on-path set (ValueError on a cycle) and runs the nodes highest first; zero_grad "
                            "sweeps the graph level by level; numerical_grad through a try/finally helper",
                            ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L3, "c_enter_exit_match"): ("style: tagged enter/exit frames read by match, generator walk",
                                 "backward() pops ('enter', node) / ('exit', node) frames and dispatches them with a "
                                 "match statement (RuntimeError on a cycle); zero_grad over a generator of the "
                                 "graph's nodes; check_grad with zip(strict=True) and early return",
                                 ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L3, "c_dict_order_deque"): ("style: deque stack, dict insertion order as the topological order",
                                 "backward() is a DFS over a deque whose finished nodes are the keys of a dict, "
                                 "replayed with reversed(dict.values()); the open nodes' iterators double as the "
                                 "on-path set; zero_grad breadth-first; numerical_grad saves every input in a dict "
                                 "and restores them in finally", ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L4, "c_recursive_descent"): ("style: recursive descent over the layers, zip/sum generators",
                                  "the MLP builds its layers with a recursive helper and feeds x through them with a "
                                  "recursive _run(layers, x); the neuron is sum(generator, b); the loss helper divides "
                                  "by len(XOR_INPUTS)", ["Neuron", "Layer", "MLP", "train_xor"]),
    (L4, "c_list_subclasses"): ("style: Layer and MLP are list subclasses, SGD closure",
                                "Layer is a list of neurons and MLP a list of layers (identity hash kept); the neuron "
                                "adds w_i * x_i to the bias in a loop; train_xor updates through a closure made by "
                                "_sgd(params, lr)", ["Neuron", "Layer", "MLP", "train_xor"]),
    (L4, "c_slots_step_generator"): ("style: __slots__ modules, an endless step generator cut by islice",
                                     "Neuron, Layer and MLP use __slots__ and tuples; the neuron sums "
                                     "itertools.starmap products from the bias; train_xor is "
                                     "list(itertools.islice(_steps(model, lr), steps)) over an endless generator of steps",
                                     ["Neuron", "Layer", "MLP", "train_xor"]),
}

# the probes that show each variant: probe.py's last report (`probe.py --json _probes/last_run.json`)
LAST_RUN = Path(__file__).resolve().parent / "last_run.json"
SHOWN_BY: dict[tuple[str, str], str] = {}
if LAST_RUN.exists():
    for key, row in json.loads(LAST_RUN.read_text(encoding="utf-8")).items():
        lab_name, engine_name = key.split("/")
        SHOWN_BY[(lab_name, engine_name)] = ", ".join(row["differ"]) or "(matches on every probe)"


def toml_str(s: str) -> str:
    """A TOML basic string."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def note(lab: str, name: str, intent: str, description: str, pitfall: str, operations: list, base: str,
         dimension: str) -> str:
    """The NOTE.toml text of one engine."""
    lines = [f"intent = {toml_str(intent)}", f"description = {toml_str(description)}",
             f"pitfall_guess = {toml_str(pitfall)}",
             "operations = [" + ", ".join(toml_str(o) for o in operations) + "]",
             f"edited_from = {toml_str(base)}", f"dimension = {toml_str(dimension)}"]
    shown = SHOWN_BY.get((lab, name))
    if shown:
        lines.append(f"shown_by = {toml_str('probe.py: ' + shown)}")
    return "\n".join(lines) + "\n"


def write(variant: tuple) -> None:
    """Write one variant's engine folder."""
    lab, name, base, intent, filename, edits, description, pitfall, operations, dimension = variant
    src = HERE / lab / base
    dst = HERE / lab / name
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    for f in src.iterdir():
        if f.name not in ("NOTE.toml", "__pycache__"):
            shutil.copy(f, dst / f.name)
    text = (src / filename).read_text(encoding="utf-8")
    for edit in edits:
        old, new = edit[0], edit[1]
        count = edit[2] if len(edit) > 2 else 1
        found = text.count(old)
        if found != count:
            raise SystemExit(f"{lab}/{name}: {old!r} occurs {found} times in {base}, expected {count}")
        text = text.replace(old, new)
    (dst / filename).write_text(text, encoding="utf-8")
    (dst / "NOTE.toml").write_text(note(lab, name, intent, description, pitfall, operations, base, dimension),
                                   encoding="utf-8")


if __name__ == "__main__":
    for (lab, name), (dimension, description, operations) in CORRECT.items():
        (HERE / lab / name / "NOTE.toml").write_text(
            note(lab, name, "correct", description, "none", operations, "-", dimension), encoding="utf-8")
    for v in VARIANTS:
        write(v)
    print(f"{len(CORRECT)} correct engines' notes and {len(VARIANTS)} variants written")
