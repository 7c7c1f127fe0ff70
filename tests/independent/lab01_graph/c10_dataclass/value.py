from dataclasses import dataclass, field
from typing import Callable


def _nothing():
    return None


@dataclass(eq=False)
class Value:
    data: float
    _children: tuple = ()
    _op: str = ''
    grad: float = field(default=0.0, init=False)
    _backward: Callable = field(default_factory=lambda: _nothing, init=False, repr=False)
    _prev: tuple = field(default=(), init=False, repr=False)

    def __post_init__(self):
        self._prev = tuple(self._children)

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

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        topo = []
        visited = set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
