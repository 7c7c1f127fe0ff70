"""Write every one-edit engine of the corpus (bug, equivalent) from its correct base.

Usage: python tests/blind_contract3/_probes/make_variants.py
Each variant is (lab, name, base, intent, file, edits, description, pitfall_guess, operations,
dimension); an edit is (old, new[, count]): `old` must occur exactly `count` times (default 1) in
the base's file. The engine folder gets the edited file, the base's other files unchanged, and a
NOTE.toml. `shown_by` in NOTE.toml lists the probes of probe.py on which the engine differs from
PyTorch, read from probe.py's last report (_probes/last_run.json): run the probe first, then this
script again. (Same format as tests/blind_contract2/_probes/make_variants.py, copied from it.)
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
    (L1, "add_passes_out_data", "c_yield_from", "bug", V, [
        ("            other.grad += out.grad\n", "            other.grad += out.data\n")],
     "the sum's _backward adds out.data (the node's number) to its second operand instead of out.grad (a "
     "wrong attribute on one line; the first operand is right)",
     "wrong-local-derivative", ["+"], "operations: a wrong variable in one closure"),
    (L1, "radd_returns_number", "c_yield_from", "bug", V, [
        ("    def __radd__(self, other):\n        return Value(other) + self\n",
         "    def __radd__(self, other):\n        return other + self.data\n")],
     "number + Value returns a plain number (other + self.data), not a Value: 1 + a is a float, with no graph",
     "number-operand", ["+"], "return types: a reflected operator returns a number"),
    (L1, "recursive_generator_without_yield_from", "c_yield_from", "bug", V, [
        ("        yield from _postorder(parent, seen)\n", "        _postorder(parent, seen)\n")],
     "the recursive post-order generator calls itself without `yield from`, so the inner generators are "
     "created and never run: only the output is in the order, and only its _backward runs (graphs one "
     "operation deep are right)",
     "topological-order", ["backward"], "graph shape: depth (recursion through a generator)"),
    (L1, "backward_skips_if_seeded", "c_yield_from", "bug", V, [
        ("    def backward(self):\n        order =",
         "    def backward(self):\n        if self.grad:  # already backpropagated: nothing to do\n"
         "            return\n        order =")],
     "backward() returns at once when the output already holds a gradient, so calling it from an "
     "intermediate node that an earlier backward() reached does nothing",
     "seed-gradient", ["backward"], "graph shape: several outputs (one inside the other's graph)"),
    (L1, "mul_uses_other_grad", "c_graphlib_sorter", "bug", V, [
        ("            self.grad += other.data * out.grad\n", "            self.grad += other.grad * out.grad\n")],
     "the product's _backward passes its first operand other.grad * out.grad instead of other.data * "
     "out.grad (grad typed for data on one line)",
     "wrong-local-derivative", ["*"], "operations: a wrong attribute in one closure"),
    (L1, "rmul_uses_self_twice", "c_graphlib_sorter", "bug", V, [
        ("    def __rmul__(self, other):\n        return self * other\n",
         "    def __rmul__(self, other):\n        return self * self\n")],
     "__rmul__ returns self * self (a typo for self * other), so 2 * a computes a * a (a * 2 is right)",
     "number-operand", ["*"], "operand kind: a number on the left of *"),
    (L1, "ctor_label_named_op", "c_graphlib_sorter", "bug", V, [
        ("    def __init__(self, data, _children=(), _op=''):", "    def __init__(self, data, _children=(), op=''):"),
        ("        self._op = _op\n", "        self._op = op\n")],
     "the constructor's label parameter is named op instead of _op, so Value(x, _children=(a,), _op='+') "
     "raises TypeError (positional calls work)",
     "graph-construction", ["leaf"], "arguments: the constructor's parameter names"),
    (L1, "backward_called_at_build", "c_graphlib_sorter", "bug", V, [
        ("        out._backward = _backward\n        return out\n\n    def __mul__",
         "        out._backward = _backward()\n        return out\n\n    def __mul__")],
     "the sum stores the result of calling its closure (out._backward = _backward()), None, so backward() "
     "fails with TypeError on any graph holding a sum",
     "graph-construction", ["+"], "return values: a node's _backward"),
    (L1, "sorter_at_module_level", "c_graphlib_sorter", "bug", V, [
        ("from graphlib import TopologicalSorter\n",
         "from graphlib import TopologicalSorter\n\n_SORTER = TopologicalSorter()  # made once, reused\n"),
        ("        order = list(TopologicalSorter(self._graph()).static_order())\n",
         "        for node, parents in self._graph().items():\n            _SORTER.add(node, *parents)\n"
         "        order = list(_SORTER.static_order())\n")],
     "one TopologicalSorter is made at module level and reused, so the second backward() of a run raises "
     "ValueError (a sorter can be prepared once)",
     "shared-state", ["backward"], "instance state: module-level state (graphs one after another)"),
    (L1, "backward_frees_graph", "c_graphlib_sorter", "bug", V, [
        ("        for node in reversed(order):\n            node._backward()\n",
         "        for node in reversed(order):\n            node._backward()\n"
         "            node._prev = ()  # free the graph once it is used, as PyTorch does\n")],
     "backward() empties every node's _prev after running it (PyTorch frees its graph), so a graph built "
     "on nodes that were backpropagated before stops at them",
     "graph-construction", ["backward"], "repetition: a graph extended after a backward()"),
    (L1, "iadd_in_place", "c_mixins_stamp", "bug", V, [
        ("    def __radd__(self, other):\n",
         "    def __iadd__(self, other):  # a += b adds in place, no new node needed\n"
         "        self.data += self._lift(other).data\n        return self\n\n    def __radd__(self, other):\n")],
     "the Value defines __iadd__, which adds the other operand's data in place and returns self: total += v "
     "makes no node, so a sum built with += has no graph and its terms get no gradient",
     "graph-construction", ["+"], "operations: augmented assignment (a new Value from every operation)"),
    (L1, "stamp_default_argument", "c_mixins_stamp", "bug", V, [
        ("    def __init__(self, data, _children=(), _op=''):",
         "    def __init__(self, data, _children=(), _op='', _stamp=next(_STAMPS)):"),
        ("        self._stamp = next(_STAMPS)\n", "        self._stamp = _stamp\n")],
     "the creation stamp is a default argument (_stamp=next(_STAMPS)), evaluated once when the class is "
     "made: every node gets the same stamp, the sort by stamp changes nothing, and the nodes run in the "
     "order the walk found them, which is not topological on diamonds",
     "topological-order", ["backward"], "graph shape: diamonds at different depths (a sort key that collides)"),
    (L1, "mul_upstream_from_self_grad", "c_mixins_stamp", "bug", V, [
        ("            self.grad += other.data * out.grad\n", "            self.grad += other.data * self.grad\n")],
     "the product's _backward multiplies its first operand's local derivative by self.grad instead of "
     "out.grad (a wrong variable on one line)",
     "ignores-upstream-gradient", ["*"], "operations: a wrong variable in one closure"),
    (L1, "data_snapshot_in_init", "c_mixins_stamp", "bug", V, [
        ("        self.data = data\n", "        self.data = data\n        self._x = data  # the number, kept for the operations\n"),
        ("self.data + other.data", "self._x + other._x"),
        ("self.data * other.data", "self._x * other._x")],
     "the constructor keeps a copy of data in _x and the operations read _x, so after a.data = 3.0 the "
     "next a * b still uses the old number",
     "shared-state", ["+", "*"], "instance state: an operation reads data when it is called"),
    (L1, "backward_attached_to_operand", "c_mixins_stamp", "bug", V, [
        ("        out._backward = _backward\n        return out\n\n    def __radd__",
         "        self._backward = _backward\n        return out\n\n    def __radd__")],
     "the product attaches its closure to its first operand (self._backward = ...) instead of to the new "
     "node: the product node keeps a leaf's _backward and the operand's own _backward is replaced",
     "graph-construction", ["*"], "operations: the closure attached to the wrong node"),
    (L1, "eq_seen_marked_after_parents", "c_yield_from", "equivalent", V, [
        ("    seen.add(node)\n    for parent in node._prev:\n        yield from _postorder(parent, seen)\n    yield node\n",
         "    for parent in node._prev:\n        yield from _postorder(parent, seen)\n    seen.add(node)\n    yield node\n")],
     "the recursive walk marks a node seen after its parents instead of before: in a graph without cycles "
     "no node is reached again inside its own walk, so the order is the same",
     "none", ["backward"], "equivalent: nothing observable changes"),

    # ------------------------------------------------------------------------------- lab02_ops
    (L2, "neg_in_place", "c_descriptor_ops", "bug", V, [
        ("    __neg__ = Op(lambda x: -x, lambda x, out: (-1.0,), 'neg')\n",
         "    def __neg__(self):  # flip the sign in place: no new node needed\n        self.data = -self.data\n"
         "        return self\n")],
     "unary minus negates the Value's own data and returns it, so -a changes a and makes no node (a - b is "
     "built by its own node and stays right)",
     "graph-construction", ["neg"], "return values: a new Value from every operation (in-place mutation)"),
    (L2, "tanh_grad_tanh_of_output", "c_descriptor_ops", "bug", V, [
        ("lambda x, out: (1.0 - out * out,), 'tanh')", "lambda x, out: (1.0 - math.tanh(out) ** 2,), 'tanh')")],
     "tanh's local derivative applies tanh to the output again, 1 - tanh(out)**2, instead of 1 - out**2",
     "wrong-local-derivative", ["tanh"], "operations: a wrong variable in one derivative"),
    (L2, "descriptor_caches_instance", "c_descriptor_ops", "bug", V, [
        ("        return lambda *operand: self.build(instance, *operand)\n",
         "        if not hasattr(self, 'bound'):  # make the bound function once and reuse it\n"
         "            self.bound = lambda *operand: self.build(instance, *operand)\n        return self.bound\n")],
     "each operation's descriptor builds its bound function once and keeps it on the descriptor (class-level "
     "state), so every later a.exp(), a + b, ... operates on the first Value it was read from",
     "shared-state", ["+", "-", "*", "/", "neg", "exp", "log", "tanh", "relu", "sigmoid"],
     "instance state: a descriptor caches the first instance"),
    (L2, "pow_exponent_gradient_log", "c_descriptor_ops", "bug", V, [
        ("        return Op(lambda x: x ** k, lambda x, out: (k * x ** (k - 1),), f'**{k}').build(self)\n",
         "        exponent = Value(k)  # the exponent is a leaf too, with its own gradient\n"
         "        return Op(lambda x, n: x ** n, lambda x, n, out: (n * x ** (n - 1), out * math.log(x)),\n"
         "                  f'**{k}').build(self, exponent)\n")],
     "** turns the number exponent into a leaf and also computes its gradient, out * log(x), which raises "
     "ValueError in backward() for a base that is negative or 0 (int exponents allow both)",
     "domain-edge", ["**"], "edge values: a negative or zero base with an int exponent"),
    (L2, "div_grad_precedence_slip", "c_descriptor_ops", "bug", V, [
        ("(1.0 / y, -x / y ** 2), '/'", "(1.0 / y, -x / y * y), '/'", 2)],
     "the divisor's local derivative is typed -x / y * y (meaning y squared), which Python reads as "
     "(-x / y) * y = -x",
     "wrong-local-derivative", ["/"], "operations: operator precedence in a derivative"),
    (L2, "sigmoid_forward_precedence", "c_intenum_table", "bug", V, [
        ("        return 1.0 / (1.0 + math.exp(-x))\n", "        return 1.0 / 1.0 + math.exp(-x)\n")],
     "for x >= 0 sigmoid is typed 1.0 / 1.0 + math.exp(-x), which Python reads as 1 + e^-x (the negative "
     "branch is right)",
     "wrong-local-derivative", ["sigmoid"], "operations: operator precedence in a forward formula"),
    (L2, "sigmoid_grad_expanded", "c_intenum_table", "bug", V, [
        ("    (_sigmoid, lambda x, y: y * (1.0 - y)),\n", "    (_sigmoid, lambda x, y: y - y * y),\n")],
     "sigmoid's derivative is expanded to s - s*s, whose rounding error is large next to 1 - s for large "
     "inputs: at x = 19 the gradient (5.6e-9) is off by about 6e-9 relative, at x = 17 by 1e-9",
     "domain-edge", ["sigmoid"], "edge values: large inputs to sigmoid (cancellation in the derivative)"),
    (L2, "enum_auto_starts_at_one", "c_intenum_table", "bug", V, [
        ("from enum import IntEnum\n", "from enum import IntEnum, auto\n"),
        ("    EXP = 0\n    LOG = 1\n    TANH = 2\n    RELU = 3\n    SIGMOID = 4\n",
         "    EXP = auto()\n    LOG = auto()\n    TANH = auto()\n    RELU = auto()\n    SIGMOID = auto()\n")],
     "the Unary members are numbered with enum.auto(), which starts at 1, while the table is a list indexed "
     "from 0: exp computes a log, log a tanh, ..., and sigmoid raises IndexError",
     "wrong-local-derivative", ["exp", "log", "tanh", "relu", "sigmoid"], "operations: an off-by-one table index"),
    (L2, "div_python2_names", "c_intenum_table", "bug", V, [
        ("    def __truediv__(self, other):", "    def __div__(self, other):"),
        ("    def __rtruediv__(self, other):", "    def __rdiv__(self, other):")],
     "division is defined under Python 2's names __div__ and __rdiv__, so a / b and 2 / a raise TypeError "
     "in Python 3",
     "unsupported-operand", ["/"], "operations: the Python protocol's method names"),
    (L2, "rtruediv_grad_out_for_other", "c_intenum_table", "bug", V, [
        ("            self.grad += -other.data / self.data ** 2 * out.grad\n",
         "            self.grad += -out.data / self.data ** 2 * out.grad\n")],
     "number / Value's derivative for the divisor uses out.data where it means other.data: -(k / a) / a**2 "
     "instead of -k / a**2",
     "wrong-local-derivative", ["/"], "operand kind: a number on the left of /"),
    (L2, "neg_prev_missing_comma", "c_intenum_table", "bug", V, [
        ("        out = Value(-self.data, (self,), 'neg')\n", "        out = Value(-self.data, (self), 'neg')\n")],
     "unary minus passes (self) as its children, without the comma that makes a one-element tuple, so "
     "tuple(self) raises TypeError: -a fails",
     "graph-construction", ["neg"], "operations: a one-element tuple"),
    (L2, "sigmoid_grad_precedence", "c_singledispatch", "bug", V, [
        ("lambda x, y: y * (1.0 - y), 'sigmoid')", "lambda x, y: y * 1.0 - y, 'sigmoid')")],
     "sigmoid's derivative is typed y * 1.0 - y, which Python reads as (y * 1) - y = 0: sigmoid passes no "
     "gradient",
     "wrong-local-derivative", ["sigmoid"], "operations: operator precedence in a derivative"),
    (L2, "sigmoid_via_tanh_identity", "c_singledispatch", "bug", V, [
        ("        return self._unary(_sigmoid(self.data), ",
         "        return self._unary(0.5 * (1.0 + math.tanh(self.data / 2)), ")],
     "sigmoid is computed with the identity (1 + tanh(x/2)) / 2, which cancels for negative x: sigmoid(-30) "
     "is off by about 1e-3 relative and sigmoid(-700) is 0 instead of 1e-304",
     "domain-edge", ["sigmoid"], "edge values: very negative inputs to sigmoid (cancellation)"),
    (L2, "op_resets_operand_grad", "c_singledispatch", "bug", V, [
        ("        out = Value(data, (self,), label)\n",
         "        out = Value(data, (self,), label)\n        self.grad = 0.0  # a new operation starts from a clean gradient\n")],
     "every one-input operation (exp, log, tanh, relu, sigmoid, **) resets its input's gradient when it is "
     "built, so an input that got a gradient from an earlier backward() loses it when a new graph uses it",
     "grad-overwrite", ["exp", "log", "tanh", "relu", "sigmoid", "**"],
     "repetition: one input, graphs built one after another"),
    (L2, "pow_value_exponent_prints", "c_singledispatch", "bug", V, [
        ("            raise TypeError(f\"the exponent must be an int or a float, not {type(k).__name__}\")\n",
         "            print(f\"the exponent must be an int or a float, not {type(k).__name__}\")\n"
         "            return None\n")],
     "** prints a message for an exponent that is not an int or a float and returns None instead of "
     "raising, so a ** Value(2) goes on silently",
     "unsupported-operand", ["**"], "return types: an error raised, not printed"),
    (L2, "eq_relu_by_bool_product", "c_singledispatch", "equivalent", V, [
        ("        return self._unary(self.data if self.data > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0, 'ReLU')\n",
         "        return self._unary(self.data * (self.data > 0), lambda x, y: float(x > 0), 'ReLU')\n")],
     "relu is x * (x > 0) and its slope float(x > 0): the same numbers (-0.0 for negative floats, which "
     "equals 0)",
     "none", ["relu"], "equivalent: nothing observable changes"),

    # -------------------------------------------------------------------------- lab03_backprop
    (L3, "visited_on_push", "c_graph_helper", "bug", V, [
        ("        order, done, on_path = [], set(), set()\n        stack = [(root, False) for root in reversed(self.roots)]\n"
         "        while stack:\n            node, expanded = stack.pop()\n            if expanded:\n"
         "                on_path.discard(node)\n                done.add(node)\n                order.append(node)\n"
         "            elif node in on_path:\n"
         "                raise ValueError(f\"backward(): the graph has a cycle through {node!r}\")\n"
         "            elif node not in done:\n                on_path.add(node)\n"
         "                stack.append((node, True))\n"
         "                stack.extend((parent, False) for parent in node._prev)\n",
         "        order, seen, on_path = [], set(self.roots), set()\n        stack = [(root, False) for root in reversed(self.roots)]\n"
         "        while stack:\n            node, expanded = stack.pop()\n            if expanded:\n"
         "                on_path.discard(node)\n                order.append(node)\n                continue\n"
         "            on_path.add(node)\n            stack.append((node, True))\n"
         "            for parent in node._prev:\n                if parent in on_path:\n"
         "                    raise ValueError(f\"backward(): the graph has a cycle through {parent!r}\")\n"
         "                if parent not in seen:  # mark it when pushed, so it is pushed once\n"
         "                    seen.add(parent)\n                    stack.append((parent, False))\n")],
     "the iterative post-order marks a node visited when it is pushed, not when it is expanded: a node pushed "
     "early and reached again through a node expanded first is finished after that node, so its _backward "
     "runs before every user has passed it its gradient",
     "topological-order", ["backward"], "graph shape: diamonds at different depths"),
    (L3, "numgrad_result_default_list", "c_graph_helper", "bug", V, [
        ("def numerical_grad(f, xs, h=1e-6):\n    \"\"\"Central differences (f(x + h) - f(x - h)) / 2h, one per input.\"\"\"\n"
         "    grads = []\n",
         "def numerical_grad(f, xs, h=1e-6, grads=[]):\n"
         "    \"\"\"Central differences (f(x + h) - f(x - h)) / 2h, one per input.\"\"\"\n")],
     "numerical_grad collects its estimates in a mutable default argument (grads=[]), so every call appends "
     "to the list of the calls before it",
     "finite-difference", ["numerical_grad"], "repetition: numerical_grad called twice (a mutable default)"),
    (L3, "numgrad_reads_stale_output", "c_graph_helper", "bug", V, [
        ("    grads = []\n    for i, x in enumerate(xs):\n",
         "    grads = []\n    out = f(*xs)  # the graph, read again at the nudged inputs below\n"
         "    for i, x in enumerate(xs):\n"),
        ("        f_plus = _f_at(f, xs, i, x.data + h)\n        f_minus = _f_at(f, xs, i, x.data - h)\n",
         "        kept = x.data\n        x.data = kept + h\n        f_plus = out.data\n        x.data = kept - h\n"
         "        f_minus = out.data\n        x.data = kept\n")],
     "numerical_grad builds f(*xs) once and reads out.data after nudging each input, as if the graph "
     "recomputed itself: every estimate is 0",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: f evaluated at the nudged input"),
    (L3, "numgrad_substitutes_copies", "c_graph_helper", "bug", V, [
        ("    kept = xs[i].data\n    xs[i].data = value\n    try:\n        return f(*xs).data\n    finally:\n"
         "        xs[i].data = kept\n",
         "    args = list(xs)\n    args[i] = Value(value)  # a shifted copy: the caller's Values are never touched\n"
         "    return f(*args).data\n")],
     "numerical_grad evaluates f with a shifted copy in position i instead of nudging the input itself, so "
     "an input passed twice (f(a, a, b)) is nudged in one position only",
     "finite-difference", ["numerical_grad"], "operand kind: the same Value twice among the inputs"),
    (L3, "numgrad_divides_by_actual_step", "c_graph_helper", "bug", V, [
        ("        grads.append((f_plus - f_minus) / (2 * h))\n",
         "        grads.append((f_plus - f_minus) / ((x.data + h) - (x.data - h)))  # the step the floats took\n")],
     "numerical_grad divides by the step the floats actually took, (x + h) - (x - h), instead of 2h: at "
     "x = 1e100 that step is 0 and it raises ZeroDivisionError (the contract's estimate is 0)",
     "finite-difference", ["numerical_grad"], "edge values: numerical_grad at large inputs"),
    (L3, "numgrad_floor_division", "c_index_arrays", "bug", V, [
        ("        estimates[i] = (values[0] - values[1]) / (2 * h)\n",
         "        estimates[i] = (values[0] - values[1]) // (2 * h)\n")],
     "numerical_grad divides with // (floor division), so every estimate is rounded down to a whole number",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: integer vs float division"),
    (L3, "check_grad_scale_without_abs", "c_index_arrays", "bug", V, [
        ("        if abs(xs[i].grad - numeric[i]) > tol * max(1, abs(numeric[i])):\n",
         "        if abs(xs[i].grad - numeric[i]) > tol * max(1, numeric[i]):\n")],
     "check_grad's scale is max(1, numeric) without abs(), so a large negative gradient is judged with an "
     "absolute tolerance and a right one (d/dx e^(-20x) at -1) is rejected",
     "finite-difference", ["check_grad"], "check_grad's formula: negative gradients"),
    (L3, "zero_grad_list_only", "c_index_arrays", "bug", V, [
        ("    for node in _number_graph([nodes] if isinstance(nodes, Value) else nodes)[0]:\n",
         "    for node in _number_graph(nodes)[0]:\n")],
     "zero_grad iterates over nodes as a list, so zero_grad(a_value) raises TypeError (a Value is not "
     "iterable)",
     "missing-zero-grad", ["zero_grad"], "operand kind: zero_grad given a Value"),
    (L3, "check_grad_skips_first_input", "c_index_arrays", "bug", V, [
        ("    for i in range(len(xs)):\n        if abs", "    for i in range(1, len(xs)):\n        if abs")],
     "check_grad's loop starts at index 1, so the first input is never judged (a function of one input "
     "always passes)",
     "finite-difference", ["check_grad"], "check_grad's formula: every input (an off-by-one)"),
    (L3, "numgrad_index_of_input", "c_index_arrays", "bug", V, [
        ("    for i, x in enumerate(xs):\n        kept = x.data\n", "    for x in xs:\n        i = xs.index(x)\n        kept = x.data\n")],
     "numerical_grad finds each input's position with xs.index(x), so an input passed twice writes both "
     "estimates into its first position and the second stays 0.0",
     "finite-difference", ["numerical_grad"], "operand kind: the same Value twice among the inputs"),
    (L3, "numgrad_h_keyword_only", "c_graphlib_sorter", "bug", V, [
        ("def numerical_grad(f, xs, h=1e-6):", "def numerical_grad(f, xs, *, h=1e-6):")],
     "numerical_grad's h is keyword-only (f, xs, *, h=1e-6), so numerical_grad(f, xs, 0.001) raises TypeError",
     "finite-difference", ["numerical_grad"], "arguments: h by position"),
    (L3, "check_grad_reads_first_grad", "c_graphlib_sorter", "bug", V, [
        ("    analytic = [x.grad for x in xs]\n", "    analytic = [xs[0].grad for x in xs]\n")],
     "check_grad's list of analytic gradients reads xs[0].grad for every input (the comprehension's variable "
     "unused), so a right gradient of two inputs that differ is rejected",
     "finite-difference", ["check_grad"], "check_grad's formula: per input (a wrong variable)"),
    (L3, "numgrad_restores_first_input_value", "c_graphlib_sorter", "bug", V, [
        ("    grads = []\n    for i in range(len(xs)):\n        kept = xs[i].data\n",
         "    grads = []\n    kept = xs[0].data\n    for i in range(len(xs)):\n")],
     "numerical_grad saves the number to restore once, before the loop, from the first input, so every "
     "input is put back to the first input's number",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: every input put back"),
    (L3, "numgrad_range_off_by_one", "c_graphlib_sorter", "bug", V, [
        ("    for i in range(len(xs)):\n", "    for i in range(len(xs) - 1):\n")],
     "numerical_grad loops over range(len(xs) - 1), so the last input gets no estimate (one input: an empty list)",
     "finite-difference", ["numerical_grad"], "return values: one estimate per input (an off-by-one)"),
    (L3, "check_grad_nested_loop_pairs", "c_graphlib_sorter", "bug", V, [
        ("for a, n in zip(analytic, numeric))\n", "for a in analytic for n in numeric)\n")],
     "check_grad's all() runs over every pair of an analytic and a numeric gradient (two for clauses instead "
     "of zip), so right gradients of inputs that differ are rejected",
     "finite-difference", ["check_grad"], "check_grad's formula: per input (a nested generator)"),
    (L3, "eq_graphlib_cycle_error", "c_graphlib_sorter", "equivalent", V, [
        ("    try:\n        return list(TopologicalSorter(_graph_of(roots)).static_order())\n    except CycleError as e:\n"
         "        raise ValueError(f\"backward(): the graph has a cycle through {e.args[1][0]!r}\") from None\n",
         "    return list(TopologicalSorter(_graph_of(roots)).static_order())  # CycleError is a ValueError\n")],
     "a cycle raises graphlib's own CycleError, a subclass of ValueError whose message says 'nodes are in a "
     "cycle', instead of a ValueError of the engine's",
     "none", ["backward"], "equivalent: nothing observable changes"),

    # ------------------------------------------------------------------------------- lab04_xor
    (L4, "mlp_inserts_into_nouts", "c_module_tree", "bug", N, [
        ("        sizes = [nin] + list(nouts)\n"
         "        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1) for i in range(len(nouts))]\n",
         "        sizes = nouts\n        sizes.insert(0, nin)\n"
         "        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(sizes) - 2) for i in range(len(sizes) - 1)]\n")],
     "MLP inserts nin at the front of the caller's nouts list (sizes = nouts; sizes.insert(0, nin)), so a list "
     "of sizes used for a second model already holds nin and makes an extra layer",
     "nn-structure", ["MLP"], "instance state: the caller's list changed in place"),
    (L4, "parameters_sorted_by_name", "c_module_tree", "bug", N, [
        ("        return [p for _, p in self.named_parameters()]\n",
         "        return [p for _, p in sorted(self.named_parameters(), key=lambda item: item[0])]\n")],
     "parameters() sorts the named parameters by name, as text: right below ten, but 'p10' sorts before 'p2' "
     "and '10.' before '2.', so a neuron of 10 or more inputs or a layer of 11 or more neurons lists them out "
     "of order",
     "nn-structure", ["Neuron", "Layer", "MLP"], "module sizes: ten or more inputs or neurons (a sort key)"),
    (L4, "mlp_feeds_original_input", "c_module_tree", "bug", N, [
        ("        for layer in self.layers:\n            x = layer(x)\n        return x\n",
         "        for layer in self.layers:\n            out = layer(x)\n        return out\n")],
     "MLP's loop stores each layer's output in out but feeds every layer the original x, so the model is "
     "its last layer applied to the input (zip truncates the longer weight list)",
     "nn-structure", ["MLP"], "graph shape: layers in sequence (a wrong variable)"),
    (L4, "layer_passes_kwargs_dict", "c_module_tree", "bug", N, [
        ("Neuron(nin, **kwargs)", "Neuron(nin, kwargs)")],
     "Layer passes its kwargs dict as Neuron's nonlin (Neuron(nin, kwargs)), a non-empty dict, so "
     "Layer(4, 1, nonlin=False) makes tanh neurons and the last layer is not linear",
     "nn-structure", ["Layer", "MLP"], "arguments: keyword arguments passed on"),
    (L4, "examples_zip_consumed", "c_trainer_iterator", "bug", N, [
        ("        self.done = 0\n", "        self.done = 0\n        self.examples = zip(XOR_INPUTS, XOR_TARGETS)\n"),
        ("for x, y in zip(XOR_INPUTS, XOR_TARGETS)]", "for x, y in self.examples]")],
     "the Trainer pairs the examples once with zip() in __init__ and every step iterates that zip: the "
     "first step uses it up, and the second divides an empty sum by 0 (ZeroDivisionError)",
     "training-loop", ["train_xor"], "whole run: every step (an iterator consumed twice)"),
    (L4, "mlp_range_starts_at_one", "c_trainer_iterator", "bug", N, [
        ("        for i in range(len(nouts)):\n", "        for i in range(1, len(nouts)):\n")],
     "MLP's loop over the layers starts at 1, so the first layer is never made: MLP(2, [4, 1]) is one "
     "linear neuron of 4 weights reading 2 inputs",
     "nn-structure", ["MLP"], "module sizes: one layer per entry of nouts (an off-by-one)"),
    (L4, "update_rebinds_loop_variable", "c_trainer_iterator", "bug", N, [
        ("            p.data -= self.lr * p.grad\n", "            p -= self.lr * p.grad\n")],
     "the update is written p -= lr * p.grad, which builds a new Value and rebinds the loop variable: no "
     "parameter ever changes",
     "training-loop", ["train_xor"], "whole run: the model trained in place (augmented assignment on a Value)"),
    (L4, "trainer_extra_update", "c_trainer_iterator", "bug", N, [
        ("        if self.done >= self.steps:\n            raise StopIteration\n        loss = self.loss()\n",
         "        loss = self.loss()\n"),
        ("        self.done += 1\n        return loss.data\n",
         "        self.done += 1\n        if self.done > self.steps:\n            raise StopIteration\n        return loss.data\n")],
     "the Trainer tests its end after running a step, so train_xor runs steps + 1 updates but returns "
     "steps losses (the last update's loss is dropped; steps=0 still trains once)",
     "training-loop", ["train_xor"], "whole run: exactly steps steps (an iterator's end tested late)"),
    (L4, "loss_len_of_generator", "c_trainer_iterator", "bug", N, [
        ("        errors = [(self.model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)]\n",
         "        errors = ((self.model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS))\n")],
     "the squared errors are a generator expression, and the loss divides by len(errors): a generator has no "
     "len(), so every training step raises TypeError",
     "training-loop", ["train_xor"], "return types: a generator where a list is needed"),
    (L4, "layer_returns_map", "c_vec_matmul", "bug", N, [
        ("        outs = [n(x) for n in self.neurons]\n        return outs[0] if len(outs) == 1 else outs\n",
         "        if len(self.neurons) == 1:\n            return self.neurons[0](x)\n"
         "        return map(lambda n: n(x), self.neurons)  # lazy: computed when the next layer reads it\n")],
     "a layer of several neurons returns a lazy map object, not a list: the first neuron of the next layer "
     "uses it up, so the others see no inputs",
     "nn-structure", ["Layer"], "return types: a layer's outputs (an iterator consumed twice)"),
    (L4, "nonlin_set_on_class", "c_vec_matmul", "bug", N, [
        ("        self.nonlin = nonlin\n", "        Neuron.nonlin = nonlin\n")],
     "the neuron stores nonlin on the class (Neuron.nonlin = nonlin), so the last neuron made decides for "
     "all: after MLP(2, [4, 1]) every neuron is linear",
     "nn-structure", ["Neuron", "MLP"], "instance state: a class attribute set through the class"),
    (L4, "neuron_range_off_by_one", "c_vec_matmul", "bug", N, [
        ("for _ in range(nin))", "for _ in range(1, nin))")],
     "the neuron draws its weights over range(1, nin), one fewer than nin, so the last input is never read "
     "(zip truncates) and MLP(2, [4, 1]) has 12 parameters",
     "nn-structure", ["Neuron"], "module sizes: nin weights (an off-by-one)"),
    (L4, "dot_nested_generator", "c_vec_matmul", "bug", N, [
        ("        return sum(a * b for a, b in zip(self, other))\n", "        return sum(a * b for a in self for b in other)\n")],
     "the dot product's generator has two for clauses instead of zip, so it sums every product w_i * x_j: "
     "(sum of w) * (sum of x)",
     "nn-structure", ["Neuron"], "operations: the dot product (a nested generator)"),
    (L4, "losses_logged_every_ten", "c_vec_matmul", "bug", N, [
        ("        losses.append(loss.data)\n", "        if step % 10 == 0:  # log every tenth step\n            losses.append(loss.data)\n")],
     "train_xor records the loss only every tenth step (a logging habit), so it returns 15 losses for 150 steps",
     "training-loop", ["train_xor"], "return values: one loss per step"),
    (L4, "linear_neuron_drops_bias", "c_vec_matmul", "bug", N, [
        ("        act = self.w @ x + self.b\n        return act.tanh() if self.nonlin else act\n",
         "        return (self.w @ x + self.b).tanh() if self.nonlin else self.w @ x\n")],
     "the linear branch of the neuron's one-line conditional leaves out the bias: right at initialisation "
     "(b = 0), but the last layer's bias gets no gradient and is never trained",
     "nn-structure", ["Neuron"], "operations: a linear neuron (a conditional expression)"),
    (L4, "eq_update_over_set", "c_trainer_iterator", "equivalent", N, [
        ("        for p in self.model.parameters():\n", "        for p in set(self.model.parameters()):\n")],
     "the update loops over a set of the parameters: the order of independent updates does not matter",
     "none", ["train_xor"], "equivalent: nothing observable changes"),
]

CORRECT = {
    (L1, "c_graphlib_sorter"): ("style: graphlib.TopologicalSorter orders the graph",
                                "backward() collects {node: parents} with an explicit stack and lets "
                                "graphlib.TopologicalSorter.static_order() order it; the closures run in reverse",
                                ["+", "*"]),
    (L1, "c_yield_from"): ("style: a recursive post-order generator (yield from)",
                           "the topological order is a recursive generator that yields its parents' "
                           "post-orders with yield from, then the node; __radd__/__rmul__ wrap the number first",
                           ["+", "*"]),
    (L1, "c_mixins_stamp"): ("style: operators and backward in two mixins, creation stamps",
                             "Value inherits its operators from ArithmeticMixin and backward() from "
                             "BackpropMixin; each node is stamped from itertools.count() at creation and "
                             "backward() sorts the reachable nodes by stamp, newest first", ["+", "*"]),
    (L2, "c_singledispatch"): ("style: functools.singledispatchmethod on the operand's type",
                               "+, *, - and / are singledispatchmethods whose int/float registrations wrap the "
                               "number; one _unary builder whose closure asks a lambda for the local derivative "
                               "when it runs; -, / are nodes of their own, neg is * -1",
                               ["-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L2, "c_descriptor_ops"): ("style: every operation a descriptor object",
                               "Op(forward, derivatives, label, reflected) is a descriptor whose __get__ binds "
                               "it to the Value; every operator and function is a class attribute holding an "
                               "Op, reflected ones swap the operands; ** builds an Op on the fly",
                               ["-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L2, "c_intenum_table"): ("style: an IntEnum-indexed table, Kahn's algorithm by id()",
                              "exp, log, tanh, relu and sigmoid are members of an IntEnum that index a list of "
                              "(forward, derivative) pairs; -, / and neg are nodes of their own; backward() "
                              "counts consumers by id() and runs Kahn's algorithm",
                              ["-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L3, "c_graphlib_sorter"): ("style: graphlib.TopologicalSorter, CycleError turned into ValueError",
                                "backward() and zero_grad share a {node: parents} walk; graphlib orders it and "
                                "its CycleError is re-raised as the engine's ValueError; numerical_grad by index",
                                ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L3, "c_index_arrays"): ("style: the graph numbered with integers, a bytearray of states",
                             "the graph is numbered breadth-first into lists of parent indices; backward() is a "
                             "DFS of (index, next parent) frames over a bytearray of NEW/OPEN/DONE states; "
                             "check_grad loops over indices and returns early",
                             ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L3, "c_graph_helper"): ("style: a Graph helper class with cached_property",
                             "Graph(roots) computes its nodes and its topological order (an on-path set for "
                             "cycles) as functools.cached_property attributes; numerical_grad evaluates f "
                             "through an _f_at(f, xs, i, value) helper with try/finally",
                             ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L4, "c_module_tree"): ("style: a PyTorch-like module tree (children, named_parameters)",
                            "Module.parameters() lists the values of a recursive named_parameters() generator "
                            "over own_parameters() and children(); the neuron adds w_i * x_i to the bias in a loop",
                            ["Neuron", "Layer", "MLP", "train_xor"]),
    (L4, "c_trainer_iterator"): ("style: training as an iterator class",
                                 "train_xor is list(Trainer(model, steps, lr)), whose __next__ runs one step and "
                                 "returns its loss until steps are done; the loss is sum(errors) / len(errors)",
                                 ["Neuron", "Layer", "MLP", "train_xor"]),
    (L4, "c_vec_matmul"): ("style: the dot product as the @ operator of a list subclass",
                           "a neuron's weights are a Vec (a list subclass with __matmul__), the neuron is "
                           "self.w @ x + self.b; the layers are made from zip(sizes, sizes[1:]); the loss is "
                           "multiplied by 0.25", ["Neuron", "Layer", "MLP", "train_xor"]),
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
