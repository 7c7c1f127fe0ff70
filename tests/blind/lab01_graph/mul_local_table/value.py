"""Lab 01 -- a Value whose operations come from a small table of (forward, local derivatives)."""

# name -> (forward(x, y), local derivatives (d/dx, d/dy) at (x, y))
OPS = {
    'add': (lambda x, y: x + y, lambda x, y: (1.0, 1.0)),
    'mul': (lambda x, y: x * y, lambda x, y: (x, y)),
}


def _leaf_backward():
    """A leaf has no parents, so there is nothing to propagate."""


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = list(_children)
        self._op = _op

    def _binary(self, other, name):
        other = _as_value(other)
        forward, local = OPS[name]
        out = Value(forward(self.data, other.data), [self, other], name)

        def _backward():
            dx, dy = local(self.data, other.data)
            self.grad += dx * out.grad
            other.grad += dy * out.grad
        out._backward = _backward
        return out

    def __add__(self, other):
        return self._binary(other, 'add')

    def __mul__(self, other):
        return self._binary(other, 'mul')

    def __radd__(self, other):
        return _as_value(other)._binary(self, 'add')

    def __rmul__(self, other):
        return _as_value(other)._binary(self, 'mul')

    def backward(self):
        order, done = [], set()
        todo = [self]
        while todo:
            v = todo[-1]
            if v in done:
                todo.pop()
                continue
            pending = [c for c in v._prev if c not in done]
            if pending:
                todo.extend(pending)
            else:
                done.add(v)
                order.append(v)
                todo.pop()
        self.grad = 1.0
        for v in reversed(order):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
