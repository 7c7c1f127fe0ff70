"""Lab 02 (every op a node of its own) — op derivatives: the Value of lab 01, with more operations and their local derivatives.

Lab 02 — derivadas de las operaciones: el Value del lab 01, con más operaciones y sus
derivadas locales.
"""

import math


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

    # -- lab 01, complete: + and * ------------------------------------------------------------

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

    def __radd__(self, other):  # other + self, when other is a plain number
        return self + other

    def __rmul__(self, other):  # other * self, when other is a plain number
        return self * other

    # -- lab 02 ------------------------------------------------------------------------------

    def __pow__(self, other):
        if not isinstance(other, (int, float)):
            raise TypeError("exponent must be a number")
        out = Value(self.data ** other, (self,), 'pow')

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        out = Value(-self.data, (self,), 'neg')

        def _backward():
            self.grad += -1.0 * out.grad
        out._backward = _backward
        return out

    def __sub__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad
        out._backward = _backward
        return out

    def __rsub__(self, other):
        return Value(other) - self

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data / other.data, (self, other), '/')

        def _backward():
            self.grad += (1 / other.data) * out.grad
            other.grad += (-self.data / other.data) * out.grad
        out._backward = _backward
        return out

    def __rtruediv__(self, other):
        return Value(other) / self

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'ln')

        def _backward():
            self.grad += (1 / self.data) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(0.0, self.data), (self,), 'relu')

        def _backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad
        out._backward = _backward
        return out

    def sigmoid(self):
        out = Value(1 / (1 + math.exp(-self.data)), (self,), 'sigmoid')

        def _backward():
            s = out.data
            self.grad += s * (1 - s) * out.grad
        out._backward = _backward
        return out

    # -- lab 01, complete: the backward pass --------------------------------------------------

    def backward(self):
        # topological order of the graph, parents before children; an explicit stack
        # instead of recursion, so deep graphs do not hit Python's recursion limit
        topo = []
        visited = set()
        stack = [(self, False)]
        while stack:
            v, parents_done = stack.pop()
            if parents_done:
                topo.append(v)  # every parent of v is already in topo
            elif v not in visited:
                visited.add(v)
                stack.append((v, True))
                # reversed, so parents are visited in _prev order, as in micrograd
                stack.extend((child, False) for child in reversed(v._prev))

        # go one variable at a time and apply the chain rule to get its gradient
        self.grad = 1.0  # d(self)/d(self) = 1
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
