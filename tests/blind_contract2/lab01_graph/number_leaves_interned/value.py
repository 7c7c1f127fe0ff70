"""Scalar autograd where each operation is a subclass of Value registered by __init_subclass__.

`class Sum(Value, symbol='+')` puts Sum in Value._operations under '+'; Value.__add__ and
Value.__mul__ look their node class up there. Each operation class says how it computes its
number (`forward`) and the local derivative for each parent (`partials`); one generic
_backward, bound per node, applies the chain rule.
"""


def _leaf_backward():
    return None


class Value:
    _operations = {}

    def __init_subclass__(cls, symbol='', **kwargs):
        super().__init_subclass__(**kwargs)
        if symbol:
            Value._operations[symbol] = cls

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._backward = _leaf_backward

    def __repr__(self):
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    _constants = {}

    @staticmethod
    def _lift(x):
        if isinstance(x, Value):
            return x
        if x not in Value._constants:  # one leaf per constant, reused
            Value._constants[x] = Value(x)
        return Value._constants[x]

    @classmethod
    def _apply(cls, symbol, *operands):
        node_class = cls._operations[symbol]
        parents = tuple(Value._lift(x) for x in operands)
        return node_class(parents)

    def __add__(self, other):
        return Value._apply('+', self, other)

    def __radd__(self, other):
        return Value._apply('+', other, self)

    def __mul__(self, other):
        return Value._apply('*', self, other)

    def __rmul__(self, other):
        return Value._apply('*', other, self)

    def backward(self):
        # post-order with an explicit stack of (node, parents already pushed?) pairs
        order, placed, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in placed:
                continue
            placed.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node._prev if id(p) not in placed)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


class _Operation(Value):
    symbol = ''

    def __init__(self, parents):
        super().__init__(self.forward(*(p.data for p in parents)), parents, type(self).symbol)
        self._backward = self._chain

    def _chain(self):
        for parent, local in zip(self._prev, self.partials(*(p.data for p in self._prev))):
            parent.grad += local * self.grad


class Sum(_Operation, symbol='+'):
    symbol = '+'

    @staticmethod
    def forward(x, y):
        return x + y

    @staticmethod
    def partials(x, y):
        return (1.0, 1.0)


class Product(_Operation, symbol='*'):
    symbol = '*'

    @staticmethod
    def forward(x, y):
        return x * y

    @staticmethod
    def partials(x, y):
        return (y, x)
