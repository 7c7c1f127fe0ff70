"""Lab 03 engine: __slots__ with __weakref__, visited sets as weakref.WeakSet, Kahn's algorithm
whose leftover nodes reveal a cycle; numerical_grad snapshots every input first."""
import math
import weakref


def _leaf_backward():
    return None


class Value:
    __slots__ = ('data', 'grad', '_backward', '_prev', '_op', '__weakref__')

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

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
        reached = weakref.WeakSet([self])
        pending = [self]
        users = {}
        while pending:
            v = pending.pop()
            for p in v._prev:
                users[p] = users.get(p, 0) + 1
                if p not in reached:
                    reached.add(p)
                    pending.append(p)
        if users.get(self, 0):
            raise ValueError("cycle through the output")
        order = []
        ready = [self]
        while ready:
            v = ready.pop()
            order.append(v)
            for p in v._prev:
                users[p] -= 1
                if users[p] == 0:
                    ready.append(p)
        if len(order) != len(reached):
            raise ValueError("the graph below the output has a cycle")
        self.grad = 1.0
        for v in order:
            v._backward()


def zero_grad(nodes):
    todo = [nodes] if isinstance(nodes, Value) else list(nodes)
    seen = weakref.WeakSet(todo)
    while todo:
        v = todo.pop()
        v.grad = 0.0
        for p in v._prev:
            if p not in seen:
                seen.add(p)
                todo.append(p)


def numerical_grad(f, xs, h=1e-6):
    snapshot = [x.data for x in xs]
    result = []
    try:
        for i, x in enumerate(xs):
            x.data = snapshot[i] + h
            plus = f(*xs).data
            x.data = snapshot[i] - h
            minus = f(*xs).data
            x.data = snapshot[i]
            result.append((plus - minus) / (2 * h))
    finally:
        for x, kept in zip(xs, snapshot):
            x.data = kept
    return tuple(result)


def check_grad(f, xs, tol=1e-4):
    out = f(*xs)
    zero_grad(out)
    out.backward()
    got = [x.grad for x in xs]
    want = numerical_grad(f, xs)
    return len(got) == len(want) and all(abs(g - w) <= tol * max(1, abs(w)) for g, w in zip(got, want))
