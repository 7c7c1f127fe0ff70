"""Lab 03 — backprop on larger graphs: accumulation, zero_grad, deep graphs, gradient checking.

Lab 03 — backprop en grafos grandes: acumulación, zero_grad, grafos profundos y comprobación
numérica de gradientes.
"""

import math
from functools import cached_property


def _leaf_backward():
    """A leaf has no parents, so there is nothing to propagate."""
    return None


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        # internal variables used for autograd graph construction
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op  # the op that produced this node, '' for a leaf

    # -- labs 01 and 02, complete: the operations ---------------------------------------------

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad  # d(out)/d(self) = 1
            other.grad += out.grad  # d(out)/d(other) = 1
        out._backward = _backward

        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad  # d(out)/d(self) = other.data
            other.grad += self.data * out.grad  # d(out)/d(other) = self.data
        out._backward = _backward

        return out

    def __pow__(self, other):  # self ** other, for a plain number other
        if not isinstance(other, (int, float)):
            raise TypeError(f"only int or float exponents are supported, not {type(other).__name__}")
        out = Value(self.data ** other, (self,), f'**{other}')

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad  # d(x**n)/dx = n * x**(n-1)
        out._backward = _backward

        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad  # d(e**x)/dx = e**x
        out._backward = _backward

        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def _backward():
            self.grad += (1 / self.data) * out.grad  # d(log x)/dx = 1/x
        out._backward = _backward

        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad  # d(tanh x)/dx = 1 - tanh(x)**2
        out._backward = _backward

        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')

        def _backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad  # 1 for x > 0, else 0
        out._backward = _backward

        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad  # d(sigmoid x)/dx = s * (1 - s)
        out._backward = _backward

        return out

    def __neg__(self):  # -self
        return self * -1

    def __radd__(self, other):  # other + self
        return self + other

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __rsub__(self, other):  # other - self
        return other + (-self)

    def __rmul__(self, other):  # other * self
        return self * other

    def __truediv__(self, other):  # self / other
        return self * other ** -1

    def __rtruediv__(self, other):  # other / self
        return other * self ** -1


    # -- lab 03: the backward pass through a Graph helper ----------------------------------------

    def backward(self):
        order = Graph([self]).order
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


class Graph:
    """The graph below some roots: its nodes and a topological order, each computed once."""

    def __init__(self, roots):
        self.roots = list(roots)

    @cached_property
    def nodes(self):
        """Every node the roots were computed from, the roots included (a list, each once)."""
        seen, found, todo = set(), [], list(self.roots)
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                found.append(node)
                todo.extend(node._prev)
        return found

    @cached_property
    def order(self):
        """The nodes, each after its parents; ValueError if the graph has a cycle."""
        order, done, on_path = [], set(), set()
        stack = [(root, False) for root in reversed(self.roots)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                on_path.discard(node)
                done.add(node)
                order.append(node)
            elif node in on_path:
                raise ValueError(f"backward(): the graph has a cycle through {node!r}")
            elif node not in done:
                on_path.add(node)
                stack.append((node, True))
                stack.extend((parent, False) for parent in node._prev)
        return order


def zero_grad(nodes):
    """Set .grad to 0.0 on every node of the graph of `nodes` (a Value, or a list of Values)."""
    for node in Graph([nodes] if isinstance(nodes, Value) else nodes).nodes:
        node.grad = 0.0


def _f_at(f, xs, i, value):
    """f(*xs) with xs[i] holding `value`; xs[i] is put back whatever f does."""
    kept = xs[i].data
    xs[i].data = value
    try:
        return f(*xs).data
    finally:
        xs[i].data = kept


def numerical_grad(f, xs, h=1e-6):
    """Central differences (f(x + h) - f(x - h)) / 2h, one per input."""
    grads = []
    for i, x in enumerate(xs):
        f_plus = _f_at(f, xs, i, x.data + h)
        f_minus = _f_at(f, xs, i, x.data - h)
        grads.append((f_plus - f_minus) / (2 * h))
    return grads


def check_grad(f, xs, tol=1e-4):
    """True when backward() and numerical_grad agree on every input, within tol."""
    out = f(*xs)
    zero_grad(out)
    out.backward()
    pairs = zip([x.grad for x in xs], numerical_grad(f, xs))
    return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in pairs)
