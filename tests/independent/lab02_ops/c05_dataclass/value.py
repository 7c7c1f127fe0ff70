import math
from dataclasses import dataclass, field


@dataclass(eq=False, repr=False)
class Value:
    data: float
    _children: tuple = ()
    _op: str = ''
    grad: float = field(default=0.0, init=False)

    def __post_init__(self):
        self._prev = tuple(self._children)
        self._backward = lambda: None

    def __repr__(self):
        return f"Value({self.data!r})"

    @classmethod
    def of(cls, x):
        return x if isinstance(x, cls) else cls(x)

    def __add__(self, other):
        other = Value.of(other)
        out = Value(self.data + other.data, (self, other), '+')

        def back():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = back
        return out

    def __mul__(self, other):
        other = Value.of(other)
        out = Value(self.data * other.data, (self, other), '*')

        def back():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = back
        return out

    def __pow__(self, p):
        if not isinstance(p, (int, float)):
            raise TypeError("power must be int or float")
        out = Value(self.data ** p, (self,), f'**{p}')

        def back():
            self.grad += p * self.data ** (p - 1) * out.grad
        out._backward = back
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-Value.of(other))

    def __rsub__(self, other):
        return Value.of(other) + (-self)

    def __truediv__(self, other):
        return self * Value.of(other) ** -1

    def __rtruediv__(self, other):
        return Value.of(other) * self ** -1

    __radd__ = __add__
    __rmul__ = __mul__

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def back():
            self.grad += out.data * out.grad
        out._backward = back
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def back():
            self.grad += out.grad / self.data
        out._backward = back
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def back():
            self.grad += (1 - out.data ** 2) * out.grad
        out._backward = back
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')

        def back():
            self.grad += (self.data > 0) * out.grad
        out._backward = back
        return out

    def sigmoid(self):
        out = Value(1 / (1 + math.exp(-self.data)), (self,), 'sigmoid')

        def back():
            self.grad += out.data * (1 - out.data) * out.grad
        out._backward = back
        return out

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if v not in seen:
                seen.add(v)
                for c in v._prev:
                    build(c)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
