"""Write every one-edit engine of the corpus (bug, equivalent) from its correct base.

Usage: python tests/blind_contract4/_probes/make_variants.py
Each variant is (lab, name, base, intent, file, edits, description, pitfall_guess, operations,
dimension); an edit is (old, new[, count]): `old` must occur exactly `count` times (default 1) in
the base's file. The engine folder gets the edited file, the base's other files unchanged, and a
NOTE.toml. `shown_by` in NOTE.toml lists the probes of probe.py on which the engine differs from
PyTorch, read from probe.py's last report (_probes/last_run.json): run the probe first, then this
script again. (Same format as tests/blind_contract3/_probes/make_variants.py, copied from it.)
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
    (L1, "mul_square_special_case", "c_iter_frames", "bug", V, [
        ("        def _backward():\n            self.grad += other.data * out.grad\n",
         "        def _backward():\n            if self is other:  # a * a: the derivative of a square is 2a\n"
         "                self.grad += 2 * self.data * out.grad\n            self.grad += other.data * out.grad\n")],
     "the product special-cases a * a with the derivative 2a but falls through to the general rule too, so "
     "the same Value twice in a product gets 4a instead of 2a (a special case that does not return)",
     "grad-overwrite", ["*"], "operand kind: the same Value twice (a special case that falls through)"),
    (L1, "lazy_product_data", "c_iter_frames", "bug", V, [
        ("    def __repr__(self):\n",
         "    @property\n    def data(self):\n        return self._compute() if self._compute else self._data\n\n"
         "    @data.setter\n    def data(self, value):\n        self._data = value\n        self._compute = None\n\n"
         "    def __repr__(self):\n"),
        ("        out = Value(self.data * other.data, (self, other), '*')\n",
         "        out = Value(self.data * other.data, (self, other), '*')\n"
         "        out._compute = lambda: self.data * other.data  # always up to date\n")],
     "a product's data is a property that multiplies its operands' data again on every read, so after "
     "a.data = 3.0 a product built before holds the new number too (an operation's result is not fixed "
     "when it is called)",
     "shared-state", ["*"], "instance state: an operation reads data when it is called (a lazy result)"),
    (L1, "reverse_slice_drops_output", "c_iter_frames", "bug", V, [
        ("        for node in reversed(order):\n", "        for node in order[-2::-1]:  # the output is seeded already\n")],
     "backward() walks the order with the slice order[-2::-1], meant to skip the output because its "
     "gradient is seeded, so the output's _backward never runs and nothing reaches the rest of the graph",
     "seed-gradient", ["backward"], "graph shape: the output's own step (an off-by-one slice)"),
    (L1, "frame_popped_before_parents", "c_iter_frames", "bug", V, [
        ("            node, parents = frames[-1]\n", "            node, parents = frames.pop()\n"),
        ("            else:\n                frames.pop()\n                order.append(node)\n",
         "            else:\n                order.append(node)\n")],
     "the walk pops a node's frame before looking at its parents, so a node with a parent still to visit "
     "is dropped and never joins the order: only nodes whose parents were all seen run their _backward",
     "topological-order", ["backward"], "graph shape: depth (an explicit stack that loses frames)"),
    (L1, "frame_loop_missing_break", "c_iter_frames", "bug", V, [
        ("                    frames.append((parent, iter(parent._prev)))\n                    break\n",
         "                    frames.append((parent, iter(parent._prev)))\n")],
     "the loop over a frame's parents has no break after pushing a parent, so all unvisited parents are "
     "pushed at once and the for-else then pops the top frame (the last parent pushed) while appending the "
     "current node: frames and order go out of step, some nodes are finished twice or before their parents "
     "(a * b + a gives a.grad 8 and b.grad 4 instead of 4 and 2)",
     "topological-order", ["backward"], "graph shape: two or more parents (a for-else without break)"),
    (L1, "seed_on_first_of_order", "c_iter_frames", "bug", V, [
        ("        order = self._topological_order()\n        self.grad = 1.0\n",
         "        order = self._topological_order()\n        order[0].grad = 1.0  # the output\n")],
     "backward() seeds order[0], taken for the output, but the post-order ends with the output and starts "
     "with a leaf: a leaf gets the 1.0 and the output keeps 0, so nothing flows (a leaf output is right)",
     "seed-gradient", ["backward"], "graph shape: which end of the order is the output"),
    (L1, "mul_returns_before_attaching", "c_iter_frames", "bug", V, [
        ("            other.grad += self.data * out.grad\n        out._backward = _backward\n        return out\n",
         "            other.grad += self.data * out.grad\n        return out\n        out._backward = _backward\n")],
     "the product returns its node one line before attaching the closure (out._backward = _backward comes "
     "after return and never runs): a product passes no gradient to its operands",
     "graph-construction", ["*"], "operations: a statement after return (unreachable code)"),
    (L1, "eq_topo_skips_leaves", "c_topo_visitor", "equivalent", V, [
        ("        self.nodes.append(node)\n", "        if node._prev:  # a leaf has nothing to pass on\n            self.nodes.append(node)\n")],
     "the topological order leaves out the leaves, whose _backward does nothing; the seed is set before "
     "the loop, so a leaf output still gets grad 1.0",
     "none", ["backward"], "equivalent: nothing observable changes"),
    (L1, "ctor_params_swapped", "c_topo_visitor", "bug", V, [
        ("    def __init__(self, data, _children=(), _op=''):", "    def __init__(self, data, _op='', _children=()):"),
        ("(self, other), '+')", "'+', (self, other))"),
        ("(self, other), '*')", "'*', (self, other))")],
     "the constructor takes the label before the parents (data, _op='', _children=()), and the engine's own "
     "calls match it, so Value(3.0, (a,), 'x') stores 'x' as the parents and (a,) as the label",
     "graph-construction", ["leaf"], "arguments: the constructor's parameter order"),
    (L1, "append_indented_in_loop", "c_topo_visitor", "bug", V, [
        ("        for parent in node._prev:\n            self.visit(parent)\n        self.nodes.append(node)\n",
         "        for parent in node._prev:\n            self.visit(parent)\n            self.nodes.append(node)\n")],
     "the line that appends a node to the order is indented into the loop over its parents: a node is "
     "appended once per parent (a product or sum twice) and leaves never, so every node with two parents "
     "runs its _backward twice",
     "missing-visited-set", ["backward"], "graph shape: a node's step run once (an indentation slip)"),
    (L1, "radd_unbound_with_number_first", "c_topo_visitor", "bug", V, [
        ("        return Value.lift(other).__add__(self)\n", "        return Value.__add__(other, self)\n")],
     "number + Value calls the unbound Value.__add__(other, self) with the number as self, so 1 + a raises "
     "AttributeError (an int has no data)",
     "number-operand", ["+"], "operand kind: a number on the left of + (an unbound method call)"),
    (L1, "operand_copied_into_leaf", "c_topo_visitor", "bug", V, [
        ("        return x if isinstance(x, cls) else cls(x)\n",
         "        return cls(x.data) if isinstance(x, cls) else cls(x)  # a clean operand\n")],
     "lift() turns every operand into a new leaf, copying a Value's number, so the product and the sum "
     "are built on copies of their right operand: the right operand never gets a gradient",
     "graph-construction", ["+", "*"], "graph shape: the operands themselves in the graph (a copy)"),
    (L1, "reverse_returns_none", "c_ops_installed", "bug", V, [
        ("        for node in order:\n            node._backward()\n",
         "        order = list(order)\n        for node in order.reverse():\n            node._backward()\n")],
     "backward() iterates over order.reverse(), which reverses the list in place and returns None, so "
     "every backward() raises TypeError",
     "topological-order", ["backward"], "return values: an in-place list method used as a value"),
    (L1, "finish_marker_pushed_last", "c_ops_installed", "bug", V, [
        ("            stack.append((node, True))\n            for p in node._prev:\n                if p not in done:\n"
         "                    stack.append((p, False))\n",
         "            for p in node._prev:\n                if p not in done:\n                    stack.append((p, False))\n"
         "            stack.append((node, True))\n")],
     "the marker that finishes a node is pushed after its parents, so it is popped first: every node is "
     "finished before its parents and the order runs the leaves' side first",
     "topological-order", ["backward"], "graph shape: depth (an explicit stack pushed in the wrong order)"),
    (L1, "number_leaf_gets_no_grad", "c_ops_installed", "bug", V, [
        ("def add(a, b):\n    a, b = _wrap(a), _wrap(b)\n    out = Value(a.data + b.data, (a, b), '+')\n\n"
         "    def _backward():\n        a.grad += out.grad\n        b.grad += out.grad\n",
         "def add(a, b):\n    numbers = (isinstance(a, Value), isinstance(b, Value))\n    a, b = _wrap(a), _wrap(b)\n"
         "    out = Value(a.data + b.data, (a, b), '+')\n\n    def _backward():\n"
         "        if numbers[0]:  # a number needs no gradient\n            a.grad += out.grad\n"
         "        if numbers[1]:\n            b.grad += out.grad\n"),
        ("def mul(a, b):\n    a, b = _wrap(a), _wrap(b)\n    out = Value(a.data * b.data, (a, b), '*')\n\n"
         "    def _backward():\n        a.grad += b.data * out.grad\n        b.grad += a.data * out.grad\n",
         "def mul(a, b):\n    numbers = (isinstance(a, Value), isinstance(b, Value))\n    a, b = _wrap(a), _wrap(b)\n"
         "    out = Value(a.data * b.data, (a, b), '*')\n\n    def _backward():\n"
         "        if numbers[0]:  # a number needs no gradient\n            a.grad += b.data * out.grad\n"
         "        if numbers[1]:\n            b.grad += a.data * out.grad\n")],
     "the leaf made from a plain-number operand is skipped by the closures (a number needs no gradient), so "
     "it stays at grad 0.0 although it is a node of the graph",
     "number-operand", ["+", "*"], "operand kind: a number's leaf is a node like any other"),
    (L1, "add_notimplemented_for_numbers", "c_ops_installed", "bug", V, [
        ("def add(a, b):\n    a, b = _wrap(a), _wrap(b)\n",
         "def add(a, b):\n    if not isinstance(b, Value):  # let Python try __radd__\n        return NotImplemented\n"
         "    a, b = _wrap(a), _wrap(b)\n")],
     "the sum returns NotImplemented when its right operand is a number, expecting Python to fall back to "
     "__radd__; a + 1 raises TypeError (and 1 + a, which reaches add(1, a), works)",
     "number-operand", ["+"], "operand kind: a number on the right of + (NotImplemented)"),

    # ------------------------------------------------------------------------------- lab02_ops
    (L2, "rtruediv_locals_misordered", "c_eager_locals", "bug", V, [
        ("        return Value._node(x / y, (other, self), (1 / y, -x / (y * y)), '/')\n",
         "        return Value._node(x / y, (self, other), (1 / y, -x / (y * y)), '/')\n")],
     "number / Value lists its parents as (self, other), copied from __truediv__, while its derivatives are "
     "listed for (other, self): in k / a the Value a gets 1/a and the number's leaf gets -k/a**2",
     "wrong-local-derivative", ["/"], "operand kind: a number on the left of / (derivatives paired with the wrong parents)"),
    (L2, "log_helper_args_swapped", "c_eager_locals", "bug", V, [
        ("        return Value._node(math.log(x), (self,), (1 / x,), 'log')\n",
         "        return Value._node(math.log(x), (1 / x,), (self,), 'log')\n")],
     "log calls the node helper with its parents and its derivatives in swapped positions, so the log "
     "node's _prev holds a float and backward() fails on any graph holding a log",
     "graph-construction", ["log"], "arguments: a helper's positional arguments swapped at one call"),
    (L2, "sigmoid_data_is_value", "c_eager_locals", "bug", V, [
        ("            s = 1 / (1 + math.exp(-x))\n", "            s = 1 / (1 + (-self).exp())  # the engine's own exp\n")],
     "for x >= 0 sigmoid computes its number with the engine's own operations, 1 / (1 + (-self).exp()), "
     "which is a Value: the node's data (and its derivative) is a Value, not a float",
     "wrong-local-derivative", ["sigmoid"], "return types: data holds a number, not a Value"),
    (L2, "exp_declared_classmethod", "c_eager_locals", "bug", V, [
        ("    def exp(self):\n", "    @classmethod\n    def exp(self):\n")],
     "exp is decorated with @classmethod (a decorator slip), so a.exp() receives the class as self and "
     "raises AttributeError (type object 'Value' has no attribute 'data')",
     "graph-construction", ["exp"], "operations: a method declared with the wrong decorator"),
    (L2, "decorator_wraps_values_too", "c_decorated_binary", "bug", V, [
        ("        if not isinstance(other, Value):\n            other = Value(other)\n",
         "        other = Value(other)  # always a fresh operand\n")],
     "the decorator wraps every right operand in a new Value, a Value too, so a Value operand becomes a "
     "Value whose data is a Value: every binary operation between two Values computes garbage or fails",
     "number-operand", ["+", "*", "-", "/"], "operand kind: a Value operand (a wrapper applied unconditionally)"),
    (L2, "log_closure_named_backward", "c_decorated_binary", "bug", V, [
        ("        out._backward = _backward\n        return out\n\n    def tanh",
         "        out.backward = _backward\n        return out\n\n    def tanh")],
     "log stores its closure as out.backward (no underscore), which hides the node's backward() method and "
     "leaves its _backward a no-op: log passes no gradient, and log(a).backward() seeds nothing",
     "ignores-upstream-gradient", ["log"], "operations: the closure stored under the method's name"),
    (L2, "helper_missing_staticmethod", "c_decorated_binary", "bug", V, [
        ("    @staticmethod\n    def _stable_sigmoid(x):\n", "    def _stable_sigmoid(x):\n")],
     "the sigmoid helper inside the class lost its @staticmethod, so self._stable_sigmoid(self.data) passes "
     "two arguments and every sigmoid raises TypeError",
     "wrong-local-derivative", ["sigmoid"], "arguments: a method called through self without @staticmethod"),
    (L2, "relu_in_place_on_input", "c_decorated_binary", "bug", V, [
        ("        out = Value(self.data if self.data > 0 else 0.0, (self,), 'relu')\n",
         "        self.data = max(self.data, 0.0)  # in place, like torch.relu_\n        out = Value(self.data, (self,), 'relu')\n")],
     "relu clamps its input's data in place (like torch.relu_) and builds the node from it: the output and "
     "the slope are right, but a negative input now holds 0 and every later use of it is wrong",
     "shared-state", ["relu"], "instance state: an operation does not change its operand"),
    (L2, "relu_declared_property", "c_decorated_binary", "bug", V, [
        ("    def relu(self):\n", "    @property\n    def relu(self):\n")],
     "relu is decorated with @property, so a.relu is already the node and a.relu() raises TypeError ('Value' "
     "object is not callable)",
     "graph-construction", ["relu"], "operations: a method declared as a property"),
    (L2, "neg_decorated_binary_lifter", "c_decorated_binary", "bug", V, [
        ("    def __neg__(self):\n", "    @lifts_number\n    def __neg__(self):\n")],
     "unary minus is decorated with the binary operators' @lifts_number too (for consistency), whose wrapper "
     "needs a second operand: -a raises TypeError (a - b, its own node, stays right)",
     "unsupported-operand", ["neg"], "operations: a decorator whose signature does not fit the method"),
    (L2, "rsub_calls_number_dunder", "c_decorated_binary", "bug", V, [
        ("    @lifts_number\n    def __rsub__(self, other):\n        return other - self\n",
         "    def __rsub__(self, other):\n        return other.__sub__(self)  # let the number subtract\n")],
     "number - Value delegates to the number's own method, other.__sub__(self), which returns NotImplemented "
     "instead of raising: 2 - a silently evaluates to NotImplemented, not a Value",
     "number-operand", ["-"], "operand kind: a number on the left of - (a dunder called directly)"),
    (L2, "eq_sub_minus_equals", "c_decorated_binary", "equivalent", V, [
        ("            other.grad += -out.grad\n", "            other.grad -= out.grad\n")],
     "the difference's closure subtracts the gradient from its second operand (-=) instead of adding its "
     "negative: x - g and x + (-g) are the same float",
     "none", ["-"], "equivalent: nothing observable changes"),
    (L2, "module_helper_shadows_math", "c_getattr_unary", "bug", V, [
        ("            node._backward()\n",
         "            node._backward()\n\n\n# shortcuts: exp(a) for a.exp(), and so on\n"
         "def exp(v):\n    return v.exp()\n\n\ndef tanh(v):\n    return v.tanh()\n")],
     "shortcut functions exp(v) and tanh(v) are added at the end of the module, where they replace the names "
     "imported from math: the table kept math's, but _sigmoid looks exp up when it runs and calls "
     "(-x).exp() on a float, so every sigmoid raises AttributeError",
     "wrong-local-derivative", ["sigmoid"], "instance state: a module-level name rebound after import (shadowing)"),
    (L2, "exp_table_derivative_wrong_arity", "c_getattr_unary", "bug", V, [
        ("    'exp': (exp, lambda x, y: y),\n", "    'exp': (exp, exp),  # the derivative of exp is exp\n")],
     "the table gives exp itself as exp's derivative, but the table's derivatives take (x, y): the forward "
     "pass is right and every backward() through an exp raises TypeError (exp() takes one argument)",
     "wrong-local-derivative", ["exp"], "arguments: a function of the wrong arity in a table"),
    (L2, "tanh_calls_atanh", "c_getattr_unary", "bug", V, [
        ("from math import exp, log, tanh\n", "from math import atanh, exp, log\n"),
        ("    'tanh': (tanh, ", "    'tanh': (atanh, ")],
     "the table's tanh is math.atanh (the neighbour autocompletion offers), the inverse function: "
     "wrong numbers, and ValueError for |x| >= 1",
     "wrong-local-derivative", ["tanh"], "operations: a neighbouring function of math"),
    (L2, "neg_served_by_getattr", "c_getattr_unary", "bug", V, [
        ("    def __neg__(self):\n        return self * -1\n\n", ""),
        ("    'sigmoid': (_sigmoid, lambda x, y: y * (1 - y)),\n",
         "    'sigmoid': (_sigmoid, lambda x, y: y * (1 - y)),\n    '__neg__': (lambda x: -x, lambda x, y: -1.0),\n")],
     "unary minus is put in the table served by __getattr__ as '__neg__', but Python looks special methods "
     "up on the class, never through __getattr__: -a raises TypeError, and so does a - b (which uses -b)",
     "unsupported-operand", ["neg", "-"], "operations: a special method looked up on the class"),

    # -------------------------------------------------------------------------- lab03_backprop
    (L3, "cycle_check_after_visited_check", "c_trampoline", "bug", V, [
        ("            elif parent in on_path:\n                raise ValueError(\"the graph has a cycle\")\n"
         "            elif parent not in done:\n                on_path.add(parent)\n",
         "            elif parent in done:\n                continue\n"
         "            elif parent in on_path:\n                raise ValueError(\"the graph has a cycle\")\n"
         "            else:\n                on_path.add(parent)\n                done.add(parent)  # seen\n")],
     "the walk marks a node seen when it is entered and tests 'seen' before 'on the path': every node on "
     "the path is already seen, so the cycle test can never fire and a cycle is silently cut (no error)",
     "cycle-detection", ["backward"], "graph shape: a cycle (a test made unreachable by the order of tests)"),
    (L3, "numgrad_terms_swapped", "c_trampoline", "bug", V, [
        ("        grads.append((f_plus - f_minus) / (2 * h))\n", "        grads.append((f_minus - f_plus) / (2 * h))\n")],
     "numerical_grad subtracts the two evaluations the other way round, (f(x - h) - f(x + h)) / 2h, so every "
     "estimate has the wrong sign",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: the order of the terms"),
    (L3, "numgrad_list_plus_equals_float", "c_trampoline", "bug", V, [
        ("        grads.append((f_plus - f_minus) / (2 * h))\n", "        grads += (f_plus - f_minus) / (2 * h)\n")],
     "numerical_grad adds each estimate with grads += estimate, which extends a list by an iterable: a float "
     "is not iterable, so every call raises TypeError",
     "finite-difference", ["numerical_grad"], "return values: a list built with += of a float"),
    (L3, "check_grad_reads_grads_before_backward", "c_trampoline", "bug", V, [
        ("    out = f(*xs)\n    zero_grad(out)\n    out.backward()\n    analytic = [x.grad for x in xs]\n",
         "    out = f(*xs)\n    zero_grad(out)\n    analytic = [x.grad for x in xs]\n    out.backward()\n")],
     "check_grad reads the inputs' gradients one line too early, after zeroing and before backward(): every "
     "analytic gradient is 0, so a right gradient that is not 0 is rejected (and a wrong one of a function "
     "whose derivative is 0 accepted)",
     "finite-difference", ["check_grad"], "check_grad's formula: the order of its steps"),
    (L3, "zero_grad_walk_after_loop", "c_trampoline", "bug", V, [
        ("    for root in roots:\n        stack = [root]\n        while stack:\n            node = stack.pop()\n"
         "            if node in seen:\n                continue\n            seen.add(node)\n"
         "            node.grad = 0.0\n            stack.extend(node._prev)\n",
         "    for root in roots:\n        stack = [root]\n    while stack:\n        node = stack.pop()\n"
         "        if node in seen:\n            continue\n        seen.add(node)\n"
         "        node.grad = 0.0\n        stack.extend(node._prev)\n")],
     "zero_grad's walk is indented one level out, after the loop over the roots instead of inside it: only "
     "the graph of the last root of a list is reset (one Value works)",
     "missing-zero-grad", ["zero_grad"], "operand kind: zero_grad given a list of several outputs (an indentation slip)"),
    (L3, "numgrad_reuses_h_name", "c_continuations", "bug", V, [
        ("        up = f(*xs).data\n", "        h_up = f(*xs).data\n"),
        ("        down = f(*xs).data\n", "        h = f(*xs).data  # the lower value\n"),
        ("        estimates[i] = (up - down) / (2 * h)\n", "        estimates[i] = (h_up - h) / (2 * h)\n")],
     "numerical_grad stores the lower evaluation in a variable named h, the step's own name: the step of "
     "every later nudge and the division use f(x - h) instead of h",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: a name reused for two things"),
    (L3, "numgrad_inserts_at_front", "c_continuations", "bug", V, [
        ("    estimates = [0.0] * len(xs)\n", "    estimates = []\n"),
        ("        estimates[i] = (up - down) / (2 * h)\n", "        estimates.insert(0, (up - down) / (2 * h))\n")],
     "numerical_grad collects its estimates with insert(0, ...), so the list comes out in the reverse order of "
     "the inputs (one input, or inputs with equal derivatives, look right)",
     "finite-difference", ["numerical_grad"], "return values: one estimate per input, in order (list.insert with -1)"),
    (L3, "cycle_message_repr_recurses", "c_continuations", "bug", V, [
        ("        return f\"Value(data={self.data}, grad={self.grad})\"\n",
         "        return f\"Value(data={self.data}, grad={self.grad}, prev={list(self._prev)})\"\n")],
     "the Value's __repr__ also shows its parents, and the cycle error's message formats the node with !r: "
     "on a cycle the repr walks the cycle forever, so backward() raises RecursionError instead of the "
     "ValueError naming the cycle (acyclic graphs are right)",
     "cycle-detection", ["backward"], "graph shape: a cycle (the error's message recurses)"),
    (L3, "zero_grad_star_args", "c_continuations", "bug", V, [
        ("def zero_grad(nodes):\n", "def zero_grad(*nodes):\n"),
        ("    roots = [nodes] if isinstance(nodes, Value) else list(nodes)\n    for node in _graph_nodes(roots):",
         "    for node in _graph_nodes(nodes):")],
     "zero_grad takes its roots as *nodes, so zero_grad(a) works but zero_grad([a, b]) walks the list object "
     "(AttributeError: a list has no _prev) and zero_grad(nodes=...) raises TypeError",
     "missing-zero-grad", ["zero_grad"], "arguments: a list or a Value, by position and by name (a variadic signature)"),
    (L3, "numgrad_params_swapped", "c_continuations", "bug", V, [
        ("def numerical_grad(f, xs, h=1e-6):\n", "def numerical_grad(xs, f, h=1e-6):\n"),
        ("    numeric = numerical_grad(f, xs)\n", "    numeric = numerical_grad(xs, f)\n")],
     "numerical_grad's first two parameters are in the other order (xs, f, h): the engine's own check_grad "
     "matches it, but numerical_grad(f, xs, h=...) called as the contract writes it fails (calls by name work)",
     "finite-difference", ["numerical_grad"], "arguments: the parameters' order"),
    (L3, "eq_check_grad_zeroes_inputs_after_build", "c_continuations", "equivalent", V, [
        ("    zero_grad(xs)\n    out = f(*xs)\n", "    out = f(*xs)\n    zero_grad(xs)\n")],
     "check_grad zeroes the inputs' gradients after building out instead of before: f builds its graph "
     "afresh, so every other node of it starts at 0.0 and the result is the same",
     "none", ["check_grad"], "equivalent: nothing observable changes"),
    (L3, "nudge_missing_contextmanager", "c_nudge_kahn", "bug", V, [
        ("@contextmanager\ndef nudged(x, to):\n", "def nudged(x, to):\n")],
     "the nudging helper lost its @contextmanager decorator: it is a plain generator, which has no __enter__, "
     "so every numerical_grad (and check_grad) raises TypeError/AttributeError at the with statement",
     "finite-difference", ["numerical_grad"], "numerical_grad: a with block over a generator (a missing decorator)"),
    (L3, "kahn_counts_kept_on_nodes", "c_nudge_kahn", "bug", V, [
        ("        self._op = _op  # the op that produced this node, '' for a leaf\n",
         "        self._op = _op  # the op that produced this node, '' for a leaf\n"
         "        self._users = 0  # how many nodes use this one (for backward)\n"),
        ("        users = {node: 0 for node in nodes}\n        for node in nodes:\n            for parent in node._prev:\n"
         "                users[parent] += 1\n",
         "        users = {}\n        for node in nodes:\n            for parent in node._prev:\n"
         "                parent._users += 1\n        for node in nodes:\n            users[node] = node._users\n")],
     "the consumer counts are accumulated on the nodes (node._users, set to 0 when a node is made) and never "
     "reset: a second backward() on the same graph, or one from an output built on it, counts every use "
     "again, the counts never fall to 0 and it raises 'cycle'",
     "shared-state", ["backward"], "repetition: a second backward() (state kept on the nodes)"),
    (L3, "numgrad_minus_nudge_missing", "c_nudge_kahn", "bug", V, [
        ("        with nudged(x, x.data - h):\n            minus = f(*xs).data\n", "        minus = f(*xs).data\n")],
     "numerical_grad evaluates the lower point without nudging the input down (the with line dropped), "
     "so it computes (f(x + h) - f(x)) / 2h: about half the derivative",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: both nudges"),
    (L3, "nudge_to_step_not_by_step", "c_nudge_kahn", "bug", V, [
        ("        with nudged(x, x.data + h):\n", "        with nudged(x, h):\n"),
        ("        with nudged(x, x.data - h):\n", "        with nudged(x, -h):\n")],
     "numerical_grad passes the step to its nudging helper, which takes the number to set, not the amount to "
     "add: every input is evaluated at +h and -h instead of x + h and x - h (right only at x = 0)",
     "finite-difference", ["numerical_grad"], "numerical_grad's formula: a helper's argument (a value for a difference)"),
    (L3, "numgrad_hardcoded_denominator", "c_nudge_kahn", "bug", V, [
        ("        result.append((plus - minus) / (2 * h))\n", "        result.append((plus - minus) / 2e-6)\n")],
     "numerical_grad divides by the constant 2e-6 (twice the default step) instead of 2 * h: right with the "
     "default h, wrong by the factor h / 1e-6 whenever h is given",
     "finite-difference", ["numerical_grad"], "arguments: h given (a constant where the parameter belongs)"),

    # ------------------------------------------------------------------------------- lab04_xor
    (L4, "mlp_returns_inside_loop", "c_functional", "bug", N, [
        ("        for layer in self.layers:\n            x = layer(x)\n        return x\n",
         "        for layer in self.layers:\n            x = layer(x)\n            return x\n")],
     "MLP's return statement is indented into the loop over the layers, so the model returns the first "
     "layer's outputs: MLP(2, [4, 1])(x) is a list of 4 tanh Values, and training fails",
     "nn-structure", ["MLP"], "graph shape: layers in sequence (a return inside the loop)"),
    (L4, "parameters_appends_to_weights", "c_functional", "bug", N, [
        ("    def parameters(self):\n        return self.w + [self.b]\n",
         "    def parameters(self):\n        self.w.append(self.b)\n        return self.w\n")],
     "the neuron's parameters() appends the bias to its own weight list and returns it: the first call is "
     "right, every later call adds the bias once more, so each training step updates the biases several "
     "times (the forward pass still zips the first nin weights)",
     "nn-structure", ["Neuron"], "instance state: parameters() changes the module (repetition)"),
    (L4, "layer_parameters_nested_lists", "c_functional", "bug", N, [
        ("        return list(itertools.chain.from_iterable(n.parameters() for n in self.neurons))\n",
         "        return [n.parameters() for n in self.neurons]\n")],
     "a layer's parameters() returns one list per neuron instead of one flat list, so MLP.parameters() yields "
     "lists, not Values, and zero_grad and the update fail (a list has no grad)",
     "nn-structure", ["Layer"], "return types: a flat list of Values (a nested comprehension forgotten)"),
    (L4, "bias_added_after_tanh", "c_functional", "bug", N, [
        ("        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)\n        return act.tanh() if self.nonlin else act\n",
         "        act = sum(wi * xi for wi, xi in zip(self.w, x))\n"
         "        return (act.tanh() if self.nonlin else act) + self.b\n")],
     "the neuron adds its bias after the tanh, tanh(w . x) + b: right at initialisation (b = 0), but the "
     "bias's gradient skips the tanh's derivative and a trained neuron is no longer tanh(w . x + b)",
     "nn-structure", ["Neuron"], "operations: the neuron's formula (the bias outside the nonlinearity)"),
    (L4, "tanh_via_sigmoid_missing_two", "c_functional", "bug", N, [
        ("        return act.tanh() if self.nonlin else act\n",
         "        return act.sigmoid() * 2 - 1 if self.nonlin else act  # tanh from sigmoid\n")],
     "the neuron's tanh is written from the sigmoid as 2 * sigmoid(a) - 1, forgetting the 2a inside the "
     "identity tanh(a) = 2 * sigmoid(2a) - 1: it computes tanh(a / 2)",
     "nn-structure", ["Neuron"], "operations: an identity with a factor forgotten"),
    (L4, "eq_zero_grad_before_forward", "c_functional", "equivalent", N, [
        ("        loss = sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) / len(XOR_INPUTS)\n"
         "        model.zero_grad()\n",
         "        model.zero_grad()\n"
         "        loss = sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) / len(XOR_INPUTS)\n")],
     "train_xor resets the gradients before the forward pass instead of after it: the forward pass reads "
     "no gradient, so the steps are the same",
     "none", ["train_xor"], "equivalent: nothing observable changes"),
    (L4, "zero_grad_iterates_method", "c_abc_iterable", "bug", N, [
        ("        for p in self:\n            p.grad = 0.0\n",
         "        for p in self.parameters:\n            p.grad = 0.0\n")],
     "Module.zero_grad loops over self.parameters without calling it (the method object), so every "
     "zero_grad() raises TypeError ('method' object is not iterable) and training fails at its first step",
     "training-loop", ["Module"], "operations: a method referenced, not called"),
    (L4, "mlp_wraps_inputs", "c_abc_iterable", "bug", N, [
        ("        out = x\n        for layer in self.layers:\n",
         "        out = [Value(xi) for xi in x]  # the inputs as leaves\n        for layer in self.layers:\n")],
     "the model wraps every input in a new Value: numbers work, but an input that is already a Value becomes a "
     "Value holding a Value, so model(x) with Values in x computes garbage or fails",
     "nn-structure", ["MLP"], "operand kind: Values in x (a wrapper applied unconditionally)"),
    (L4, "weights_prepended", "c_abc_iterable", "bug", N, [
        ("            self.w.append(Value(random.uniform(-1, 1)))\n", "            self.w.insert(0, Value(random.uniform(-1, 1)))\n")],
     "the neuron puts each new weight at the front of its list (insert(0, ...)), so the weights are in the "
     "reverse order of the draws: w_i gets the draw meant for w_(nin-1-i)",
     "nn-structure", ["Neuron"], "initialisation: the order of the draws (weights prepended)"),
    (L4, "neuron_parameters_misnamed", "c_functional", "bug", N, [
        ("    def parameters(self):\n        return self.w + [self.b]\n", "    def parameter(self):\n        return self.w + [self.b]\n")],
     "the neuron's method is named parameter (singular), so it inherits Module.parameters(), which returns []: "
     "the model has no parameters, zero_grad and the update reach nothing and nothing is trained",
     "nn-structure", ["Neuron"], "module sizes: the parameters listed (a misnamed method)"),
    (L4, "layer_neurons_sized_by_nout", "c_abc_iterable", "bug", N, [
        ("            self.neurons.append(Neuron(nin, **kwargs))\n", "            self.neurons.append(Neuron(nout, **kwargs))\n")],
     "the layer makes its neurons with nout inputs instead of nin (the two sizes swapped in one call): "
     "MLP(2, [4, 1]) has 4 neurons of 4 weights reading 2 inputs (zip truncates) and a last neuron of 1 weight",
     "nn-structure", ["Layer"], "module sizes: nin weights per neuron (the sizes swapped)"),
    (L4, "mlp_nonlin_only_first_layer", "c_abc_iterable", "bug", N, [
        ("            self.layers.append(Layer(fan_in, nout, nonlin=i < len(nouts) - 1))\n",
         "            self.layers.append(Layer(fan_in, nout, nonlin=i == 0))\n")],
     "only the first layer is tanh (nonlin=i == 0): right for two layers, but with three or more the hidden "
     "layers after the first are linear",
     "nn-structure", ["MLP"], "module sizes: more than two layers (a condition on the first index)"),
    (L4, "losses_record_last_example", "c_abc_iterable", "bug", N, [
        ("        losses.append(total.data)\n", "        losses.append(loss.data)\n")],
     "train_xor records loss.data, the squared error of the last example (the loop's variable), instead of "
     "total.data: the training is right but every returned loss is wrong",
     "training-loop", ["train_xor"], "return values: the loss of each step (a wrong variable)"),
    (L4, "loss_accumulator_outside_loop", "c_param_dict", "bug", N, [
        ("    losses = []\n    for _ in range(steps):\n        model.zero_grad()\n        total = 0.0\n",
         "    losses = []\n    total = 0.0\n    for _ in range(steps):\n        model.zero_grad()\n")],
     "the loss accumulator is set to 0 once, before the loop over the steps, so every recorded loss is the "
     "running sum of all the steps so far (the training itself is right)",
     "training-loop", ["train_xor"], "whole run: the loss of each step (an accumulator never reset)"),
    (L4, "losses_module_list", "c_param_dict", "bug", N, [
        ("TARGET_LOSS = 0.05\n", "TARGET_LOSS = 0.05\nLOSSES = []  # every loss seen, to plot\n"),
        ("    losses = []\n    for _ in range(steps):\n", "    losses = LOSSES\n    for _ in range(steps):\n")],
     "train_xor appends to a module-level list LOSSES (kept for plotting) and returns it, so every call after "
     "the first returns the losses of all the earlier calls too: more than steps floats",
     "training-loop", ["train_xor"], "instance state: module-level state (a second training run)"),
    (L4, "layer_truthiness_returns_first", "c_param_dict", "bug", N, [
        ("        return outs[0] if len(outs) == 1 else outs\n", "        return outs[0] if outs else outs\n")],
     "a layer tests its outputs' truthiness instead of their number, outs[0] if outs else outs: a layer of "
     "several neurons returns its first output only, so the next layer reads one input",
     "nn-structure", ["Layer"], "return types: a layer of several neurons (truthiness for a length)"),
]

CORRECT = {
    (L1, "c_iter_frames"): ("style: a stack of (node, iterator over its parents) frames with for-else",
                            "backward() walks the graph with frames (node, iter(node._prev)); a for-else pushes the "
                            "first unvisited parent or finishes the node; numbers lifted by a module function",
                            ["+", "*", "backward"]),
    (L1, "c_topo_visitor"): ("style: the topological order as a visitor class with __reversed__",
                             "a Topo class visits the graph recursively from the output and supports reversed(); "
                             "numbers lifted by a classmethod; the reflected operators call the lifted number's method",
                             ["+", "*", "backward"]),
    (L1, "c_ops_installed"): ("style: operators written as plain functions and installed with setattr",
                              "add() and mul() are module functions installed on Value by a setattr loop (the "
                              "reflected ones as lambdas); backward() finishes nodes into a deque with appendleft",
                              ["+", "*", "backward"]),
    (L2, "c_eager_locals"): ("style: local derivatives stored on the node when it is built",
                             "every operation computes its local derivatives eagerly and stores them in out._local; "
                             "one bound method _pass_on is every node's _backward; -, / and neg are nodes of their own",
                             ["neg", "-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L2, "c_decorated_binary"): ("style: a decorator lifts the right operand of every binary operator",
                                 "@lifts_number turns a plain-number operand into a leaf; the reflected operators "
                                 "are written as other - self and other / self on lifted operands; sigmoid uses a "
                                 "static helper; backward() walks a stack of iterators with a path list",
                                 ["neg", "-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L2, "c_getattr_unary"): ("style: one-input functions served by __getattr__ from a table",
                              "exp, log, tanh, relu and sigmoid are entries of a module table (forward, derivative "
                              "from x and y) that __getattr__ turns into methods; -, / and neg are composed "
                              "micrograd-style; backward() keeps (node, next parent index) pairs",
                              ["neg", "-", "/", "**", "exp", "log", "tanh", "relu", "sigmoid"]),
    (L3, "c_trampoline"): ("style: one generator per node driven by a loop (a trampoline)",
                           "backward() keeps a stack of (node, generator over its parents) and an on-path set for "
                           "cycles; zero_grad walks each root with its own stack and a shared seen set",
                           ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L3, "c_continuations"): ("style: a stack of continuations (small functions) instead of recursion",
                              "backward() pushes visit and finish closures on a list and runs them until it is "
                              "empty; a state dict marks nodes open or done; numerical_grad fills a list by index; "
                              "check_grad zeroes the inputs first and returns early",
                              ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L3, "c_nudge_kahn"): ("style: Kahn's algorithm over consumer counts, nudges in a with block",
                           "backward() counts each node's users, runs Kahn's algorithm from the output and calls a "
                           "leftover a cycle; numerical_grad nudges each input inside a contextmanager that puts it "
                           "back in a finally", ["backward", "zero_grad", "numerical_grad", "check_grad"]),
    (L4, "c_functional"): ("style: sum() with a start value, comprehensions, itertools.chain",
                           "the neuron is sum(w_i * x_i, start=b); parameters are flattened with "
                           "itertools.chain.from_iterable; train_xor is a list comprehension over an inner step()",
                           ["Neuron", "Layer", "MLP", "train_xor"]),
    (L4, "c_abc_iterable"): ("style: abstract modules that are iterable over their parameters",
                             "Module is an abc.ABC with an abstract parameters() and __iter__; zero_grad, the "
                             "layers and the update iterate modules directly; train_xor is a while loop over the "
                             "number of losses", ["Neuron", "Layer", "MLP", "train_xor"]),
    (L4, "c_param_dict"): ("style: parameters kept in dicts by name, each example backpropagated on its own",
                           "every module keeps its parts in a dict (w0.., b; n0..; layer0..) with properties for the "
                           "lists; train_xor backpropagates each example's share of the loss and updates once per "
                           "step", ["Neuron", "Layer", "MLP", "train_xor"]),
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
