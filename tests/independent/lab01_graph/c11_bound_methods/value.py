class Value:
    """A node of the graph. No closures: each node knows how to push its own
    gradient to its parents from its _op and its _prev."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._backward = self._push_grad

    def _push_grad(self):
        if self._op == '+':
            a, b = self._prev
            a.grad += self.grad
            b.grad += self.grad
        elif self._op == '*':
            a, b = self._prev
            a.grad += b.data * self.grad
            b.grad += a.data * self.grad

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), '+')

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), '*')

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        topo = []
        visited = set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
