"""Lab 01 engine: one subclass per operation, whose bound method is the node's _backward."""


def _leaf_backward():
    return None


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        return Sum(self, _as_value(other))

    def __radd__(self, other):
        return Sum(_as_value(other), self)

    def __mul__(self, other):
        return Product(self, _as_value(other))

    def __rmul__(self, other):
        return Product(_as_value(other), self)

    def backward(self):
        # every node reachable from self, oldest first: a node is made after its parents,
        # and newer objects live at higher addresses
        seen, nodes = {id(self): self}, [self]
        while nodes:
            for parent in nodes.pop()._prev:
                if id(parent) not in seen:
                    seen[id(parent)] = parent
                    nodes.append(parent)
        order = sorted(seen.values(), key=id)
        self.grad = 1.0
        for node in order[::-1]:
            node._backward()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


class Sum(Value):
    def __init__(self, x, y):
        super().__init__(x.data + y.data, (x, y), '+')
        self._backward = self._chain

    def _chain(self):
        x, y = self._prev
        x.grad += self.grad
        y.grad += self.grad


class Product(Value):
    def __init__(self, x, y):
        super().__init__(x.data * y.data, (x, y), '*')
        self._backward = self._chain

    def _chain(self):
        x, y = self._prev
        x.grad += y.data * self.grad
        y.grad += x.data * self.grad
