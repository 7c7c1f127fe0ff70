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
        if isinstance(other, int):
            other = Value(other)
        return Product(self, other)

    def __rmul__(self, other):
        return Product(_as_value(other), self)

    def backward(self):
        # iterative DFS; next_parent[id] is how many parents of a node have been looked at
        order, next_parent, nodes = [], {}, [self]
        next_parent[id(self)] = 0
        while nodes:
            node = nodes[-1]
            i = next_parent[id(node)]
            if i < len(node._prev):
                next_parent[id(node)] = i + 1
                parent = node._prev[i]
                if id(parent) not in next_parent:
                    next_parent[id(parent)] = 0
                    nodes.append(parent)
            else:
                order.append(nodes.pop())
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
