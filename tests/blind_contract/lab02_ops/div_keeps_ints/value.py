"""Lab 02 engine: the one-input functions come from a table through functools.partialmethod;
-, unary - and / are nodes of their own."""
import functools
import math


def _leaf_backward():
    return None


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._lift(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value._lift(other)
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

    def _unary(self, f, df, label):
        """A node f(self); df(x, y) is its local derivative, from the input x and the output y."""
        out = Value(f(self.data), (self,), label)

        def _backward():
            self.grad += df(self.data, out.data) * out.grad
        out._backward = _backward
        return out

    exp = functools.partialmethod(_unary, math.exp, lambda x, y: y, 'exp')
    log = functools.partialmethod(_unary, math.log, lambda x, y: 1.0 / x, 'log')
    tanh = functools.partialmethod(_unary, math.tanh, lambda x, y: 1.0 - y * y, 'tanh')
    relu = functools.partialmethod(_unary, lambda x: x if x > 0 else 0.0,
                                   lambda x, y: 1.0 if x > 0 else 0.0, 'ReLU')
    sigmoid = functools.partialmethod(_unary, _sigmoid, lambda x, y: y * (1.0 - y), 'sigmoid')
    __neg__ = functools.partialmethod(_unary, lambda x: -x, lambda x, y: -1.0, 'neg')

    def __pow__(self, n):
        if not isinstance(n, (int, float)):
            raise TypeError("the exponent must be an int or a float")
        return self._unary(lambda x: x ** n, lambda x, y: n * x ** (n - 1), f'**{n}')

    def __sub__(self, other):
        other = Value._lift(other)
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad
        out._backward = _backward
        return out

    def __rsub__(self, other):
        return Value._lift(other) - self

    def __truediv__(self, other):
        other = Value._lift(other)
        both_int = isinstance(self.data, int) and isinstance(other.data, int)
        out = Value(self.data // other.data if both_int else self.data / other.data, (self, other), '/')

        def _backward():
            self.grad += out.grad / other.data
            other.grad -= self.data / other.data / other.data * out.grad
        out._backward = _backward
        return out

    def __rtruediv__(self, other):
        return Value._lift(other) / self

    def backward(self):
        topo, visited, stack = [], set(), [(self, False)]
        while stack:
            v, ready = stack.pop()
            if ready:
                topo.append(v)
            elif v not in visited:
                visited.add(v)
                stack.append((v, True))
                stack.extend((p, False) for p in v._prev)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
