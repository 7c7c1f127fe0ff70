"""Lab 01: a Value that builds its graph; backward() walks it with a stack of iterator frames."""


def _leaf_backward():
    return None


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    def __add__(self, other):
        other = _as_value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = _as_value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return _as_value(other) + self

    def __rmul__(self, other):
        return _as_value(other) * self

    def _topological_order(self):
        """Post-order of the graph: a stack of (node, iterator over its parents) frames."""
        order = []
        visited = {self}
        frames = [(self, iter(self._prev))]
        while frames:
            node, parents = frames[-1]
            for parent in parents:
                if parent not in visited:
                    visited.add(parent)
                    frames.append((parent, iter(parent._prev)))
            else:
                frames.pop()
                order.append(node)
        return order

    def backward(self):
        order = self._topological_order()
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
