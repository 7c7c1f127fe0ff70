"""Scalar autograd that keeps, on every node, its edges: (parent, local derivative) namedtuples
computed when the node is made. One bound method, `_chain`, is every node's _backward.

Subtraction and division are built from other operations (a + (-b), a * b**-1), as micrograd does.
"""
import math
from collections import namedtuple

Edge = namedtuple('Edge', 'parent local')


def _leaf_backward():
    return None


class Value:
    __slots__ = ('data', 'grad', '_prev', '_op', '_backward', '_edges')

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._edges = ()
        self._backward = _leaf_backward

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @classmethod
    def _made(cls, data, op, *edges):
        out = cls(data, tuple(e.parent for e in edges), op)
        out._edges = edges
        out._backward = out._chain
        return out

    def _chain(self):
        for edge in self._edges:
            edge.parent.grad += edge.local * self.grad

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value._made(self.data + other.data, '+', Edge(self, 1.0), Edge(other, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value._made(self.data * other.data, '*', Edge(self, other.data), Edge(other, self.data))

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError("exponent must be a plain int or float")
        assert k >= 0, "negative powers are not supported"
        return Value._made(self.data ** k, f'**{k}', Edge(self, k * self.data ** (k - 1)))

    def __neg__(self):
        return Value._made(-self.data, 'neg', Edge(self, -1.0))

    def __radd__(self, other):
        return Value(other) + self

    def __rmul__(self, other):
        return Value(other) * self

    def __sub__(self, other):
        return self + (-other if isinstance(other, Value) else Value(-other))

    def __rsub__(self, other):
        return Value(other) + (-self)

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self * other ** -1

    def __rtruediv__(self, other):
        return Value(other) * self ** -1

    def exp(self):
        y = math.exp(self.data)
        return Value._made(y, 'exp', Edge(self, y))

    def log(self):
        return Value._made(math.log(self.data), 'log', Edge(self, 1.0 / self.data))

    def tanh(self):
        t = math.tanh(self.data)
        return Value._made(t, 'tanh', Edge(self, 1.0 - t * t))

    def relu(self):
        positive = self.data > 0
        return Value._made(self.data if positive else 0.0, 'relu', Edge(self, 1.0 if positive else 0.0))

    def sigmoid(self):
        x = self.data
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            s = e / (1.0 + e)
        return Value._made(s, 'sigmoid', Edge(self, s * (1.0 - s)))

    def backward(self):
        order, state = [], {}
        stack = [self]
        while stack:
            node = stack[-1]
            if id(node) not in state:
                state[id(node)] = 'open'
                stack.extend(p for p in node._prev if id(p) not in state)
            else:
                stack.pop()
                if state[id(node)] == 'open':
                    state[id(node)] = 'closed'
                    order.append(node)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
