"""Lab 02 engine: one subclass per operation, each with a local_grads() method; one generic
_backward; - and / composed from +, * and **."""
import math


def _leaf_backward():
    return None


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        return Add(self, _as_value(other))

    def __radd__(self, other):
        return Add(_as_value(other), self)

    def __mul__(self, other):
        return Mul(self, _as_value(other))

    def __rmul__(self, other):
        return Mul(_as_value(other), self)

    def __pow__(self, n):
        if type(n) not in (int, float):
            raise TypeError(f"unsupported exponent {n!r}: use an int or a float")
        return Pow(self, n)

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-_as_value(other))

    def __rsub__(self, other):
        return _as_value(other) + (-self)

    def __truediv__(self, other):
        return self * _as_value(other) ** -1

    def __rtruediv__(self, other):
        return _as_value(other) * self ** -1

    def exp(self):
        return Exp(self)

    def log(self):
        return Log(self)

    def tanh(self):
        return Tanh(self)

    def relu(self):
        return Relu(self)

    def sigmoid(self):
        return Sigmoid(self)

    def backward(self):
        # Kahn's algorithm over the nodes reachable from self
        reach, stack, users = {id(self): self}, [self], {}
        while stack:
            v = stack.pop()
            for p in v._prev:
                users[id(p)] = users.get(id(p), 0) + 1
                if id(p) not in reach:
                    reach[id(p)] = p
                    stack.append(p)
        self.grad = 1.0
        ready = [self]
        while ready:
            v = ready.pop()
            v._backward()
            for p in v._prev:
                users[id(p)] -= 1
                if users[id(p)] == 0:
                    ready.append(p)

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


class Op(Value):
    """A node made by an operation: _backward adds local_grads() times self.grad to the parents."""

    def __init__(self, data, parents, label):
        super().__init__(data, parents, label)
        self._backward = self._chain

    def _chain(self):
        for parent, local in zip(self._prev, self.local_grads()):
            parent.grad += local * self.grad


class Add(Op):
    def __init__(self, x, y):
        super().__init__(x.data + y.data, (x, y), '+')

    def local_grads(self):
        return (1.0, 1.0)


class Mul(Op):
    def __init__(self, x, y):
        super().__init__(x.data * y.data, (x, y), '*')

    def local_grads(self):
        x, y = self._prev
        return (y.data, x.data)


class Pow(Op):
    def __init__(self, x, n):
        self.n = n
        super().__init__(x.data ** n, (x,), f'**{n}')

    def local_grads(self):
        return (self.n * self._prev[0].data ** (self.n - 1),)


class Exp(Op):
    def __init__(self, x):
        super().__init__(math.exp(x.data), (x,), 'exp')

    def local_grads(self):
        return (self.data,)


class Log(Op):
    def __init__(self, x):
        super().__init__(math.log(x.data), (x,), 'log')

    def local_grads(self):
        return (1.0 / self._prev[0].data,)


class Tanh(Op):
    def __init__(self, x):
        super().__init__(math.tanh(x.data), (x,), 'tanh')

    def local_grads(self):
        return (1.0 - self.data ** 2,)


class Relu(Op):
    def __init__(self, x):
        super().__init__(max(0.0, x.data), (x,), 'ReLU')

    def local_grads(self):
        return (1.0 if self._prev[0].data > 0 else 0.0,)


class Sigmoid(Op):
    def __init__(self, x):
        z = x.data
        if z >= 0:
            s = 1.0 / (1.0 + math.exp(-z))
        else:
            e = math.exp(z)
            s = e / (1.0 + e)
        super().__init__(s, (x,), 'sigmoid')

    def local_grads(self):
        return (self.data * (1.0 - self.data),)
