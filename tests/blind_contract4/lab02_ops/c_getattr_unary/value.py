"""Lab 02: the one-input functions come from a table, served by __getattr__; -, / are composed."""
from math import exp, log, tanh


def _sigmoid(x):
    if x >= 0:
        return 1 / (1 + exp(-x))
    z = exp(x)
    return z / (1 + z)


# name: (forward f(x), local derivative from (x, y = f(x)))
UNARY = {
    'exp': (exp, lambda x, y: y),
    'log': (log, lambda x, y: 1 / x),
    'tanh': (tanh, lambda x, y: 1 - y * y),
    'relu': (lambda x: x if x > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0),
    'sigmoid': (_sigmoid, lambda x, y: y * (1 - y)),
}


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __getattr__(self, name):
        if name not in UNARY:
            raise AttributeError(name)
        f, df = UNARY[name]

        def apply():
            x = self.data
            out = Value(f(x), (self,), name)

            def _backward():
                self.grad += df(x, out.data) * out.grad
            out._backward = _backward
            return out
        return apply

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

    def __pow__(self, n):
        assert isinstance(n, (int, float)), "only int or float powers"
        out = Value(self.data ** n, (self,), f'**{n}')

        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def backward(self):
        topo, visited = [], set()
        stack = [(self, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0:
                if node in visited:
                    continue
                visited.add(node)
            parents = node._prev
            if i < len(parents):
                stack.append((node, i + 1))
                if parents[i] not in visited:
                    stack.append((parents[i], 0))
            else:
                topo.append(node)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
