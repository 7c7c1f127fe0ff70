"""Lab 03: backward() by Kahn's algorithm over consumer counts; numerical_grad nudges in a with block."""

import math
from collections import deque
from contextlib import contextmanager


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

    # -- lab 03 ------------------------------------------------------------------------------

    def backward(self):
        nodes = _graph_nodes([self])
        users = {node: 0 for node in nodes}
        for node in nodes:
            for parent in node._prev:
                users[parent] += 1
        if users[self]:
            raise ValueError("cycle: the output is used by a node below it")
        ready = deque([self])
        order = []
        while ready:
            node = ready.popleft()
            order.append(node)
            for parent in node._prev:
                users[parent] -= 1
                if users[parent] == 0:
                    ready.append(parent)
        if len(order) != len(nodes):
            raise ValueError("cycle in the graph below the output")
        self.grad = 1.0
        for node in order:
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


def _graph_nodes(roots):
    """Every node reachable from roots, each once (breadth first)."""
    seen = set(roots)
    queue = deque(roots)
    while queue:
        node = queue.popleft()
        for parent in node._prev:
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return seen


def zero_grad(nodes):
    """Set .grad to 0.0 on every node of the graph of `nodes` (a Value, or a list of Values)."""
    for node in _graph_nodes([nodes] if isinstance(nodes, Value) else list(nodes)):
        node.grad = 0.0


@contextmanager
def nudged(x, to):
    """x.data set to `to` inside the with block, and put back exactly afterwards."""
    kept = x.data
    x.data = to
    try:
        yield x
    finally:
        x.data = kept


def numerical_grad(f, xs, h=1e-6):
    """Central differences, one per input; every input put back exactly."""
    result = []
    for x in xs:
        with nudged(x, x.data + h):
            plus = f(*xs).data
        minus = f(*xs).data
        result.append((plus - minus) / (2 * h))
    return result


def check_grad(f, xs, tol=1e-4):
    """True when backward() agrees with numerical_grad on every input."""
    out = f(*xs)
    zero_grad(out)
    out.backward()
    numeric = numerical_grad(f, xs)
    return all(abs(x.grad - n) <= tol * max(1, abs(n)) for x, n in zip(xs, numeric))
