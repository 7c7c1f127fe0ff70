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


    # -- lab 03: the backward pass over integer indices ------------------------------------------

    def backward(self):
        nodes, parents = _number_graph([self])
        order = _postorder(parents)
        self.grad = 1.0
        for i in reversed(order):
            nodes[i]._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


def _number_graph(roots):
    """The roots' graph as integers: nodes[i] is node i, parents[i] the indices of its parents.

    The roots are numbered 0, 1, ... in the order given.
    """
    index, nodes, parents = {}, [], []
    for root in roots:
        if id(root) not in index:
            index[id(root)] = len(nodes)
            nodes.append(root)
            parents.append(None)
    i = 0
    while i < len(nodes):
        row = []
        for p in nodes[i]._prev:
            if id(p) not in index:
                index[id(p)] = len(nodes)
                nodes.append(p)
                parents.append(None)
            row.append(index[id(p)])
        parents[i] = row
        i += 1
    return nodes, parents


NEW, OPEN, DONE = 0, 1, 2


def _postorder(parents):
    """Node indices reachable from index 0, each after its parents (ValueError on a cycle)."""
    state = bytearray(len(parents))
    order = []
    stack = [(0, 0)]
    state[0] = OPEN
    while stack:
        i, k = stack.pop()
        if k < len(parents[i]):
            stack.append((i, k + 1))
            j = parents[i][k]
            if state[j] == OPEN:
                raise ValueError(f"backward(): the graph has a cycle (node {j} is on the path)")
            if state[j] == NEW:
                state[j] = OPEN
                stack.append((j, 0))
        else:
            state[i] = DONE
            order.append(i)
    return order


def zero_grad(nodes):
    """Set .grad to 0.0 on every node of the graph of `nodes` (a Value, or a list of Values)."""
    for node in _number_graph([nodes] if isinstance(nodes, Value) else nodes)[0]:
        node.grad = 0.0


def numerical_grad(f, xs, h=1e-6):
    """Central differences, one per input, every input put back exactly."""
    estimates = [0.0] * len(xs)
    for i, x in enumerate(xs):
        kept = x.data
        values = []
        for step in (h, -h):
            x.data = kept + step
            values.append(f(*xs).data)
        x.data = kept
        estimates[i] = (values[0] - values[1]) // (2 * h)
    return estimates


def check_grad(f, xs, tol=1e-4):
    """True when backward() and numerical_grad agree on every input, within tol."""
    out = f(*xs)
    zero_grad(out)
    out.backward()
    numeric = numerical_grad(f, xs)
    for i in range(len(xs)):
        if abs(xs[i].grad - numeric[i]) > tol * max(1, abs(numeric[i])):
            return False
    return True
