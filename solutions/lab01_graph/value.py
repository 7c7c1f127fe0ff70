"""Lab 01 — computation graphs: a scalar Value that remembers how it was computed.

Lab 01 — grafos de cómputo: un Value escalar que recuerda cómo se calculó.
"""


def _leaf_backward():
    """A leaf has no parents, so there is nothing to propagate."""
    # BEGIN SOLUTION
    # en: Make a leaf's _backward do nothing: a leaf has no parents.
    # es: Haz que el _backward de una hoja no haga nada: una hoja no tiene padres.
    return None
    # END SOLUTION


class Value:
    """Stores a single scalar value and its gradient."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        # internal variables used for autograd graph construction
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op  # the op that produced this node, '' for a leaf

    def __add__(self, other):
        # BEGIN SOLUTION
        # en: Build the node for self + other: its data, its parents and the op label '+'.
        # es: Construye el nodo de self + other: su dato, sus padres y la etiqueta '+'.
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule for the sum: each parent's grad += local derivative * out.grad.
            # es: Regla de la cadena de la suma: grad de cada padre += derivada local * out.grad.
            self.grad += out.grad  # d(out)/d(self) = 1
            other.grad += out.grad  # d(out)/d(other) = 1
            # END SOLUTION
        out._backward = _backward

        return out

    def __mul__(self, other):
        # BEGIN SOLUTION
        # en: Build the node for self * other: its data, its parents and the op label '*'.
        # es: Construye el nodo de self * other: su dato, sus padres y la etiqueta '*'.
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule for the product: each parent's grad += local derivative * out.grad.
            # es: Regla de la cadena del producto: grad de cada padre += derivada local * out.grad.
            self.grad += other.data * out.grad  # d(out)/d(self) = other.data
            other.grad += self.data * out.grad  # d(out)/d(other) = self.data
            # END SOLUTION
        out._backward = _backward

        return out

    def __radd__(self, other):  # other + self, when other is a plain number
        # BEGIN SOLUTION
        # en: Handle number + Value; Python calls this when the left operand is not a Value.
        # es: Resuelve número + Value; Python lo llama si el operando izquierdo no es un Value.
        return self + other
        # END SOLUTION

    def __rmul__(self, other):  # other * self, when other is a plain number
        # BEGIN SOLUTION
        # en: Handle number * Value; Python calls this when the left operand is not a Value.
        # es: Resuelve número * Value; Python lo llama si el operando izquierdo no es un Value.
        return self * other
        # END SOLUTION

    def backward(self):
        # BEGIN SOLUTION
        # en: Sort the graph topologically (use a visited set), seed self.grad = 1.0,
        #    then call every node's _backward, from this node back to the leaves.
        # es: Ordena el grafo topológicamente (con un conjunto visited), siembra self.grad = 1.0
        #    y luego llama al _backward de cada nodo, desde este nodo hasta las hojas.

        # topological order of the graph, parents before children; an explicit stack
        # instead of recursion, so deep graphs do not hit Python's recursion limit
        topo = []
        visited = set()
        stack = [(self, False)]
        while stack:
            v, parents_done = stack.pop()
            if parents_done:
                topo.append(v)  # every parent of v is already in topo
            elif v not in visited:
                visited.add(v)
                stack.append((v, True))
                # reversed, so parents are visited in _prev order, as in micrograd
                stack.extend((child, False) for child in reversed(v._prev))

        # go one variable at a time and apply the chain rule to get its gradient
        self.grad = 1.0  # d(self)/d(self) = 1
        for v in reversed(topo):
            v._backward()
        # END SOLUTION

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
