import math


class Value:
    __slots__ = ('data', 'grad', '_backward', '_prev', '_op')

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = Value._noop
        self._prev = tuple(_children)
        self._op = _op

    @staticmethod
    def _noop():
        pass

    def _node(self, data, parents, op, local_grads):
        """Make a node; local_grads() returns d(out)/d(parent) for each parent."""
        out = Value(data, parents, op)

        def _backward():
            for parent, d in zip(parents, local_grads(out)):
                parent.grad += d * out.grad
        out._backward = _backward
        return out

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self._node(self.data + other.data, (self, other), 'add', lambda out: (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self._node(self.data * other.data, (self, other), 'mul',
                          lambda out: (other.data, self.data))

    def __pow__(self, n):
        if not isinstance(n, (int, float)):
            raise TypeError(f"unsupported exponent type {type(n).__name__}")
        return self._node(self.data ** n, (self,), 'pow',
                          lambda out: (n * self.data ** (n - 1),))

    def __neg__(self):
        return self._node(-self.data, (self,), 'neg', lambda out: (-1.0,))

    def __sub__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self._node(self.data - other.data, (self, other), 'sub', lambda out: (1.0, -1.0))

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self._node(self.data / other.data, (self, other), 'div',
                          lambda out: (1.0 / other.data, -self.data / other.data ** 2))

    def __radd__(self, other):
        return Value(other) + self

    def __rsub__(self, other):
        return Value(other) - self

    def __rmul__(self, other):
        return Value(other) * self

    def __rtruediv__(self, other):
        return Value(other) / self

    def exp(self):
        return self._node(math.exp(self.data), (self,), 'exp', lambda out: (out.data,))

    def log(self):
        return self._node(math.log(self.data), (self,), 'ln', lambda out: (1.0 / self.data,))

    def tanh(self):
        return self._node(math.tanh(self.data), (self,), 'tanh', lambda out: (1.0 - out.data ** 2,))

    def relu(self):
        return self._node(max(self.data, 0.0), (self,), 'relu',
                          lambda out: (1.0 if self.data > 0 else 0.0,))

    def sigmoid(self):
        return self._node(1.0 / (1.0 + math.exp(-self.data)), (self,), 'sigm',
                          lambda out: (out.data * (1.0 - out.data),))

    def backward(self):
        topo, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for p in v._prev:
                    visit(p)
                topo.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f"{self._op or 'leaf'}⟨{self.data:g}; ∇{self.grad:g}⟩"
