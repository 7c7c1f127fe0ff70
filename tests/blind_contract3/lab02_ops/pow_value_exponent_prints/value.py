"""A scalar autograd engine whose binary operators dispatch on the operand's type.

Every binary operator is a functools.singledispatchmethod: the generic implementation takes a
Value, and the registration for plain numbers (int, float) wraps the number into a leaf first.
Unary operations share one _unary(data, local_derivative_of(x, y), label) builder whose
closure asks for the local derivative when it runs.
"""
import math
from functools import singledispatchmethod


def _leaf_backward():
    return None


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    # ------------------------------------------------------------------ binary operators
    @singledispatchmethod
    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    @__add__.register(int)
    @__add__.register(float)
    def _(self, other):
        return self + Value(other)

    @singledispatchmethod
    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    @__mul__.register(int)
    @__mul__.register(float)
    def _(self, other):
        return self * Value(other)

    @singledispatchmethod
    def __sub__(self, other):
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad
        out._backward = _backward
        return out

    @__sub__.register(int)
    @__sub__.register(float)
    def _(self, other):
        return self - Value(other)

    @singledispatchmethod
    def __truediv__(self, other):
        out = Value(self.data / other.data, (self, other), '/')

        def _backward():
            self.grad += out.grad / other.data
            other.grad -= self.data / other.data ** 2 * out.grad
        out._backward = _backward
        return out

    @__truediv__.register(int)
    @__truediv__.register(float)
    def _(self, other):
        return self / Value(other)

    def __radd__(self, other):
        return Value(other) + self

    def __rmul__(self, other):
        return Value(other) * self

    def __rsub__(self, other):
        return Value(other) - self

    def __rtruediv__(self, other):
        return Value(other) / self

    def __neg__(self):
        return self * -1

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            print(f"the exponent must be an int or a float, not {type(k).__name__}")
            return None
        return self._unary(self.data ** k, lambda x, y: k * x ** (k - 1), f'**{k}')

    # ------------------------------------------------------------------- unary operations
    def _unary(self, data, local, label):
        out = Value(data, (self,), label)

        def _backward():
            self.grad += local(self.data, out.data) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        return self._unary(math.exp(self.data), lambda x, y: y, 'exp')

    def log(self):
        return self._unary(math.log(self.data), lambda x, y: 1.0 / x, 'log')

    def tanh(self):
        return self._unary(math.tanh(self.data), lambda x, y: 1.0 - y * y, 'tanh')

    def relu(self):
        return self._unary(self.data if self.data > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0, 'ReLU')

    def sigmoid(self):
        return self._unary(_sigmoid(self.data), lambda x, y: y * (1.0 - y), 'sigmoid')

    # ---------------------------------------------------------------------- the backward pass
    def backward(self):
        order, done, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in done:
                done.add(node)
                stack.append((node, True))
                stack.extend((p, False) for p in node._prev if p not in done)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
