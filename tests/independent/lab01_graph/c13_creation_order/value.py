import itertools

_ids = itertools.count()


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op
        self._id = next(_ids)  # parents are always created before their children

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
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
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        # collect the graph, then go from the newest node to the oldest: a node is
        # always newer than its parents, so this is a reverse topological order
        nodes = {self}
        stack = [self]
        while stack:
            v = stack.pop()
            for p in v._prev:
                if p not in nodes:
                    nodes.add(p)
                    stack.append(p)
        self.grad = 1.0
        for v in sorted(nodes, key=lambda n: n._id, reverse=True):
            v._backward()

    def __repr__(self):
        return f"Value#{self._id}({self.data})"
