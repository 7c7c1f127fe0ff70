"""Scalar autograd ordered by height: every node knows, from birth, the length of the longest path
down to a leaf below it, and backward() runs the nodes from the highest to the lowest.

A node is always strictly higher than each of its parents, so that order puts every node after all
the nodes that use it. Local derivatives are chosen with a `match` on the label.
"""


def _leaf_backward():
    pass


class Value:
    __slots__ = ('data', 'grad', '_prev', '_op', '_backward', '_height')

    def __init__(self, data, _children=(), _op=''):
        self.data = 0.0 if abs(data) < 1e-12 else data  # float noise is zero
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._backward = _leaf_backward
        self._height = 1 + max((c._height for c in self._prev), default=-1)

    def __repr__(self):
        return f"Value({self.data!r}, grad={self.grad!r}, op={self._op!r})"

    def _combine(self, other, label):
        other = other if isinstance(other, Value) else Value(other)
        match label:
            case '+':
                out = Value(self.data + other.data, (self, other), label)
            case '*':
                out = Value(self.data * other.data, (self, other), label)
            case _:
                raise ValueError(label)

        def _backward():
            match out._op:
                case '+':
                    d_self, d_other = 1.0, 1.0
                case '*':
                    d_self, d_other = other.data, self.data
            self.grad += d_self * out.grad
            other.grad += d_other * out.grad
        out._backward = _backward
        return out

    def __add__(self, other):
        return self._combine(other, '+')

    def __mul__(self, other):
        return self._combine(other, '*')

    def __radd__(self, other):
        return Value(other)._combine(self, '+')

    def __rmul__(self, other):
        return Value(other)._combine(self, '*')

    def backward(self):
        nodes, seen, stack = [], set(), [self]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            nodes.append(node)
            stack.extend(node._prev)
        nodes.sort(key=lambda n: n._height, reverse=True)
        self.grad = 1.0
        for node in nodes:
            node._backward()
