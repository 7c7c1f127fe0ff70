import math
from dataclasses import dataclass, field


@dataclass(eq=False, repr=False)
class Value:
    data: float
    _children: tuple = ()
    _op: str = ''
    grad: float = field(default=0.0, init=False)

    def __post_init__(self):
        self._prev = tuple(self._children)
        self._backward = lambda: None

    def __repr__(self):
        return f"Value({self.data!r})"

    @classmethod
    def of(cls, x):
        return x if isinstance(x, cls) else cls(x)

    def __add__(self, other):
        other = Value.of(other)
        out = Value(self.data + other.data, (self, other), '+')

        def back():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = back
        return out

    def __mul__(self, other):
        other = Value.of(other)
        out = Value(self.data * other.data, (self, other), '*')

        def back():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = back
        return out

    def __pow__(self, p):
        if not isinstance(p, (int, float)):
            raise TypeError("power must be int or float")
        out = Value(self.data ** p, (self,), f'**{p}')

        def back():
            self.grad += p * self.data ** (p - 1) * out.grad
        out._backward = back
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-Value.of(other))

    def __rsub__(self, other):
        return Value.of(other) + (-self)

    def __truediv__(self, other):
        return self * Value.of(other) ** -1

    def __rtruediv__(self, other):
        return Value.of(other) * self ** -1

    __radd__ = __add__
    __rmul__ = __mul__

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def back():
            self.grad += out.data * out.grad
        out._backward = back
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def back():
            self.grad += out.grad / self.data
        out._backward = back
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def back():
            self.grad += (1 - out.data ** 2) * out.grad
        out._backward = back
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')

        def back():
            self.grad += (self.data > 0) * out.grad
        out._backward = back
        return out

    def sigmoid(self):
        out = Value(1 / (1 + math.exp(-self.data)), (self,), 'sigmoid')

        def back():
            self.grad += out.data * (1 - out.data) * out.grad
        out._backward = back
        return out

    def backward(self):
        # iterative DFS with three colours: absent = not seen, 1 = on the current path, 2 = finished
        colour = {}
        topo = []
        stack = [self]
        while stack:
            v = stack[-1]
            if v not in colour:
                colour[v] = 1
                for child in v._prev:
                    state = colour.get(child)
                    if state == 1:
                        raise RuntimeError("cycle detected: a node is its own ancestor")
                    if state is None:
                        stack.append(child)
            else:
                stack.pop()
                if colour[v] == 1:
                    colour[v] = 2
                    topo.append(v)

        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


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
