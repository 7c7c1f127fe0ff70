"""Lab 02: binary operators take their right operand through a decorator that lifts numbers."""
import functools
import math


def lifts_number(method):
    """Turn a plain-number operand into a leaf Value before the operator sees it."""
    @functools.wraps(method)
    def wrapper(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        return method(self, other)
    return wrapper


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @lifts_number
    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    @lifts_number
    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    @lifts_number
    def __radd__(self, other):
        return other + self

    @lifts_number
    def __rmul__(self, other):
        return other * self

    @lifts_number
    def __sub__(self, other):
        out = Value(self.data - other.data, (self, other), '-')

        def _backward():
            self.grad += out.grad
            other.grad += -out.grad
        out._backward = _backward
        return out

    @lifts_number
    def __rsub__(self, other):
        return other - self

    @lifts_number
    def __truediv__(self, other):
        out = Value(self.data / other.data, (self, other), '/')

        def _backward():
            self.grad += out.grad / other.data
            other.grad += -self.data / (other.data * other.data) * out.grad
        out._backward = _backward
        return out

    @lifts_number
    def __rtruediv__(self, other):
        return other / self

    @lifts_number
    def __neg__(self):
        out = Value(-self.data, (self,), 'neg')

        def _backward():
            self.grad += -out.grad
        out._backward = _backward
        return out

    def __pow__(self, n):
        if not isinstance(n, (int, float)):
            raise TypeError("the exponent must be an int or a float")
        out = Value(self.data ** n, (self,), f'**{n}')

        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def _backward():
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'relu')

        def _backward():
            self.grad += (out.grad if self.data > 0 else 0.0)
        out._backward = _backward
        return out

    @staticmethod
    def _stable_sigmoid(x):
        if x >= 0:
            return 1 / (1 + math.exp(-x))
        z = math.exp(x)
        return z / (1 + z)

    def sigmoid(self):
        out = Value(self._stable_sigmoid(self.data), (self,), 'sigmoid')

        def _backward():
            self.grad += out.data * (1 - out.data) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        stack = [iter([self])]
        path = []
        while stack:
            for node in stack[-1]:
                if node not in visited:
                    visited.add(node)
                    path.append(node)
                    stack.append(iter(node._prev))
                    break
            else:
                stack.pop()
                if path:
                    topo.append(path.pop())
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
