"""Lab 01 engine: a slotted dataclass, and an iterative two-phase post-order walk."""
from dataclasses import dataclass, field
from typing import Callable


def _leaf_backward():
    pass


@dataclass(eq=False, slots=True, repr=False)
class Value:
    data: float
    _children: tuple = ()
    _op: str = ''
    grad: float = field(default=0.0, init=False)
    _prev: tuple = field(default=(), init=False)
    _backward: Callable = field(default=_leaf_backward, init=False)

    def __post_init__(self):
        self._prev = tuple(self._children)

    @staticmethod
    def _wrap(other):
        return other if isinstance(other, Value) else Value(other)

    def __add__(self, other):
        other = Value._wrap(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value._wrap(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            if other is not self:
                other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return Value._wrap(other) + self

    def __rmul__(self, other):
        return Value._wrap(other) * self

    def backward(self):
        order = []
        done = set()
        todo = [(self, False)]
        while todo:
            node, expanded = todo.pop()
            if expanded:
                order.append(node)
                continue
            if node in done:
                continue
            done.add(node)
            todo.append((node, True))
            for parent in node._prev:
                if parent not in done:
                    todo.append((parent, False))
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
