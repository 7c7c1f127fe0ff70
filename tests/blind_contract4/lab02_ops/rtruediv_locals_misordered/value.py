"""Lab 02: every node stores its local derivatives when it is built; one method passes them on."""
import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._local = ()  # d(self)/d(parent), one number per parent, in the order of _prev
        self._backward = self._pass_on

    def _pass_on(self):
        for parent, derivative in zip(self._prev, self._local):
            parent.grad += derivative * self.grad

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Value) else Value(x)

    @staticmethod
    def _node(data, parents, local, op):
        out = Value(data, parents, op)
        out._local = tuple(local)
        return out

    # --- lab 01
    def __add__(self, other):
        other = Value._lift(other)
        return Value._node(self.data + other.data, (self, other), (1.0, 1.0), '+')

    def __mul__(self, other):
        other = Value._lift(other)
        return Value._node(self.data * other.data, (self, other), (other.data, self.data), '*')

    def __radd__(self, other):
        return Value._lift(other) + self

    def __rmul__(self, other):
        return Value._lift(other) * self

    # --- lab 02
    def __pow__(self, n):
        if isinstance(n, bool) or not isinstance(n, (int, float)):
            raise TypeError(f"unsupported exponent type: {type(n).__name__}")
        x = self.data
        return Value._node(x ** n, (self,), (n * x ** (n - 1),), f'**{n}')

    def __neg__(self):
        return Value._node(-self.data, (self,), (-1.0,), 'neg')

    def __sub__(self, other):
        other = Value._lift(other)
        return Value._node(self.data - other.data, (self, other), (1.0, -1.0), '-')

    def __rsub__(self, other):
        other = Value._lift(other)
        return Value._node(other.data - self.data, (other, self), (1.0, -1.0), '-')

    def __truediv__(self, other):
        other = Value._lift(other)
        x, y = self.data, other.data
        return Value._node(x / y, (self, other), (1 / y, -x / (y * y)), '/')

    def __rtruediv__(self, other):
        other = Value._lift(other)
        x, y = other.data, self.data
        return Value._node(x / y, (self, other), (1 / y, -x / (y * y)), '/')

    def exp(self):
        e = math.exp(self.data)
        return Value._node(e, (self,), (e,), 'exp')

    def log(self):
        x = self.data
        return Value._node(math.log(x), (self,), (1 / x,), 'log')

    def tanh(self):
        t = math.tanh(self.data)
        return Value._node(t, (self,), (1 - t * t,), 'tanh')

    def relu(self):
        x = self.data
        return Value._node(x if x > 0 else 0.0, (self,), (1.0 if x > 0 else 0.0,), 'relu')

    def sigmoid(self):
        x = self.data
        if x >= 0:
            s = 1 / (1 + math.exp(-x))
        else:
            e = math.exp(x)
            s = e / (1 + e)
        return Value._node(s, (self,), (s * (1 - s),), 'sigmoid')

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                stack.extend((p, False) for p in node._prev if p not in seen)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
