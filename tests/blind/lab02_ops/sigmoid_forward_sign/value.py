"""Lab 02: the functions of one Value come from a table of (forward, derivative)."""

import math

# name -> (f(x), f'(x) written with x = the input and y = f(x), the output)
UNARY = {
    'exp': (math.exp, lambda x, y: y),
    'log': (math.log, lambda x, y: 1.0 / x),
    'tanh': (math.tanh, lambda x, y: 1.0 - y * y),
    'relu': (lambda x: x if x > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0),
    'sigmoid': (lambda x: 1.0 / (1.0 + math.exp(x)), lambda x, y: y * (1.0 - y)),
}


def _leaf_backward():
    return None


def _wrap(x):
    return x if isinstance(x, Value) else Value(x)


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        other = _wrap(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = _wrap(other)
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

    def __pow__(self, n):
        if isinstance(n, bool) or not isinstance(n, (int, float)):
            raise TypeError(f"unsupported exponent type: {type(n).__name__}")
        out = Value(self.data ** n, (self,), f'**{n}')

        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        return -1 * self

    def __sub__(self, other):
        return self + -_wrap(other)

    def __rsub__(self, other):
        return _wrap(other) + -self

    def __truediv__(self, other):
        return self * _wrap(other) ** -1

    def __rtruediv__(self, other):
        return _wrap(other) * self ** -1

    def _unary(self, name):
        f, df = UNARY[name]
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

    def backward(self):
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            v, expanded = stack.pop()
            if expanded:
                topo.append(v)
            elif v not in visited:
                visited.add(v)
                stack.append((v, True))
                for child in v._prev:
                    stack.append((child, False))
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
