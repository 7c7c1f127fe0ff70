"""Lab 03 — backprop on larger graphs: accumulation, zero_grad, deep graphs, gradient checking.

Lab 03 — backprop en grafos grandes: acumulación, zero_grad, grafos profundos y comprobación
numérica de gradientes.
"""

import math


def _leaf_backward():
    """A leaf has no parents, so there is nothing to propagate."""
    return None


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        # internal variables used for autograd graph construction
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op  # the op that produced this node, '' for a leaf

    # -- labs 01 and 02, complete: the operations ---------------------------------------------

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad  # d(out)/d(self) = 1
            other.grad += out.grad  # d(out)/d(other) = 1
        out._backward = _backward

        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad  # d(out)/d(self) = other.data
            other.grad += self.data * out.grad  # d(out)/d(other) = self.data
        out._backward = _backward

        return out

    def __pow__(self, other):  # self ** other, for a plain number other
        if not isinstance(other, (int, float)):
            raise TypeError(f"only int or float exponents are supported, not {type(other).__name__}")
        out = Value(self.data ** other, (self,), f'**{other}')

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad  # d(x**n)/dx = n * x**(n-1)
        out._backward = _backward

        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad  # d(e**x)/dx = e**x
        out._backward = _backward

        return out

    def log(self):
        out = Value(math.log(self.data), (self,), 'log')

        def _backward():
            self.grad += (1 / self.data) * out.grad  # d(log x)/dx = 1/x
        out._backward = _backward

        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), 'tanh')

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad  # d(tanh x)/dx = 1 - tanh(x)**2
        out._backward = _backward

        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')

        def _backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad  # 1 for x > 0, else 0
        out._backward = _backward

        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad  # d(sigmoid x)/dx = s * (1 - s)
        out._backward = _backward

        return out

    def __neg__(self):  # -self
        return self * -1

    def __radd__(self, other):  # other + self
        return self + other

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __rsub__(self, other):  # other - self
        return other + (-self)

    def __rmul__(self, other):  # other * self
        return self * other

    def __truediv__(self, other):  # self / other
        return self * other ** -1

    def __rtruediv__(self, other):  # other / self
        return other * self ** -1

    def backward(self):
        """Order the nodes by height (longest path down to a leaf), highest first, then chain."""
        height, on_path = {}, set()
        nodes = []
        frames = [(self, iter(self._prev))]
        on_path.add(id(self))
        while frames:
            node, parents = frames[-1]
            for parent in parents:
                if id(parent) in on_path:
                    raise ValueError("cycle in the graph: a node is its own ancestor")
                if id(parent) not in height:
                    on_path.add(id(parent))
                    frames.append((parent, iter(parent._prev)))
                    break
            else:
                frames.pop()
                on_path.discard(id(node))
                height[id(node)] = 1 + max((height[id(p)] for p in node._prev), default=-1)
                nodes.append(node)
        nodes.sort(key=lambda n: height[id(n)], reverse=True)
        self.grad = 1.0
        for node in nodes:
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


def zero_grad(nodes):
    """Reset grad to 0.0 on every node of the graph, sweeping it level by level from the roots."""
    frontier = [nodes] if isinstance(nodes, Value) else list(nodes)
    seen = {id(v) for v in frontier}
    while frontier:
        below = []
        for v in frontier:
            v.grad = 0.0
            for p in v._prev:
                if id(p) not in seen:
                    seen.add(id(p))
                    below.append(p)
        frontier = below


def _evaluate_shifted(f, xs, x, delta):
    """f(*xs).data with x.data moved by delta; x.data is put back whatever happens."""
    kept = x.data
    x.data = kept + delta
    try:
        return f(*xs).data
    finally:
        x.data = kept


def numerical_grad(f, xs, h=1e-6):
    """Central differences, one input at a time."""
    return [(_evaluate_shifted(f, xs, x, h) - _evaluate_shifted(f, xs, x, -h)) / (2 * h) for x in xs]


def check_grad(f, xs, tol=1e-4):
    """backward() against numerical_grad, input by input."""
    out = f(*xs)
    zero_grad(out)
    out.backward()
    analytic = [x.grad for x in xs]
    numeric = numerical_grad(f, xs)
    return all(abs(a - n) <= tol * max(1, abs(n)) for a, n in zip(analytic, numeric))
