from collections import deque


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

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
        # Kahn's algorithm on the reversed graph: a node is ready once every
        # node that consumes it has passed its gradient down.
        pending = {}
        seen = {self}
        todo = [self]
        while todo:
            v = todo.pop()
            for p in v._prev:
                pending[p] = pending.get(p, 0) + 1
                if p not in seen:
                    seen.add(p)
                    todo.append(p)

        self.grad = 1.0
        ready = deque([self])
        while ready:
            v = ready.popleft()
            v._backward()
            for p in v._prev:
                pending[p] -= 1
                if pending[p] == 0:
                    ready.append(p)

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
