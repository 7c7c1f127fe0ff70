"""Scalar autograd where every operation goes through one method, `_node`, that works out the
number and the local derivatives with a `match` statement on the operation's name.

The local derivatives are computed when the node is built and kept in the closure; the
closure multiplies them by out.grad and adds the products to the parents' gradients.
"""
import math


def _leaf_backward():
    return None


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _wrap(x):
        return x if isinstance(x, Value) else Value(x)

    def _node(self, op, other=None):
        x = self.data
        y = other.data if isinstance(other, Value) else other
        match op:
            case '+':
                data, locals_ = x + y, (1.0, 1.0)
            case '*':
                data, locals_ = x * y, (y, x)
            case '-':
                data, locals_ = x - y, (1.0, -1.0)
            case '/':
                data, locals_ = x / y, (1.0 / y, -x / y ** 2)
            case 'neg':
                data, locals_ = -x, (-1.0,)
            case 'exp':
                data = math.exp(x)
                locals_ = (data,)
            case 'log':
                data, locals_ = math.log(x), (1.0 / x,)
            case 'tanh':
                data = math.tanh(x)
                locals_ = (1.0 - data * data,)
            case 'relu':
                data, locals_ = (x if x > 0 else 0.0), ((1.0 if x > 0 else 0.0),)
            case 'sigmoid':
                data = _sigmoid(x)
                locals_ = (data * (1.0 - data),)
            case ('pow', k):
                data, locals_ = x ** k, (k * x ** (k - 1),)
            case _:
                raise ValueError(f"unknown operation {op!r}")
        parents = (self, other) if len(locals_) == 2 else (self,)
        label = op if isinstance(op, str) else f'**{op[1]}'
        out = Value(data, parents, label)

        def _backward():
            for parent, local in zip(parents, locals_):
                parent.grad += local * out.grad
        out._backward = _backward
        return out

    def __add__(self, other):
        return self._node('+', Value._wrap(other))

    def __radd__(self, other):
        return Value(other)._node('+', self)

    def __mul__(self, other):
        return self._node('*', Value._wrap(other))

    def __rmul__(self, other):
        return Value(other)._node('*', self)

    def __neg__(self):
        return self._node('neg')

    def __sub__(self, other):
        return self._node('-', Value._wrap(other))

    def __rsub__(self, other):
        return Value(other)._node('-', self)

    def __truediv__(self, other):
        return self._node('/', Value._wrap(other))

    def __rtruediv__(self, other):
        return Value(other)._node('/', self)

    def __pow__(self, other):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            raise TypeError("the exponent must be an int or a float")
        return self._node(('pow', other))

    def exp(self):
        return self._node('exp')

    def log(self):
        return self._node('log')

    def tanh(self):
        return self._node('tanh')

    def relu(self):
        return self._node('relu')

    def sigmoid(self):
        return self._node('sigmoid')

    def backward(self):
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                topo.append(node)
            elif node not in visited:
                visited.add(node)
                stack.append((node, True))
                for child in node._prev:
                    if child not in visited:
                        stack.append((child, False))
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()
