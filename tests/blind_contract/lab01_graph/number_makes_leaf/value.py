"""Lab 01 engine: operators from one table through functools.partialmethod, traversal by a generator."""
import functools
import operator


def _leaf_backward():
    return None


def _add_partials(x, y):
    return 1.0, 1.0


def _mul_partials(x, y):
    return y, x


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def _binary(self, other, forward, partials, label, reflected=False):
        if not isinstance(other, Value):
            return Value(forward(self.data, other))
        left, right = (other, self) if reflected else (self, other)
        out = Value(forward(left.data, right.data), (left, right), label)

        def _backward():
            dl, dr = partials(left.data, right.data)
            left.grad += dl * out.grad
            right.grad += dr * out.grad
        out._backward = _backward
        return out

    __add__ = functools.partialmethod(_binary, forward=operator.add, partials=_add_partials, label='+')
    __mul__ = functools.partialmethod(_binary, forward=operator.mul, partials=_mul_partials, label='*')
    __radd__ = functools.partialmethod(_binary, forward=operator.add, partials=_add_partials, label='+',
                                       reflected=True)
    __rmul__ = functools.partialmethod(_binary, forward=operator.mul, partials=_mul_partials, label='*',
                                       reflected=True)

    def _postorder(self):
        """Yield every node below self once, parents before the nodes that use them."""
        seen = {id(self)}
        frames = [(self, iter(self._prev))]
        while frames:
            node, parents = frames[-1]
            for parent in parents:
                if id(parent) not in seen:
                    seen.add(id(parent))
                    frames.append((parent, iter(parent._prev)))
                    break
            else:
                frames.pop()
                yield node

    def backward(self):
        order = list(self._postorder())
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
