"""Lab 01: the operators are written as plain functions and installed on Value by a loop."""
from collections import deque


def _nothing():
    pass


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _nothing
        self._prev = list(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def backward(self):
        # iterative post-order: a node goes to the front of `order` once all its parents are done
        order = deque()
        done = set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.appendleft(node)
                continue
            if node in done:
                continue
            done.add(node)
            for p in node._prev:
                if p not in done:
                    stack.append((p, False))
            stack.append((node, True))
        self.grad = 1.0
        for node in order:
            node._backward()


def _wrap(x):
    return x if isinstance(x, Value) else Value(x)


def add(a, b):
    a, b = _wrap(a), _wrap(b)
    out = Value(a.data + b.data, (a, b), '+')

    def _backward():
        a.grad += out.grad
        b.grad += out.grad
    out._backward = _backward
    return out


def mul(a, b):
    a, b = _wrap(a), _wrap(b)
    out = Value(a.data * b.data, (a, b), '*')

    def _backward():
        a.grad += b.data * out.grad
        b.grad += a.data * out.grad
    out._backward = _backward
    return out


for _name, _fn in {'__add__': add, '__mul__': mul,
                   '__radd__': lambda self, other: add(other, self),
                   '__rmul__': lambda self, other: mul(other, self)}.items():
    setattr(Value, _name, _fn)
