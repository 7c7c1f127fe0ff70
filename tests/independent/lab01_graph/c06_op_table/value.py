import operator


class Value:
    # op label -> (forward function, local derivatives given (a, b))
    OPS = {
        '+': (operator.add, lambda a, b: (1.0, 1.0)),
        '*': (operator.mul, lambda a, b: (b, a)),
    }

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def _binary(self, other, op):
        other = other if isinstance(other, Value) else Value(other)
        forward, local = Value.OPS[op]
        out = Value(forward(self.data, other.data), (self, other), op)

        def _backward():
            da, db = local(self.data, other.data)
            self.grad += da * out.grad
            other.grad += db * out.grad
        out._backward = _backward
        return out

    def __add__(self, other):
        return self._binary(other, '+')

    def __mul__(self, other):
        return self._binary(other, '*')

    def __radd__(self, other):
        return self._binary(other, '+')

    def __rmul__(self, other):
        return self._binary(other, '*')

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for p in v._prev:
                    build(p)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
