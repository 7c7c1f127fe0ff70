"""Scalar autograd whose operations are made by two factories, `_binary` and `_unary`, and fixed on
the class after it is defined.

Each factory takes the forward function and a function giving the local derivatives from the
input(s) and the output, and returns the method. The factories' arguments are bound when the
method is made, so every method keeps its own functions.
"""
import math


def _leaf_backward():
    return None


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __pow__(self, exponent):
        if type(exponent) not in (int, float):
            raise TypeError(f"unsupported exponent {exponent!r}: an int or a float only")
        return _unary(lambda x: x ** exponent, lambda x, y: exponent * x ** (exponent - 1),
                      f'**{exponent}')(self)

    def backward(self):
        order, done = [], set()
        for start in (self,):
            path = [(start, iter(start._prev))]
            done.add(id(start))
            while path:
                node, parents = path[-1]
                for parent in parents:
                    if id(parent) not in done:
                        done.add(id(parent))
                        path.append((parent, iter(parent._prev)))
                        break
                else:
                    path.pop()
                    order.append(node)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)


def _binary(forward, derivatives, label, reflected=False):
    """The method computing `self <label> other` (or `other <label> self` when reflected)."""
    def method(self, other):
        left, right = (_as_value(other), self) if reflected else (self, _as_value(other))
        out = Value(forward(left.data, right.data), (left, right), label)

        def _backward():
            d_left, d_right = derivatives(left.data, right.data)
            left.grad += d_left * out.grad
            right.grad += d_right * out.grad
        out._backward = _backward
        return out
    return method


def _unary(forward, derivative, label):
    """The method computing a function of self alone; `derivative(x, y)` reads input and output."""
    def method(self):
        out = Value(forward(self.data), (self,), label)

        def _backward():
            self.grad += derivative(self.data, out.data) * out.grad
        out._backward = _backward
        return out
    return method


def _sigmoid(x):
    z = math.exp(-abs(x))
    return 1.0 / (1.0 + z) if x >= 0 else z / (1.0 + z)


Value.__add__ = _binary(lambda x, y: x + y, lambda x, y: (1.0, 1.0), '+')
Value.__radd__ = _binary(lambda x, y: x + y, lambda x, y: (1.0, 1.0), '+', reflected=True)
Value.__mul__ = _binary(lambda x, y: x * y, lambda x, y: (y, x), '*')
Value.__rmul__ = _binary(lambda x, y: x * y, lambda x, y: (y, x), '*', reflected=True)
Value.__sub__ = _binary(lambda x, y: x - y, lambda x, y: (1.0, -1.0), '-')
Value.__rsub__ = _binary(lambda x, y: x - y, lambda x, y: (1.0, -1.0), '-', reflected=True)
Value.__truediv__ = _binary(lambda x, y: x / y, lambda x, y: (1.0 / y, -x / (y * y)), '/')
Value.__rtruediv__ = _binary(lambda x, y: x / y, lambda x, y: (1.0 / y, -x / (y * y)), '/', reflected=True)
Value.__neg__ = _unary(lambda x: -x, lambda x, y: -1.0, 'neg')
Value.exp = _unary(math.exp, lambda x, y: y, 'exp')
Value.log = _unary(math.log, lambda x, y: 1.0 / x, 'log')
Value.tanh = _unary(math.tanh, lambda x, y: 1.0 - y * y, 'tanh')
Value.relu = _unary(lambda x: x if x > 0 else 0.0, lambda x, y: 1.0 if x > 0 else 0.0, 'relu')
Value.sigmoid = _unary(_sigmoid, lambda x, y: y * (1.0 - y), 'sigmoid')
