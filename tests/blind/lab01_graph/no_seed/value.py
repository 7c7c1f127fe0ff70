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
        order = []
        seen = {id(self)}
        stack = [(self, iter(self._prev))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child._prev)))
                    break
            else:
                stack.pop()
                order.append(node)

        for node in order[::-1]:
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
