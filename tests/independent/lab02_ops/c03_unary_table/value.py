import math


def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


class Value:
    # name -> (f(x), f'(x) written from x and y = f(x))
    UNARY = {
        'exp': (math.exp, lambda x, y: y),
        'log': (math.log, lambda x, y: 1.0 / x),
        'tanh': (math.tanh, lambda x, y: 1.0 - y * y),
        'relu': (lambda x: x if x > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0),
        'sigmoid': (_sigmoid, lambda x, y: y * (1.0 - y)),
    }

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def _unary(self, name):
        f, df = Value.UNARY[name]
        out = Value(f(self.data), (self,), name)

        def _backward():
            self.grad += df(self.data, out.data) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        return self._unary('exp')

    def log(self):
        return self._unary('log')

    def tanh(self):
        return self._unary('tanh')

    def relu(self):
        return self._unary('relu')

    def sigmoid(self):
        return self._unary('sigmoid')

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

    def __pow__(self, k):
        if not isinstance(k, (int, float)):
            raise TypeError("exponent must be an int or a float")
        out = Value(self.data ** k, (self,), f'**{k}')

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return self ** -1 * other

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
