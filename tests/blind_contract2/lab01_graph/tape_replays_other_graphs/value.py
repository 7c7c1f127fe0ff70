"""A scalar autograd engine that records every operation on a tape (a Wengert list) as it is made.

The tape holds weak references only, so it keeps no node alive and stores no number: backward()
collects the nodes the output depends on and replays the tape from its end, calling the
_backward of those nodes only.
"""
import weakref

_TAPE = []          # weak references to the operation nodes, in the order they were made
_PRUNE_EVERY = 4096


def _leaf_backward():
    pass


def _record(node):
    """Put a new operation node at the end of the tape (dropping dead entries now and then)."""
    if len(_TAPE) % _PRUNE_EVERY == 0 and _TAPE:
        _TAPE[:] = [r for r in _TAPE if r() is not None]
    node._position = len(_TAPE)
    _TAPE.append(weakref.ref(node))


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._backward = _leaf_backward
        self._position = -1

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        _record(out)
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        _record(out)
        return out

    def __radd__(self, other):
        return Value(other) + self

    def __rmul__(self, other):
        return Value(other) * self

    def _reachable(self):
        seen, stack = {id(self): self}, [self]
        while stack:
            for parent in stack.pop()._prev:
                if id(parent) not in seen:
                    seen[id(parent)] = parent
                    stack.append(parent)
        return seen

    def backward(self):
        needed = self._reachable()
        self.grad = 1.0
        # replay the tape backwards: a node is always recorded after its parents
        for ref in reversed(_TAPE):
            node = ref()
            if node is not None:
                node._backward()
        for node in needed.values():
            if node._position < 0:
                node._backward()   # the leaves (nothing to do, but every node's _backward is called)
