"""Lab 01: a Value; the topological order is a small visitor class of its own."""


class Topo:
    """The nodes of a graph, every node after its parents (a recursive depth-first visit)."""

    def __init__(self, root):
        self.seen = set()
        self.nodes = []
        self.visit(root)

    def visit(self, node):
        if node in self.seen:
            return
        self.seen.add(node)
        for parent in node._prev:
            self.visit(parent)
        self.nodes.append(node)

    def __iter__(self):
        return iter(self.nodes)

    def __reversed__(self):
        return reversed(self.nodes)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value({self.data})"

    @classmethod
    def lift(cls, x):
        return x if isinstance(x, cls) else cls(x)

    def __add__(self, other):
        other = Value.lift(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value.lift(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return Value.__add__(other, self)

    def __rmul__(self, other):
        return Value.lift(other).__mul__(self)

    def backward(self):
        topo = Topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
