"""Lab 01: Value with an iterative post-order walk (stack of iterators)."""


def _leaf_backward():
    """A leaf has no parents, so there is nothing to propagate."""
    return None


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward

        return out

    def __mul__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
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
        # breadth-first from the output: each node once, in the order it is found
        order = [self]
        seen = {id(self)}
        i = 0
        while i < len(order):
            for child in order[i]._prev:
                if id(child) not in seen:
                    seen.add(id(child))
                    order.append(child)
            i += 1

        self.grad = 1.0
        for node in order:
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
