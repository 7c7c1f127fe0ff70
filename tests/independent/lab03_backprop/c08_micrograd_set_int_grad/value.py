import math


class Value:
    """ stores a single scalar value and its gradient """

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(_children)
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
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = Value(self.data**other, (self,), f'**{other}')

        def _backward():
            self.grad += (other * self.data**(other-1)) * out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Value(0 if self.data < 0 else self.data, (self,), 'ReLU')

        def _backward():
            self.grad += (out.data > 0) * out.grad
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
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        out = Value(s, (self,), 'sigmoid')

        def _backward():
            self.grad += s * (1 - s) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()
        done = set()
        stack = [(self, False)]
        while stack:
            v, expanded = stack.pop()
            if expanded:
                done.add(v)
                topo.append(v)
            elif v in visited:
                if v not in done:
                    raise ValueError("backward(): the graph has a cycle")
            else:
                visited.add(v)
                stack.append((v, True))
                for child in v._prev:
                    stack.append((child, False))

        self.grad = 1
        for v in reversed(topo):
            v._backward()

    def __neg__(self): # -self
        return self * -1

    def __radd__(self, other): # other + self
        return self + other

    def __sub__(self, other): # self - other
        return self + (-other)

    def __rsub__(self, other): # other - self
        return other + (-self)

    def __rmul__(self, other): # other * self
        return self * other

    def __truediv__(self, other): # self / other
        return self * other**-1

    def __rtruediv__(self, other): # other / self
        return other * self**-1

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
