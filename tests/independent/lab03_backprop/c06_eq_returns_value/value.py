import math


class Value:

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    @staticmethod
    def lift(x):
        return x if isinstance(x, Value) else Value(x)

    def _unary(self, y, dy, op):
        out = Value(y, (self,), op)

        def _backward():
            self.grad += dy(out) * out.grad
        out._backward = _backward
        return out

    def __add__(self, other):
        other = Value.lift(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value.lift(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, n):
        if isinstance(n, Value):
            raise TypeError("Value exponents are not supported")
        return self._unary(self.data ** n, lambda out: n * self.data ** (n - 1), f'**{n}')

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return -self + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def exp(self):
        return self._unary(math.exp(self.data), lambda out: out.data, 'exp')

    def log(self):
        return self._unary(math.log(self.data), lambda out: 1 / self.data, 'log')

    def tanh(self):
        return self._unary(math.tanh(self.data), lambda out: 1 - out.data ** 2, 'tanh')

    def relu(self):
        return self._unary(max(0.0, self.data), lambda out: float(self.data > 0), 'relu')

    def sigmoid(self):
        return self._unary(1 / (1 + math.exp(-self.data)), lambda out: out.data * (1 - out.data), 'sigmoid')

    # elementwise comparisons give 1.0/0.0 nodes; identity hashing is kept
    def __eq__(self, other):
        other = Value.lift(other)
        return Value(float(self.data == other.data), (self, other), '==')

    def __ne__(self, other):
        other = Value.lift(other)
        return Value(float(self.data != other.data), (self, other), '!=')

    def __gt__(self, other):
        other = Value.lift(other)
        return Value(float(self.data > other.data), (self, other), '>')

    __hash__ = object.__hash__

    def backward(self):
        topo = []
        visited = {self}
        on_path = {self}
        stack = [(self, iter(self._prev))]
        while stack:
            node, parents = stack[-1]
            child = next(parents, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                topo.append(node)
            elif child in on_path:
                raise ValueError(f"cycle in the graph at {child!r}")
            elif child not in visited:
                visited.add(child)
                on_path.add(child)
                stack.append((child, iter(child._prev)))

        self.grad = 1.0
        for node in reversed(topo):
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


def zero_grad(nodes):
    roots = [nodes] if isinstance(nodes, Value) else list(nodes)
    visited = set()
    stack = list(roots)
    while stack:
        v = stack.pop()
        if v in visited:
            continue
        visited.add(v)
        v.grad = 0.0
        stack.extend(v._prev)


def numerical_grad(f, xs, h=1e-6):
    grads = []
    for x in xs:
        old = x.data
        x.data = old + h
        f_plus = f(*xs).data
        x.data = old - h
        f_minus = f(*xs).data
        x.data = old
        grads.append((f_plus - f_minus) / (2 * h))
    return grads


def check_grad(f, xs, tol=1e-4):
    out = f(*xs)
    zero_grad(out)
    out.backward()
    analytic = [x.grad for x in xs]
    numeric = numerical_grad(f, xs)
    for a, n in zip(analytic, numeric):
        if abs(a - n) > tol * max(1, abs(n)):
            return False
    return True
