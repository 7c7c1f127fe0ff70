"""Lab 02 engine: __slots__ with __weakref__, numerically careful formulas (a two-branch sigmoid,
tanh's derivative as (1 - t)(1 + t)), a recursive generator for short graphs replaced by a
stack of generators."""
import math


def _leaf_backward():
    return None


class Value:
    __slots__ = ('data', 'grad', '_backward', '_prev', '_op', '__weakref__')

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def _node(self, data, parents, label, locals_):
        """A node over `parents`; locals_() gives each parent's local derivative when called."""
        out = Value(data, parents, label)

        def _backward():
            for parent, d in zip(parents, locals_()):
                parent.grad += d * out.grad
        out._backward = _backward
        return out

    @staticmethod
    def _v(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._v(other)
        return self._node(self.data + other.data, (self, other), '+', lambda: (1.0, 1.0))

    def __radd__(self, other):
        return Value._v(other) + self

    def __mul__(self, other):
        other = Value._v(other)
        return self._node(self.data * other.data, (self, other), '*', lambda: (other.data, self.data))

    def __rmul__(self, other):
        return Value._v(other) * self

    def __neg__(self):
        return self._node(-self.data, (self,), 'neg', lambda: (-1.0,))

    def __sub__(self, other):
        other = Value._v(other)
        return self._node(self.data - other.data, (self, other), '-', lambda: (1.0, -1.0))

    def __rsub__(self, other):
        return Value._v(other) - self

    def __truediv__(self, other):
        other = Value._v(other)
        x, y = self, other
        return self._node(x.data / y.data, (x, y), '/', lambda: (1.0 / y.data, -(x.data / y.data) / y.data))

    def __rtruediv__(self, other):
        return Value._v(other) / self

    def __pow__(self, n):
        if isinstance(n, bool) or not isinstance(n, (int, float)):
            raise TypeError("exponent must be an int or a float")
        if isinstance(n, int):
            out = self
            for _ in range(n - 1):
                out = out * self
            return out
        return self._node(self.data ** n, (self,), f'**{n}', lambda: (n * self.data ** (n - 1),))

    def exp(self):
        e = math.exp(self.data)
        return self._node(e, (self,), 'exp', lambda: (e,))

    def log(self):
        return self._node(math.log(self.data), (self,), 'log', lambda: (1.0 / self.data,))

    def tanh(self):
        t = math.tanh(self.data)
        return self._node(t, (self,), 'tanh', lambda: ((1.0 - t) * (1.0 + t),))

    def relu(self):
        x = self.data
        return self._node(x if x > 0 else 0.0, (self,), 'ReLU', lambda: (1.0 if x > 0 else 0.0,))

    def sigmoid(self):
        x = self.data
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            z = math.exp(x)
            s = z / (1.0 + z)
        return self._node(s, (self,), 'sigmoid', lambda: (s * (1.0 - s),))

    def _topo(self):
        """Yield the nodes below self, each once, every node after its parents."""
        seen = {id(self)}

        def walk(node):
            for parent in node._prev:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    yield walk(parent)
            yield node

        stack = [walk(self)]
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
            elif isinstance(item, Value):
                yield item
            else:
                stack.append(item)

    def backward(self):
        order = list(self._topo())
        self.grad = 1.0
        for v in reversed(order):
            v._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
