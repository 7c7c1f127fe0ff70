"""A scalar autograd engine whose topological order comes from a recursive generator.

_postorder(node, seen) is a generator that yields, with `yield from`, every parent's
post-order before the node itself; backward() turns it into a list and runs the _backward
closures in reverse.
"""


def _leaf_backward():
    return None


def _postorder(node, seen):
    if node in seen:
        return
    seen.add(node)
    for parent in node._prev:
        yield from _postorder(parent, seen)
    yield node


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.data
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return Value(other) + self

    def __rmul__(self, other):
        return Value(other) * self

    def backward(self):
        order = list(_postorder(self, set()))
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
