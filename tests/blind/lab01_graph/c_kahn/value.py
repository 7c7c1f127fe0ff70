"""Lab 01 (my version): backward() orders the graph by counting consumers (Kahn's algorithm)."""


def _leaf_backward():
    """Nothing to do for a leaf."""
    return


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad = self.grad + out.grad
            other.grad = other.grad + out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '×')

        def _backward():
            self.grad = self.grad + other.data * out.grad
            other.grad = other.grad + self.data * out.grad

        out._backward = _backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        # how many consumers (inside this graph) each node has, counting an edge per use
        consumers = {}
        nodes = {id(self): self}
        stack = [self]
        while stack:
            v = stack.pop()
            for p in v._prev:
                consumers[id(p)] = consumers.get(id(p), 0) + 1
                if id(p) not in nodes:
                    nodes[id(p)] = p
                    stack.append(p)
        self.grad = 1.0
        ready = [self]
        while ready:
            v = ready.pop()
            v._backward()
            for p in v._prev:
                consumers[id(p)] -= 1
                if consumers[id(p)] == 0:
                    ready.append(p)

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
