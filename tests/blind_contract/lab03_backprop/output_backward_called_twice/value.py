"""Lab 03 engine: traversal by a stack of generators with an on-path set; numerical_grad nudges
each input inside a context manager that puts it back."""
import contextlib
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
        order = list(_postorder([self], check_cycles=True))
        self.grad = 1.0
        self._backward()
        for v in reversed(order):
            v._backward()


def _postorder(roots, check_cycles=False):
    """Yield every node reachable from roots once, after all of its parents."""
    done, on_path = set(), set()

    def expand(node):
        on_path.add(node)
        for parent in node._prev:
            if parent in on_path:
                if check_cycles:
                    raise ValueError("the graph has a cycle")
                continue
            if parent not in done:
                yield parent
        on_path.discard(node)
        done.add(node)
        yield node

    for root in roots:
        if root in done:
            continue
        stack = [(root, expand(root))]
        while stack:
            node, gen = stack[-1]
            item = next(gen, None)
            if item is None:
                stack.pop()
            elif item is node:
                yield node
            elif item not in done and item not in on_path:
                stack.append((item, expand(item)))
            elif item in on_path and check_cycles:
                raise ValueError("the graph has a cycle")


def zero_grad(nodes):
    roots = [nodes] if isinstance(nodes, Value) else list(nodes)
    for v in _postorder(roots):
        v.grad = 0.0


@contextlib.contextmanager
def _nudged(x, delta):
    saved = x.data
    x.data = saved + delta
    try:
        yield
    finally:
        x.data = saved


def numerical_grad(f, xs, h=1e-6):
    grads = []
    for x in xs:
        with _nudged(x, h):
            up = f(*xs).data
        with _nudged(x, -h):
            down = f(*xs).data
        grads.append((up - down) / (2 * h))
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
