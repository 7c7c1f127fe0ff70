"""A scalar autograd engine whose operations are descriptor objects.

`Op(forward, derivatives, label)` is a descriptor: read from a Value it returns a function
bound to that Value, which wraps a plain-number operand, computes the result with `forward`
and the local derivatives with `derivatives(x, y, out)` when the closure runs. Every operator
is one class attribute holding an Op; reflected operators swap the operands.
"""
import math


def _leaf_backward():
    return None


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


class Op:
    """A descriptor that makes one kind of node; `reflected` swaps the two operands."""

    def __init__(self, forward, derivatives, label, reflected=False):
        self.forward = forward
        self.derivatives = derivatives
        self.label = label
        self.reflected = reflected

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if not hasattr(self, 'bound'):  # make the bound function once and reuse it
            self.bound = lambda *operand: self.build(instance, *operand)
        return self.bound

    def build(self, node, *operand):
        parents = [node]
        if operand:
            other = operand[0] if isinstance(operand[0], Value) else Value(operand[0])
            parents = [other, node] if self.reflected else [node, other]
        out = Value(self.forward(*(p.data for p in parents)), tuple(parents), self.label)

        def _backward():
            locals_ = self.derivatives(*(p.data for p in parents), out.data)
            for parent, local in zip(parents, locals_):
                parent.grad += local * out.grad
        out._backward = _backward
        return out


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    __add__ = Op(lambda x, y: x + y, lambda x, y, out: (1.0, 1.0), '+')
    __radd__ = Op(lambda x, y: x + y, lambda x, y, out: (1.0, 1.0), '+', reflected=True)
    __mul__ = Op(lambda x, y: x * y, lambda x, y, out: (y, x), '*')
    __rmul__ = Op(lambda x, y: x * y, lambda x, y, out: (y, x), '*', reflected=True)
    __sub__ = Op(lambda x, y: x - y, lambda x, y, out: (1.0, -1.0), '-')
    __rsub__ = Op(lambda x, y: x - y, lambda x, y, out: (1.0, -1.0), '-', reflected=True)
    __truediv__ = Op(lambda x, y: x / y, lambda x, y, out: (1.0 / y, -x / y ** 2), '/')
    __rtruediv__ = Op(lambda x, y: x / y, lambda x, y, out: (1.0 / y, -x / y ** 2), '/', reflected=True)
    __neg__ = Op(lambda x: -x, lambda x, out: (-1.0,), 'neg')
    exp = Op(math.exp, lambda x, out: (out,), 'exp')
    log = Op(math.log, lambda x, out: (1.0 / x,), 'log')
    tanh = Op(math.tanh, lambda x, out: (1.0 - out * out,), 'tanh')
    relu = Op(lambda x: x if x > 0 else 0.0, lambda x, out: (1.0 if x > 0 else 0.0,), 'ReLU')
    sigmoid = Op(_sigmoid, lambda x, out: (out * (1.0 - out),), 'sigmoid')

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"the exponent must be an int or a float, not {type(k).__name__}")
        return Op(lambda x: x ** k, lambda x, out: (k * x ** (k - 1),), f'**{k}').build(self)

    def backward(self):
        order, state, finished, stack = [], {}, set(), [self]
        while stack:
            node = stack[-1]
            if id(node) not in state:
                state[id(node)] = node
                stack.extend(p for p in node._prev if id(p) not in state)
            else:
                stack.pop()
                if id(node) not in finished:
                    finished.add(id(node))
                    order.append(node)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
