import math


class Value:
    """Each node pushes its gradient to its parents in _push, a method that
    looks at _op; there are no closures."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._exponent = None
        self._backward = self._push

    def _push(self):
        op, g = self._op, self.grad
        if op == '+':
            a, b = self._prev
            a.grad += g
            b.grad += g
        elif op == '*':
            a, b = self._prev
            a.grad += b.data * g
            b.grad += a.data * g
        elif op == '**':
            (a,) = self._prev
            n = self._exponent
            a.grad += n * a.data ** (n - 1) * g
        elif op == 'exp':
            self._prev[0].grad += self.data * g
        elif op == 'log':
            self._prev[0].grad += g / self._prev[0].data
        elif op == 'tanh':
            self._prev[0].grad += (1 - self.data ** 2) * g
        elif op == 'relu':
            self._prev[0].grad += (self._prev[0].data > 0) * g
        elif op == 'sigmoid':
            self._prev[0].grad += self.data * (1 - self.data) * g

    @staticmethod
    def _v(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._v(other)
        return Value(self.data + other.data, (self, other), '+')

    def __mul__(self, other):
        other = Value._v(other)
        return Value(self.data * other.data, (self, other), '*')

    def __pow__(self, n):
        if not isinstance(n, (int, float)):
            raise TypeError("exponent must be int or float")
        out = Value(self.data ** n, (self,), '**')
        out._exponent = n
        return out

    def exp(self):
        return Value(math.exp(self.data), (self,), 'exp')

    def log(self):
        return Value(math.log(self.data), (self,), 'log')

    def tanh(self):
        return Value(math.tanh(self.data), (self,), 'tanh')

    def relu(self):
        return Value(self.data if self.data > 0 else 0.0, (self,), 'relu')

    def sigmoid(self):
        return Value(1 / (1 + math.exp(-self.data)), (self,), 'sigmoid')

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

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
