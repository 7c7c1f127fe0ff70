# lab01_graph: write the TODOs below, in order; `make check LAB=lab01_graph` checks them.
# lab01_graph: escribe los TODO de abajo, en orden; `make check LAB=lab01_graph` los comprueba.
"""Lab 01 — computation graphs: a scalar Value that remembers how it was computed.

Lab 01 — grafos de cómputo: un Value escalar que recuerda cómo se calculó.
"""


def _leaf_backward():
    """A leaf has no parents, so there is nothing to propagate."""
    # TODO(lab01_graph): Make a leaf's _backward do nothing: a leaf has no parents.
    # TODO(lab01_graph) es: Haz que el _backward de una hoja no haga nada: una hoja no tiene padres.
    raise NotImplementedError("lab01_graph, TODO 1: Make a leaf's _backward do nothing: a leaf has no parents. / Haz que el _backward de una hoja no haga nada: una hoja no tiene padres.")


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
        # TODO(lab01_graph): Build the node for self + other: its data, its parents and the op label '+'.
        # TODO(lab01_graph) es: Construye el nodo de self + other: su dato, sus padres y la etiqueta '+'.
        raise NotImplementedError("lab01_graph, TODO 2: Build the node for self + other: its data, its parents and the op label '+'. / Construye el nodo de self + other: su dato, sus padres y la etiqueta '+'.")

        def _backward():
            # TODO(lab01_graph): Chain rule for the sum: each parent's grad += local derivative * out.grad.
            # TODO(lab01_graph) es: Regla de la cadena de la suma: grad de cada padre += derivada local * out.grad.
            raise NotImplementedError("lab01_graph, TODO 3: Chain rule for the sum: each parent's grad += local derivative * out.grad. / Regla de la cadena de la suma: grad de cada padre += derivada local * out.grad.")
        out._backward = _backward

        return out

    def __mul__(self, other):
        # TODO(lab01_graph): Build the node for self * other: its data, its parents and the op label '*'.
        # TODO(lab01_graph) es: Construye el nodo de self * other: su dato, sus padres y la etiqueta '*'.
        raise NotImplementedError("lab01_graph, TODO 4: Build the node for self * other: its data, its parents and the op label '*'. / Construye el nodo de self * other: su dato, sus padres y la etiqueta '*'.")

        def _backward():
            # TODO(lab01_graph): Chain rule for the product: each parent's grad += local derivative * out.grad.
            # TODO(lab01_graph) es: Regla de la cadena del producto: grad de cada padre += derivada local * out.grad.
            raise NotImplementedError("lab01_graph, TODO 5: Chain rule for the product: each parent's grad += local derivative * out.grad. / Regla de la cadena del producto: grad de cada padre += derivada local * out.grad.")
        out._backward = _backward

        return out

    def __radd__(self, other):  # other + self, when other is a plain number
        # TODO(lab01_graph): Handle number + Value; Python calls this when the left operand is not a Value.
        # TODO(lab01_graph) es: Resuelve número + Value; Python lo llama si el operando izquierdo no es un Value.
        raise NotImplementedError('lab01_graph, TODO 6: Handle number + Value; Python calls this when the left operand is not a Value. / Resuelve número + Value; Python lo llama si el operando izquierdo no es un Value.')

    def __rmul__(self, other):  # other * self, when other is a plain number
        # TODO(lab01_graph): Handle number * Value; Python calls this when the left operand is not a Value.
        # TODO(lab01_graph) es: Resuelve número * Value; Python lo llama si el operando izquierdo no es un Value.
        raise NotImplementedError('lab01_graph, TODO 7: Handle number * Value; Python calls this when the left operand is not a Value. / Resuelve número * Value; Python lo llama si el operando izquierdo no es un Value.')

    def backward(self):
        # TODO(lab01_graph): Sort the graph topologically (use a visited set), seed self.grad = 1.0,
        #    then call every node's _backward, from this node back to the leaves.
        # TODO(lab01_graph) es: Ordena el grafo topológicamente (con un conjunto visited), siembra self.grad = 1.0
        #    y luego llama al _backward de cada nodo, desde este nodo hasta las hojas.
        raise NotImplementedError("lab01_graph, TODO 8: Sort the graph topologically (use a visited set), seed self.grad = 1.0, then call every node's _backward, from this node back to the leaves. / Ordena el grafo topológicamente (con un conjunto visited), siembra self.grad = 1.0 y luego llama al _backward de cada nodo, desde este nodo hasta las hojas.")

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
