"""A scalar autograd engine assembled from two mixins, ordered by creation stamps.

ArithmeticMixin holds the operators, BackpropMixin the backward pass. Every node gets a
stamp from a module-level itertools.count when it is made; a node is always made after its
parents, so sorting the reachable nodes by stamp, newest first, is a reverse topological order.
"""
import itertools

_STAMPS = itertools.count()


def _leaf_backward():
    return None


class ArithmeticMixin:
    def _lift(self, other):
        return other if isinstance(other, type(self)) else type(self)(other)

    def __add__(self, other):
        other = self._lift(other)
        out = type(self)(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._lift(other)
        out = type(self)(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self._lift(other) + self

    def __rmul__(self, other):
        return self._lift(other) * self


class BackpropMixin:
    def _reachable(self):
        seen = {id(self): self}
        todo = [self]
        while todo:
            node = todo.pop()
            for parent in node._prev:
                if id(parent) not in seen:
                    seen[id(parent)] = parent
                    todo.append(parent)
        return list(seen.values())

    def backward(self):
        nodes = sorted(self._reachable(), key=lambda node: node._stamp, reverse=True)
        self.grad = 1.0
        for node in nodes:
            node._backward()


class Value(ArithmeticMixin, BackpropMixin):
    def __init__(self, data, _children=(), _op='', _stamp=next(_STAMPS)):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op
        self._stamp = _stamp

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
