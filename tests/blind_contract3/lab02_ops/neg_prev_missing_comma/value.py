"""A scalar autograd engine driven by a table indexed by an IntEnum.

Each one-input operation is a member of the `Unary` IntEnum; `_UNARY[op]` holds its
(forward, local derivative) pair, indexed by the member's number. Subtraction, division and
unary minus are nodes of their own; backward() is Kahn's algorithm over a dict of consumer
counts keyed by id().
"""
import math
from enum import IntEnum


def _leaf_backward():
    return None


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class Unary(IntEnum):
    EXP = 0
    LOG = 1
    TANH = 2
    RELU = 3
    SIGMOID = 4


# (forward(x), local derivative(x, y)) with y the output, one entry per Unary member, in order
_UNARY = [
    (math.exp, lambda x, y: y),
    (math.log, lambda x, y: 1.0 / x),
    (math.tanh, lambda x, y: 1.0 - y * y),
    (lambda x: x if x > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0),
    (_sigmoid, lambda x, y: y * (1.0 - y)),
]


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _v(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._v(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value._v(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        out = Value(-self.data, (self), 'neg')

        def _backward():
            self.grad -= out.grad
        out._backward = _backward
        return out

    def __sub__(self, other):
        other = Value._v(other)
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad
        out._backward = _backward
        return out

    def __rsub__(self, other):
        return Value._v(other) - self

    def __truediv__(self, other):
        other = Value._v(other)
        out = Value(self.data / other.data, (self, other), '/')

        def _backward():
            self.grad += out.grad / other.data
            other.grad += -self.data / other.data ** 2 * out.grad
        out._backward = _backward
        return out

    def __rtruediv__(self, other):
        other = Value._v(other)
        out = Value(other.data / self.data, (other, self), '/')

        def _backward():
            other.grad += out.grad / self.data
            self.grad += -other.data / self.data ** 2 * out.grad
        out._backward = _backward
        return out

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"the exponent must be an int or a float, not {type(k).__name__}")
        out = Value(self.data ** k, (self,), f'**{k}')

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = _backward
        return out

    def _apply(self, op):
        forward, local = _UNARY[op]
        out = Value(forward(self.data), (self,), op.name.lower())

        def _backward():
            self.grad += local(self.data, out.data) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        return self._apply(Unary.EXP)

    def log(self):
        return self._apply(Unary.LOG)

    def tanh(self):
        return self._apply(Unary.TANH)

    def relu(self):
        return self._apply(Unary.RELU)

    def sigmoid(self):
        return self._apply(Unary.SIGMOID)

    def backward(self):
        users, todo, seen = {}, [self], {id(self)}
        while todo:
            node = todo.pop()
            for p in node._prev:
                users[id(p)] = users.get(id(p), 0) + 1
                if id(p) not in seen:
                    seen.add(id(p))
                    todo.append(p)
        self.grad = 1.0
        ready = [self]
        while ready:
            node = ready.pop()
            node._backward()
            for p in node._prev:
                users[id(p)] -= 1
                if users[id(p)] == 0:
                    ready.append(p)
