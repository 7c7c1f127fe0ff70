"""Write every one-edit engine of the corpus (bug, equivalent, cosmetic) from its correct base.

Usage: python tests/blind_contract/_probes/make_variants.py
Each variant is (lab, name, base, intent, edits, description, pitfall_guess, operations, dimension);
an edit is (old, new[, count]): `old` must occur exactly `count` times (default 1) in the base's
file. The engine folder gets the edited file, the base's other files unchanged, and a NOTE.toml.
`shown_by` in NOTE.toml lists the probes of probe.py on which the engine differs from PyTorch, read
from probe.py's last report (_probes/last_run.json), so run the probe first, then this script.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

V = "value.py"
N = "nn.py"

VARIANTS = [
    # ----------------------------------------------------------------------------- lab01_graph
    ("lab01_graph", "add_number_truncated", "c_slots_dataclass", "bug", V, [
        ("else Value(other)", "else Value(int(other))")],
     "a plain number operand is wrapped as Value(int(other)), so a + 0.5 adds 0 and 2.5 * a multiplies by 2",
     "number-operand", ["+", "*"], "operand kind: a float number"),
    ("lab01_graph", "mul_wraps_int_only", "c_class_per_op", "bug", V, [
        ("    def __mul__(self, other):\n        return Product(self, _as_value(other))",
         "    def __mul__(self, other):\n        if isinstance(other, int):\n            other = Value(other)\n"
         "        return Product(self, other)")],
     "__mul__ wraps only int operands, so a * 0.5 (a float number on the right) fails with AttributeError",
     "number-operand", ["*"], "operand kind: a float number on the right"),
    ("lab01_graph", "rmul_is_radd", "c_partialmethod", "bug", V, [
        ("    __rmul__ = functools.partialmethod(_binary, forward=operator.mul, partials=_mul_partials, label='*',\n"
         "                                       reflected=True)",
         "    __rmul__ = __radd__")],
     "__rmul__ is a copy of __radd__, so 2 * a computes 2 + a (a * 2 is right)",
     "number-operand", ["*"], "operand kind: a number on the left of *"),
    ("lab01_graph", "mul_same_operand_once", "c_slots_dataclass", "bug", V, [
        ("            self.grad += other.data * out.grad\n            other.grad += self.data * out.grad",
         "            self.grad += other.data * out.grad\n            if other is not self:\n"
         "                other.grad += self.data * out.grad")],
     "the product's _backward skips the second operand when it is the same node as the first, so a * a gives a, not 2a",
     "grad-overwrite", ["*"], "operand kind: the same Value twice"),
    ("lab01_graph", "add_dedups_parents", "c_class_per_op", "bug", V, [
        ("        x, y = self._prev\n        x.grad += self.grad\n        y.grad += self.grad",
         "        for parent in set(self._prev):\n            parent.grad += self.grad")],
     "the sum passes its gradient to set(self._prev), so a + a gives a gradient of 1 instead of 2",
     "grad-overwrite", ["+"], "operand kind: the same Value twice"),
    ("lab01_graph", "mutable_default_children", "c_partialmethod", "bug", V, [
        ("def __init__(self, data, _children=(), _op=''):", "def __init__(self, data, _children=[], _op=''):"),
        ("self._prev = tuple(_children)", "self._prev = _children"),
        ("        out = Value(forward(left.data, right.data), (left, right), label)",
         "        out = Value(forward(left.data, right.data), _op=label)\n        out._prev.extend((left, right))")],
     "_children defaults to a mutable list that becomes _prev, and ops extend it: every node made without "
     "children shares one growing list of parents",
     "graph-construction", ["+", "*"], "instance state: a mutable default shared by every node"),
    ("lab01_graph", "topo_kept_at_module", "c_partialmethod", "bug", V, [
        ("class Value:\n", "_ORDER = []\n\n\nclass Value:\n"),
        ("        order = list(self._postorder())\n        self.grad = 1.0\n        for node in reversed(order):",
         "        _ORDER.extend(self._postorder())\n        self.grad = 1.0\n        for node in reversed(_ORDER):")],
     "the topological order is a module-level list that is extended, never cleared, so a later backward() "
     "runs the _backward of every earlier graph again",
     "missing-visited-set", ["backward"], "state kept between graphs: several outputs sharing a leaf"),
    ("lab01_graph", "order_by_id", "c_class_per_op", "bug", V, [
        ("        # iterative DFS; next_parent[id] is how many parents of a node have been looked at\n"
         "        order, next_parent, nodes = [], {}, [self]\n        next_parent[id(self)] = 0\n        while nodes:\n"
         "            node = nodes[-1]\n            i = next_parent[id(node)]\n            if i < len(node._prev):\n"
         "                next_parent[id(node)] = i + 1\n                parent = node._prev[i]\n"
         "                if id(parent) not in next_parent:\n                    next_parent[id(parent)] = 0\n"
         "                    nodes.append(parent)\n            else:\n                order.append(nodes.pop())\n",
         "        # every node reachable from self, oldest first: a node is made after its parents,\n"
         "        # and newer objects live at higher addresses\n"
         "        seen, nodes = {id(self): self}, [self]\n        while nodes:\n"
         "            for parent in nodes.pop()._prev:\n                if id(parent) not in seen:\n"
         "                    seen[id(parent)] = parent\n                    nodes.append(parent)\n"
         "        order = sorted(seen.values(), key=id)\n")],
     "backward() orders the nodes by id(), assuming a node made later has a larger address; after other "
     "nodes die their memory is reused and the order is wrong",
     "topological-order", ["backward"], "instance state: fresh nodes after others died"),
    ("lab01_graph", "level_by_min_depth", "c_slots_dataclass", "bug", V, [
        ("        order = []\n        done = set()\n        todo = [(self, False)]\n        while todo:\n"
         "            node, expanded = todo.pop()\n            if expanded:\n                order.append(node)\n"
         "                continue\n            if node in done:\n                continue\n            done.add(node)\n"
         "            todo.append((node, True))\n            for parent in node._prev:\n"
         "                if parent not in done:\n                    todo.append((parent, False))\n"
         "        self.grad = 1.0\n        for node in reversed(order):\n            node._backward()",
         "        level = {}\n\n        def height(v):  # steps above the leaves\n            if v not in level:\n"
         "                level[v] = 0 if not v._prev else 1 + min(height(p) for p in v._prev)\n"
         "            return level[v]\n        height(self)\n        self.grad = 1.0\n"
         "        for node in sorted(level, key=level.get, reverse=True):\n            node._backward()")],
     "backward() runs the nodes by decreasing height above the leaves, but the height is 1 + the min of the "
     "parents' heights instead of the max, which is not a topological order on uneven diamonds",
     "topological-order", ["backward"], "graph shape: diamonds whose paths have different lengths"),
    ("lab01_graph", "topo_through_set", "c_partialmethod", "bug", V, [
        ("order = list(self._postorder())", "order = list(set(self._postorder()))")],
     "backward() passes its post-order through set() to drop duplicates, which loses the order",
     "topological-order", ["backward"], "graph shape: any graph deeper than one op"),
    ("lab01_graph", "grad_starts_none", "c_slots_dataclass", "bug", V, [
        ("grad: float = field(default=0.0, init=False)", "grad: float = field(default=None, init=False)"),
        ("        self.grad = 1.0\n", "        for node in order:\n            if node.grad is None:\n"
         "                node.grad = 0.0\n        self.grad = 1.0\n")],
     "a new node's grad is None (as in PyTorch) until backward() sets it to 0.0, so Value(2).grad is None",
     "graph-construction", ["Value"], "return types: the initial grad"),
    ("lab01_graph", "early_bound_upstream", "c_partialmethod", "bug", V, [
        ("        def _backward():\n            dl, dr = partials(left.data, right.data)\n"
         "            left.grad += dl * out.grad\n            right.grad += dr * out.grad",
         "        def _backward(g=out.grad):\n            dl, dr = partials(left.data, right.data)\n"
         "            left.grad += dl * g\n            right.grad += dr * g")],
     "_backward binds out.grad as a default argument, that is when the node is made (0.0), so nothing propagates",
     "ignores-upstream-gradient", ["+", "*"], "repetition/binding: a value read at creation, not when run"),
    ("lab01_graph", "mul_rounds_result", "c_class_per_op", "bug", V, [
        ("super().__init__(x.data * y.data, (x, y), '*')", "super().__init__(round(x.data * y.data, 12), (x, y), '*')")],
     "the product rounds its data to 12 decimals to hide float noise, so tiny products (1e-300 * 3) become 0",
     "graph-construction", ["*"], "edge values: tiny operands"),
    ("lab01_graph", "radd_detached", "c_slots_dataclass", "bug", V, [
        ("    def __radd__(self, other):\n        return Value._wrap(other) + self",
         "    def __radd__(self, other):\n        return Value(other + self.data)")],
     "number + Value returns a new leaf holding the sum, cut off from the Value, so 1 + a passes no gradient to a",
     "number-operand", ["+"], "operand kind: a number on the left of +"),
    ("lab01_graph", "number_makes_leaf", "c_partialmethod", "bug", V, [
        ("        other = other if isinstance(other, Value) else Value(other)\n",
         "        if not isinstance(other, Value):\n            return Value(forward(self.data, other))\n")],
     "an operation with a plain number returns a new leaf holding the result, so a + 1, 2 * a, ... pass no gradient to a",
     "number-operand", ["+", "*"], "operand kind: a number on either side"),
    ("lab01_graph", "eq_skip_zero_grad_nodes", "c_class_per_op", "equivalent", V, [
        ("        for node in order[::-1]:\n            node._backward()",
         "        for node in order[::-1]:\n            if node.grad != 0:\n                node._backward()")],
     "backward() skips the _backward of nodes whose gradient is 0; their contributions would be 0 anyway",
     "none", ["backward"], "equivalent: nothing observable changes"),
    ("lab01_graph", "eq_grad_class_attribute", "c_partialmethod", "equivalent", V, [
        ("class Value:\n    def __init__", "class Value:\n    grad = 0.0\n\n    def __init__"),
        ("        self.grad = 0.0\n", "")],
     "grad is a class attribute 0.0 that += shadows per instance, instead of being set in __init__",
     "none", ["Value"], "equivalent: nothing observable changes"),
    ("lab01_graph", "cos_prev_named_parents", "c_partialmethod", "cosmetic", V, [
        ("_prev", "_parents", 3)],
     "the parents are kept under _parents instead of _prev; everything else is c_partialmethod; should lose "
     "only the structure checks' points", "graph-construction", ["Value"], "cosmetic: the parents' attribute name"),
    # ----------------------------------------------------------------------------- lab02_ops
    ("lab02_ops", "pow_float_exponent_truncated", "c_class_per_op", "bug", V, [
        ("return Pow(self, n)", "return Pow(self, int(n))")],
     "__pow__ converts the exponent with int(), so a ** 0.5 computes a ** 0 and a ** 2.5 computes a ** 2",
     "graph-construction", ["**"], "operand kind: a float exponent"),
    ("lab02_ops", "pow_abs_base", "c_stable_slots", "bug", V, [
        ("self._node(self.data ** n,", "self._node(abs(self.data) ** n,")],
     "__pow__ raises abs(base) to the power (to avoid complex results), so (-2) ** 3 gives 8",
     "graph-construction", ["**"], "edge values: a negative base with an int exponent"),
    ("lab02_ops", "sigmoid_grad_from_exp", "c_unary_partialmethod", "bug", V, [
        ("lambda x, y: y * (1.0 - y), 'sigmoid')",
         "lambda x, y: math.exp(-x) / (1.0 + math.exp(-x)) ** 2, 'sigmoid')")],
     "sigmoid's derivative is the textbook e^-x / (1 + e^-x)^2, read from the input, which overflows for x below "
     "about -709 (OverflowError in backward at x = -1000)",
     "input-output-confusion", ["sigmoid"], "edge values: large negative inputs (gradient)"),
    ("lab02_ops", "tanh_grad_sech", "c_class_per_op", "bug", V, [
        ("        return (1.0 - self.data ** 2,)", "        return (1.0 / math.cosh(self._prev[0].data) ** 2,)")],
     "tanh's derivative is 1 / cosh(x)^2, read from the input, which overflows for |x| above about 710 "
     "(OverflowError in backward at x = 1000)",
     "input-output-confusion", ["tanh"], "edge values: large inputs (gradient)"),
    ("lab02_ops", "relu_slope_by_division", "c_stable_slots", "bug", V, [
        ("lambda: (1.0 if x > 0 else 0.0,))", "lambda: (max(x, 0.0) / x,))")],
     "relu's slope is computed as relu(x) / x, which is right away from 0 and divides by zero at exactly 0",
     "wrong-local-derivative", ["relu"], "edge values: exactly 0"),
    ("lab02_ops", "relu_branchless_overflow", "c_unary_partialmethod", "bug", V, [
        ("lambda x: x if x > 0 else 0.0,", "lambda x: (x + abs(x)) / 2,")],
     "relu is the branchless (x + |x|) / 2, which overflows to inf for x above about 9e307",
     "graph-construction", ["relu"], "edge values: the largest finite floats"),
    ("lab02_ops", "sub_number_double_negated", "c_class_per_op", "bug", V, [
        ("    def __sub__(self, other):\n        return self + (-_as_value(other))",
         "    def __sub__(self, other):\n        if not isinstance(other, Value):\n            other = Value(-other)\n"
         "        return self + (-other)")],
     "__sub__ negates a plain number when it wraps it and then negates it again, so a - 2 computes a + 2 (a - b is right)",
     "number-operand", ["-"], "operand kind: a number on the right of -"),
    ("lab02_ops", "neg_via_rsub", "c_class_per_op", "bug", V, [
        ("    def __neg__(self):\n        return self * -1.0", "    def __neg__(self):\n        return 0 - self")],
     "-a is written 0 - a, and number - Value is written other + (-self): the two call each other until RecursionError",
     "graph-construction", ["neg", "-"], "operations built from each other"),
    ("lab02_ops", "log_cache_by_id", "c_unary_partialmethod", "bug", V, [
        ("def _leaf_backward():", "_LOGS = {}\n\n\ndef _leaf_backward():"),
        ("    log = functools.partialmethod(_unary, math.log, lambda x, y: 1.0 / x, 'log')\n",
         "    def log(self):\n        if id(self) not in _LOGS:  # log is slow: compute it once per node\n"
         "            _LOGS[id(self)] = math.log(self.data)\n        y = _LOGS[id(self)]\n"
         "        return self._unary(lambda x: y, lambda x, y: 1.0 / x, 'log')\n\n")],
     "log() caches its result per id(self) in a module dict, so a new node that reuses a dead node's address "
     "(or a node whose data changed) gets the old logarithm",
     "graph-construction", ["log"], "instance state: fresh nodes after others died"),
    ("lab02_ops", "prev_set_read_by_position", "c_class_per_op", "bug", V, [
        ("self._prev = tuple(_children)", "self._prev = set(_children)")],
     "_prev is a set (the README allows it) but each op reads its operands back from _prev by position, so "
     "operands come back in hash order and a * a has only one parent to unpack",
     "wrong-local-derivative", ["*", "-", "/", "**"], "operand kind: the same Value twice; order of operands"),
    ("lab02_ops", "pow_int_by_repeated_product", "c_stable_slots", "bug", V, [
        ("            raise TypeError(\"exponent must be an int or a float\")\n",
         "            raise TypeError(\"exponent must be an int or a float\")\n        if isinstance(n, int):\n"
         "            out = self\n            for _ in range(n - 1):\n                out = out * self\n"
         "            return out\n")],
     "an int power is built as a product of n copies of the base, which returns the base itself for n <= 1 "
     "(a ** -1 and a ** 0 give a)",
     "graph-construction", ["**", "/"], "edge values: exponents 0, 1 and negative ints"),
    ("lab02_ops", "log_via_log1p", "c_unary_partialmethod", "bug", V, [
        ("_unary, math.log, lambda x, y: 1.0 / x, 'log')", "_unary, lambda x: math.log1p(x - 1), lambda x, y: 1.0 / x, 'log')")],
     "log(x) is computed as log1p(x - 1) for accuracy, which fails (math domain error) for tiny x, where x - 1 rounds to -1",
     "graph-construction", ["log"], "edge values: tiny inputs"),
    ("lab02_ops", "rsub_negates_data_only", "c_unary_partialmethod", "bug", V, [
        ("    def __rsub__(self, other):\n        return Value._lift(other) - self",
         "    def __rsub__(self, other):\n        out = self - other\n        out.data = -out.data\n        return out")],
     "number - Value is computed as self - other with its data negated afterwards: the number is right, the "
     "gradient keeps the sign of self - other",
     "number-operand", ["-"], "operand kind: a number on the left of -"),
    ("lab02_ops", "rtruediv_inverts_data_only", "c_stable_slots", "bug", V, [
        ("    def __rtruediv__(self, other):\n        return Value._v(other) / self",
         "    def __rtruediv__(self, other):\n        out = self / other\n        out.data = 1 / out.data\n        return out")],
     "number / Value is computed as self / other with its data inverted afterwards: the number is right, the "
     "gradient is that of self / other",
     "number-operand", ["/"], "operand kind: a number on the left of /"),
    ("lab02_ops", "div_keeps_ints", "c_unary_partialmethod", "bug", V, [
        ("out = Value(self.data / other.data, (self, other), '/')",
         "both_int = isinstance(self.data, int) and isinstance(other.data, int)\n"
         "        out = Value(self.data // other.data if both_int else self.data / other.data, (self, other), '/')")],
     "division keeps int data int (floor division) when both operands hold ints, so Value(7) / Value(2) holds 3",
     "graph-construction", ["/"], "operand kind: int data"),
    ("lab02_ops", "div_rhs_from_output", "c_unary_partialmethod", "bug", V, [
        ("other.grad -= self.data / other.data / other.data * out.grad",
         "other.grad -= out.data ** 2 / self.data * out.grad  # -x/y**2 = -(x/y)**2 / x")],
     "the quotient's derivative for the divisor is written from the output, -(x/y)**2 / x, which divides by zero "
     "when the dividend is exactly 0 (0 / a, Value(0) / b)",
     "wrong-local-derivative", ["/"], "edge values: a dividend of exactly 0"),
    ("lab02_ops", "eq_relu_negative_constant", "c_class_per_op", "equivalent", V, [
        ("    def relu(self):\n        return Relu(self)",
         "    def relu(self):\n        return Relu(self) if self.data > 0 else Value(0.0)")],
     "relu of a non-positive input returns a new constant Value(0.0) with no parents; its gradient would be 0 anyway",
     "none", ["relu"], "equivalent: a new Value with the right number and gradient"),
    ("lab02_ops", "eq_pow_zero_constant", "c_stable_slots", "equivalent", V, [
        ("            raise TypeError(\"exponent must be an int or a float\")\n",
         "            raise TypeError(\"exponent must be an int or a float\")\n        if n == 0:\n"
         "            return Value(1.0)\n")],
     "a ** 0 returns a new constant Value(1.0) with no parents; its gradient would be 0 anyway",
     "none", ["**"], "equivalent: a new Value with the right number and gradient"),
    ("lab02_ops", "cos_prev_named_children", "c_unary_partialmethod", "cosmetic", V, [
        ("self._prev = tuple(_children)", "self._children = tuple(_children)"),
        ("for p in v._prev)", "for p in v._children)")],
     "the parents are kept under _children instead of _prev; everything else is c_unary_partialmethod; the "
     "lab02 README says its checks do not look at the graph's shape, so it should keep full marks or lose "
     "structure checks only", "graph-construction", ["Value"], "cosmetic: the parents' attribute name"),
    # ----------------------------------------------------------------------------- lab03_backprop
    ("lab03_backprop", "numgrad_iterates_set", "c_next_index_enum", "bug", V, [
        ("/ (2 * h) for x in xs]", "/ (2 * h) for x in set(xs)]")],
     "numerical_grad loops over set(xs) to skip repeated inputs, so the estimates come in hash order and an "
     "input passed twice gets one estimate",
     "finite-difference", ["numerical_grad"], "return lengths and order"),
    ("lab03_backprop", "numgrad_nudges_all_at_once", "c_weakref_kahn", "bug", V, [
        ("            x.data = snapshot[i] + h\n            plus = f(*xs).data\n            x.data = snapshot[i] - h\n"
         "            minus = f(*xs).data\n",
         "            for y, kept in zip(xs, snapshot):\n                y.data = kept + h\n            plus = f(*xs).data\n"
         "            for y, kept in zip(xs, snapshot):\n                y.data = kept - h\n            minus = f(*xs).data\n")],
     "numerical_grad nudges every input at once for each estimate (a directional derivative), not one input "
     "with the others unchanged",
     "finite-difference", ["numerical_grad"], "graph shape: several inputs that interact"),
    ("lab03_backprop", "numgrad_default_h_1e3", "c_generator_stack", "bug", V, [
        ("def numerical_grad(f, xs, h=1e-6):", "def numerical_grad(f, xs, h=1e-3):")],
     "numerical_grad's default step is 1e-3 instead of the contract's 1e-6",
     "finite-difference", ["numerical_grad"], "defaults: the step h"),
    ("lab03_backprop", "numgrad_restores_at_end", "c_weakref_kahn", "bug", V, [
        ("            minus = f(*xs).data\n            x.data = snapshot[i]\n", "            minus = f(*xs).data\n")],
     "numerical_grad puts the inputs back only once, at the end, so each later estimate is taken with the earlier "
     "inputs left at x - h (every x.data is exact afterwards)",
     "mid-flight-mutation", ["numerical_grad"], "graph shape: several inputs that interact"),
    ("lab03_backprop", "numgrad_rounds", "c_generator_stack", "bug", V, [
        ("grads.append((up - down) / (2 * h))", "grads.append(round((up - down) / (2 * h), 6))")],
     "numerical_grad rounds each estimate to 6 decimals to hide float noise, so small derivatives (1e-8) become 0",
     "finite-difference", ["numerical_grad"], "edge values: tiny derivatives"),
    ("lab03_backprop", "numgrad_returns_tuple", "c_weakref_kahn", "bug", V, [
        ("            x.data = kept\n    return result", "            x.data = kept\n    return tuple(result)")],
     "numerical_grad returns a tuple, not the list the contract asks for",
     "finite-difference", ["numerical_grad"], "return types"),
    ("lab03_backprop", "check_grad_ignores_tol", "c_next_index_enum", "bug", V, [
        ("return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in pairs)",
         "return all(abs(a - n) <= 1e-4 * max(1, abs(n)) for a, n in pairs)")],
     "check_grad compares with the default tolerance 1e-4 whatever tol it is given",
     "finite-difference", ["check_grad"], "arguments: a tol other than the default"),
    ("lab03_backprop", "check_grad_pure_relative", "c_generator_stack", "bug", V, [
        ("if abs(a - n) > tol * max(1, abs(n)):", "if abs(a - n) > tol * abs(n):")],
     "check_grad's tolerance is tol * |numeric| without the floor of 1, so a right gradient near 0 (x**3 at 0) is rejected",
     "finite-difference", ["check_grad"], "edge values: a derivative of 0"),
    ("lab03_backprop", "check_grad_zeroes_after_backward", "c_weakref_kahn", "bug", V, [
        ("    zero_grad(out)\n    out.backward()\n    got", "    out.backward()\n    zero_grad(out)\n    got")],
     "check_grad calls zero_grad after backward() instead of before, so it compares zeros with the numeric gradient",
     "missing-zero-grad", ["check_grad"], "repetition: the order of zero_grad and backward"),
    ("lab03_backprop", "check_grad_returns_list", "c_next_index_enum", "bug", V, [
        ("return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in pairs)",
         "return [abs(a - n) <= tol * max(1, abs(n)) for a, n in pairs]")],
     "check_grad returns one bool per input (a list, always truthy) instead of a single bool",
     "finite-difference", ["check_grad"], "return types"),
    ("lab03_backprop", "topo_cached_on_output", "c_next_index_enum", "bug", V, [
        ("    def backward(self):\n        colour = {self: Colour.GREY}",
         "    def backward(self):\n        if '_order' in self.__dict__:  # the graph below self was sorted already\n"
         "            self.grad = 1.0\n            for node in reversed(self._order):\n                node._backward()\n"
         "            return\n        colour = {self: Colour.GREY}"),
        ("        self.grad = 1.0\n        for node in reversed(order):\n            node._backward()\n\n\ndef zero_grad",
         "        self._order = order\n        self.grad = 1.0\n        for node in reversed(order):\n            node._backward()\n\n\ndef zero_grad")],
     "backward() memoizes the topological order on the output node, so after _prev is edited (a cycle made by "
     "hand) a second backward() uses the old order and raises nothing",
     "cycle-detection", ["backward"], "repetition: a second backward after the graph changed"),
    ("lab03_backprop", "output_backward_called_twice", "c_generator_stack", "bug", V, [
        ("        self.grad = 1.0\n        for v in reversed(order):",
         "        self.grad = 1.0\n        self._backward()\n        for v in reversed(order):")],
     "backward() calls the output's _backward once by hand and again in the loop, so its parents get two contributions",
     "missing-visited-set", ["backward"], "repetition: a _backward run twice"),
    ("lab03_backprop", "backward_resets_intermediates", "c_next_index_enum", "bug", V, [
        ("        self.grad = 1.0\n        for node in reversed(order):\n            node._backward()\n\n\ndef zero_grad",
         "        for node in order:  # like PyTorch: only leaves keep their gradient between passes\n"
         "            if node._prev:\n                node.grad = 0.0\n"
         "        self.grad = 1.0\n        for node in reversed(order):\n            node._backward()\n\n\ndef zero_grad")],
     "backward() resets the gradients of the intermediate nodes before it starts (PyTorch's behaviour), so a "
     "second call adds exactly the first call's gradients to the leaves instead of what the contract says",
     "grad-overwrite", ["backward"], "repetition: a second backward on a deep graph"),
    ("lab03_backprop", "cycle_raises_bare_exception", "c_generator_stack", "bug", V, [
        ('raise ValueError("the graph has a cycle")', 'raise Exception("the graph has a cycle")', 2)],
     "a cycle raises a bare Exception (with 'cycle' in the message) instead of ValueError or RuntimeError",
     "cycle-detection", ["backward"], "return types: the exception's class"),
    ("lab03_backprop", "cycle_message_without_word", "c_next_index_enum", "bug", V, [
        ('raise RuntimeError(f"cycle: {parent!r} is its own ancestor")',
         'raise RuntimeError(f"{parent!r} is its own ancestor: not a DAG")')],
     "a cycle raises RuntimeError whose message does not contain the word 'cycle'",
     "cycle-detection", ["backward"], "return types: the exception's message"),
    ("lab03_backprop", "zero_grad_skips_leaves", "c_weakref_kahn", "bug", V, [
        ("        v = todo.pop()\n        v.grad = 0.0\n", "        v = todo.pop()\n        if v._prev:  # leaves are inputs, not ours to reset\n            v.grad = 0.0\n")],
     "zero_grad resets the intermediate nodes and the output but not the leaves",
     "missing-zero-grad", ["zero_grad"], "zero_grad: which nodes it reaches"),
    ("lab03_backprop", "eq_numgrad_minus_first", "c_generator_stack", "equivalent", V, [
        ("        with _nudged(x, h):\n            up = f(*xs).data\n        with _nudged(x, -h):\n            down = f(*xs).data\n",
         "        with _nudged(x, -h):\n            down = f(*xs).data\n        with _nudged(x, h):\n            up = f(*xs).data\n")],
     "numerical_grad evaluates f at x - h before x + h; the estimate is the same number",
     "none", ["numerical_grad"], "equivalent: nothing observable changes"),
    ("lab03_backprop", "cos_op_renamed", "c_next_index_enum", "cosmetic", V, [
        ("self._op = _op", "self._label = _op")],
     "the op label is kept under _label instead of _op; everything else is c_next_index_enum; should lose only "
     "the structure checks' points", "graph-construction", ["Value"], "cosmetic: the label's attribute name"),
    # ----------------------------------------------------------------------------- lab04_xor
    ("lab04_xor", "weights_list_on_class", "c_reduce_chain", "bug", N, [
        ("class Neuron(Module):\n    def __init__(self, nin, nonlin=True):\n        self.w = []\n",
         "class Neuron(Module):\n    w = []\n\n    def __init__(self, nin, nonlin=True):\n")],
     "the weights list is a class attribute that every Neuron appends to, so all neurons share every weight drawn so far",
     "nn-structure", ["Neuron"], "instance state: a class-level list shared by every neuron"),
    ("lab04_xor", "parameters_returns_iterator", "c_reduce_chain", "bug", N, [
        ("        return list(itertools.chain.from_iterable(layer.parameters() for layer in self.layers))",
         "        return itertools.chain.from_iterable(layer.parameters() for layer in self.layers)")],
     "MLP.parameters() returns an itertools.chain iterator, not a list: it has no len(), and train_xor's saved "
     "parameters are used up by the first update",
     "parameters-copy", ["MLP.parameters"], "return types: parameters()"),
    ("lab04_xor", "parameters_through_set", "c_operator_map", "bug", N, [
        ("            params.extend(layer.parameters())\n        return params",
         "            params.extend(layer.parameters())\n        return list(set(params))")],
     "MLP.parameters() passes the list through set() to drop duplicates, so the order is lost",
     "nn-structure", ["MLP.parameters"], "return order: parameters()"),
    ("lab04_xor", "uniform_bounds_swapped", "c_dataclass_modules", "bug", N, [
        ("random.uniform(-1, 1)", "random.uniform(1, -1)")],
     "weights are drawn with random.uniform(1, -1), the same range but every weight negated after random.seed",
     "nn-structure", ["Neuron"], "seeded initialisation"),
    ("lab04_xor", "loss_divided_by_input_len", "c_reduce_chain", "bug", N, [
        ("    return total / 4", "    return total / len(x)")],
     "the loss is divided by len(x), the leftover loop variable (an input of length 2), instead of the number of examples",
     "training-loop", ["train_xor"], "whole run: the loss formula"),
    ("lab04_xor", "loss_recorded_after_update", "c_dataclass_modules", "bug", N, [
        ("        history.append(loss.data)",
         "        history.append(sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)).data / 4)")],
     "train_xor records the loss of the model after each update instead of the loss of the step",
     "training-loop", ["train_xor"], "whole run: which loss is returned"),
    ("lab04_xor", "linear_only_if_single_output", "c_operator_map", "bug", N, [
        ("nonlin=k + 1 < len(nouts)", "nonlin=n_out != 1")],
     "a layer is made linear when it has one output instead of when it is the last: MLP(2, [4, 1]) is right, "
     "a last layer of 2 outputs keeps tanh",
     "nn-structure", ["MLP"], "graph shape: several outputs"),
    ("lab04_xor", "zero_grad_sets_none", "c_dataclass_modules", "bug", N, [
        ("            p.grad = 0.0", "            p.grad = None")],
     "zero_grad sets every grad to None (PyTorch's set_to_none), so the next backward() fails adding to None",
     "missing-zero-grad", ["zero_grad"], "return types: the reset gradient"),
    ("lab04_xor", "lr_decays", "c_reduce_chain", "bug", N, [
        ("        _sgd(params, lr)\n", "        _sgd(params, lr)\n        lr *= 0.99  # smaller steps as we get closer\n")],
     "train_xor shrinks the learning rate by 1% after each step instead of using lr for every update",
     "training-loop", ["train_xor"], "whole run: the update rule at later steps"),
    ("lab04_xor", "one_step_too_many", "c_operator_map", "bug", N, [
        ("while step < steps:", "while step <= steps:")],
     "the loop condition is step <= steps, so train_xor runs steps + 1 steps and returns steps + 1 losses",
     "training-loop", ["train_xor"], "whole run: the number of losses"),
    ("lab04_xor", "losses_rounded", "c_dataclass_modules", "bug", N, [
        ("        history.append(loss.data)", "        history.append(round(loss.data, 6))")],
     "train_xor returns each loss rounded to 6 decimals (for printing), not the loss itself",
     "training-loop", ["train_xor"], "whole run: the returned values"),
    ("lab04_xor", "train_reseeds_random", "c_reduce_chain", "bug", N, [
        ("    losses = []\n    params = model.parameters()\n",
         "    random.seed(0)  # reproducible runs\n    losses = []\n    params = model.parameters()\n")],
     "train_xor calls random.seed(0) for reproducibility, which changes the generator's state (no number is drawn)",
     "training-loop", ["train_xor"], "whole run: random's state after training"),
    ("lab04_xor", "update_from_initial_data", "c_operator_map", "bug", N, [
        ("    losses = []\n    step = 0\n", "    losses = []\n    start = [p.data for p in model.parameters()]\n    step = 0\n"),
        ("        for p in model.parameters():\n            p.data -= lr * p.grad\n",
         "        for p, p0 in zip(model.parameters(), start):\n            p.data = p0 - lr * p.grad\n")],
     "the update starts from a snapshot of the parameters taken before training, p.data = p0 - lr * p.grad, "
     "so each step undoes the previous ones",
     "training-loop", ["train_xor"], "whole run: the update at later steps"),
    ("lab04_xor", "bias_added_twice", "c_dataclass_modules", "bug", N, [
        ("            act = act + wi * xi\n", "            act = act + wi * xi\n        act = act + self.b\n")],
     "the neuron starts its sum at the bias and adds the bias again after the loop; right while b is 0 "
     "(at initialisation), the bias's gradient is doubled",
     "nn-structure", ["Neuron"], "whole run: right at step 0, wrong after"),
    ("lab04_xor", "loop_tested_at_bottom", "c_reduce_chain", "bug", N, [
        ("    for _ in range(steps):\n        loss = _mse(model)", "    while True:\n        loss = _mse(model)"),
        ("        losses.append(float(loss.data))\n    return losses",
         "        losses.append(float(loss.data))\n        if len(losses) >= steps:\n            break\n    return losses")],
     "the loop tests its end at the bottom, so train_xor(model, steps=0) still runs one step and returns one loss",
     "training-loop", ["train_xor"], "edge values: steps = 0"),
    ("lab04_xor", "parameters_bias_first", "c_dataclass_modules", "bug", N, [
        ("return [*self.w, self.b]", "return [self.b, *self.w]")],
     "Neuron.parameters() returns the bias first, then the weights, instead of the weights then the bias",
     "nn-structure", ["Neuron.parameters"], "return order: parameters()"),
    ("lab04_xor", "eq_random_scaled", "c_operator_map", "equivalent", N, [
        ("Value(random.uniform(-1, 1))", "Value(random.random() * 2 - 1)")],
     "weights are drawn as random.random() * 2 - 1, the very number random.uniform(-1, 1) returns",
     "none", ["Neuron"], "equivalent: nothing observable changes"),
]

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
    lines = [f"intent = {toml_str(intent)}", f"description = {toml_str(description)}",
             f"pitfall_guess = {toml_str(pitfall)}",
             "operations = [" + ", ".join(toml_str(o) for o in operations) + "]",
             f"edited_from = {toml_str(base)}", f"dimension = {toml_str(dimension)}"]
    shown = SHOWN_BY.get((lab, name))
    if shown:
        lines.append(f"shown_by = {toml_str('probe.py: ' + shown)}")
    (dst / "NOTE.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    for v in VARIANTS:
        write(v)
    print(f"{len(VARIANTS)} variants written")
