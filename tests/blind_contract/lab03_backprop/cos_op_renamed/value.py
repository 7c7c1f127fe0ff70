"""Lab 03 engine: DFS with a per-node index of the next parent to look at and Enum colours;
zero_grad breadth-first with a deque; numerical_grad through a helper that evaluates f at a
shifted copy of one input's number."""
import collections
import enum
import math


class Colour(enum.Enum):
    GREY = 1   # on the current path
    BLACK = 2  # finished


def _leaf_backward():
    return None


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._label = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        if not isinstance(other, (int, float)):
            raise TypeError("only int or float exponents are supported")
        out = Value(self.data ** other, (self,), f'**{other}')

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def _backward():
            self.grad += (1 / self.data) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')

        def _backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad
        out._backward = _backward
        return out

    def sigmoid(self):
        x = self.data
        if x >= 0:
            s = 1 / (1 + math.exp(-x))
        else:
            s = math.exp(x) / (1 + math.exp(x))
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def backward(self):
        colour = {self: Colour.GREY}
        nxt = {self: 0}
        path, order = [self], []
        while path:
            node = path[-1]
            i = nxt[node]
            if i == len(node._prev):
                path.pop()
                colour[node] = Colour.BLACK
                order.append(node)
                continue
            nxt[node] = i + 1
            parent = node._prev[i]
            state = colour.get(parent)
            if state is Colour.GREY:
                raise RuntimeError(f"cycle: {parent!r} is its own ancestor")
            if state is None:
                colour[parent] = Colour.GREY
                nxt[parent] = 0
                path.append(parent)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


def zero_grad(nodes):
    queue = collections.deque([nodes] if isinstance(nodes, Value) else nodes)
    seen = set(queue)
    while queue:
        v = queue.popleft()
        v.grad = 0.0
        for p in v._prev:
            if p not in seen:
                seen.add(p)
                queue.append(p)


def _f_at(f, xs, x, value):
    """f(*xs).data with x.data set to value; x.data is put back afterwards."""
    kept = x.data
    x.data = value
    try:
        return f(*xs).data
    finally:
        x.data = kept


def numerical_grad(f, xs, h=1e-6):
    return [(_f_at(f, xs, x, x.data + h) - _f_at(f, xs, x, x.data - h)) / (2 * h) for x in xs]


def check_grad(f, xs, tol=1e-4):
    out = f(*xs)
    zero_grad([out])
    out.backward()
    pairs = zip([x.grad for x in xs], numerical_grad(f, xs))
    return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in pairs)
