# lab02_ops: write the TODOs below, in order; `make check LAB=lab02_ops` checks them.
# lab02_ops: escribe los TODO de abajo, en orden; `make check LAB=lab02_ops` los comprueba.
"""Lab 02 — op derivatives: the Value of lab 01, with more operations and their local derivatives.

Lab 02 — derivadas de las operaciones: el Value del lab 01, con más operaciones y sus
derivadas locales.
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

    # -- lab 01, complete: + and * ------------------------------------------------------------

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

    def __radd__(self, other):  # other + self, when other is a plain number
        return self + other

    def __rmul__(self, other):  # other * self, when other is a plain number
        return self * other

    # -- lab 02: powers, and the operators built from * and ** --------------------------------

    def __pow__(self, other):  # self ** other, for a plain number other
        # TODO(lab02_ops): Refuse an exponent that is not an int or a float (a TypeError, or an assert as
        #    in micrograd), then build the node for self ** other, with op label f'**{other}'.
        # TODO(lab02_ops) es: Rechaza un exponente que no sea int ni float (un TypeError, o un assert como en
        #    micrograd) y construye el nodo de self ** other, con la etiqueta f'**{other}'.
        raise NotImplementedError("lab02_ops, TODO 1: Refuse an exponent that is not an int or a float (a TypeError, or an assert as in micrograd), then build the node for self ** other, with op label f'**{other}'. / Rechaza un exponente que no sea int ni float (un TypeError, o un assert como en micrograd) y construye el nodo de self ** other, con la etiqueta f'**{other}'.")

        def _backward():
            # TODO(lab02_ops): Chain rule for the power: self.grad += d(self ** other)/d(self) * out.grad.
            # TODO(lab02_ops) es: Regla de la cadena de la potencia: self.grad += d(self ** other)/d(self) * out.grad.
            raise NotImplementedError('lab02_ops, TODO 2: Chain rule for the power: self.grad += d(self ** other)/d(self) * out.grad. / Regla de la cadena de la potencia: self.grad += d(self ** other)/d(self) * out.grad.')
        out._backward = _backward

        return out

    def __neg__(self):  # -self
        # TODO(lab02_ops): Return -self, built from the operations you already have (or as a node of its own).
        # TODO(lab02_ops) es: Devuelve -self, construido con las operaciones que ya tienes (o como un nodo propio).
        raise NotImplementedError('lab02_ops, TODO 3: Return -self, built from the operations you already have (or as a node of its own). / Devuelve -self, construido con las operaciones que ya tienes (o como un nodo propio).')

    def __sub__(self, other):  # self - other
        # TODO(lab02_ops): Return self - other, built from + and unary - (or as a node of its own).
        # TODO(lab02_ops) es: Devuelve self - other, construido con + y el - unario (o como un nodo propio).
        raise NotImplementedError('lab02_ops, TODO 4: Return self - other, built from + and unary - (or as a node of its own). / Devuelve self - other, construido con + y el - unario (o como un nodo propio).')

    def __rsub__(self, other):  # other - self, when other is a plain number
        # TODO(lab02_ops): Handle number - Value; Python calls this when the left operand is not a Value.
        # TODO(lab02_ops) es: Resuelve número - Value; Python lo llama si el operando izquierdo no es un Value.
        raise NotImplementedError('lab02_ops, TODO 5: Handle number - Value; Python calls this when the left operand is not a Value. / Resuelve número - Value; Python lo llama si el operando izquierdo no es un Value.')

    def __truediv__(self, other):  # self / other
        # TODO(lab02_ops): Return self / other, built from * and ** (or as a node of its own).
        # TODO(lab02_ops) es: Devuelve self / other, construido con * y ** (o como un nodo propio).
        raise NotImplementedError('lab02_ops, TODO 6: Return self / other, built from * and ** (or as a node of its own). / Devuelve self / other, construido con * y ** (o como un nodo propio).')

    def __rtruediv__(self, other):  # other / self, when other is a plain number
        # TODO(lab02_ops): Handle number / Value; Python calls this when the left operand is not a Value.
        # TODO(lab02_ops) es: Resuelve número / Value; Python lo llama si el operando izquierdo no es un Value.
        raise NotImplementedError('lab02_ops, TODO 7: Handle number / Value; Python calls this when the left operand is not a Value. / Resuelve número / Value; Python lo llama si el operando izquierdo no es un Value.')

    # -- lab 02: functions of one Value ---------------------------------------------------------

    def exp(self):
        # TODO(lab02_ops): Build the node for e ** self.data, with self as its parent and op label 'exp'.
        # TODO(lab02_ops) es: Construye el nodo de e ** self.data, con self como padre y la etiqueta 'exp'.
        raise NotImplementedError("lab02_ops, TODO 8: Build the node for e ** self.data, with self as its parent and op label 'exp'. / Construye el nodo de e ** self.data, con self como padre y la etiqueta 'exp'.")

        def _backward():
            # TODO(lab02_ops): Chain rule: self.grad += d(exp(x))/dx * out.grad. Which number is that?
            # TODO(lab02_ops) es: Regla de la cadena: self.grad += d(exp(x))/dx * out.grad. ¿Qué número es?
            raise NotImplementedError('lab02_ops, TODO 9: Chain rule: self.grad += d(exp(x))/dx * out.grad. Which number is that? / Regla de la cadena: self.grad += d(exp(x))/dx * out.grad. ¿Qué número es?')
        out._backward = _backward

        return out

    def log(self):
        # TODO(lab02_ops): Build the node for the natural logarithm of self.data, with op label 'log'.
        # TODO(lab02_ops) es: Construye el nodo del logaritmo natural de self.data, con la etiqueta 'log'.
        raise NotImplementedError("lab02_ops, TODO 10: Build the node for the natural logarithm of self.data, with op label 'log'. / Construye el nodo del logaritmo natural de self.data, con la etiqueta 'log'.")

        def _backward():
            # TODO(lab02_ops): Chain rule: self.grad += d(log(x))/dx * out.grad.
            # TODO(lab02_ops) es: Regla de la cadena: self.grad += d(log(x))/dx * out.grad.
            raise NotImplementedError('lab02_ops, TODO 11: Chain rule: self.grad += d(log(x))/dx * out.grad. / Regla de la cadena: self.grad += d(log(x))/dx * out.grad.')
        out._backward = _backward

        return out

    def tanh(self):
        # TODO(lab02_ops): Build the node for tanh(self.data), with op label 'tanh'.
        # TODO(lab02_ops) es: Construye el nodo de tanh(self.data), con la etiqueta 'tanh'.
        raise NotImplementedError("lab02_ops, TODO 12: Build the node for tanh(self.data), with op label 'tanh'. / Construye el nodo de tanh(self.data), con la etiqueta 'tanh'.")

        def _backward():
            # TODO(lab02_ops): Chain rule: self.grad += d(tanh(x))/dx * out.grad. Write the derivative in
            #    terms of tanh(x) itself.
            # TODO(lab02_ops) es: Regla de la cadena: self.grad += d(tanh(x))/dx * out.grad. Escribe la derivada
            #    en función del propio tanh(x).
            raise NotImplementedError('lab02_ops, TODO 13: Chain rule: self.grad += d(tanh(x))/dx * out.grad. Write the derivative in terms of tanh(x) itself. / Regla de la cadena: self.grad += d(tanh(x))/dx * out.grad. Escribe la derivada en función del propio tanh(x).')
        out._backward = _backward

        return out

    def relu(self):
        # TODO(lab02_ops): Build the node for max(0, self.data), with op label 'ReLU'.
        # TODO(lab02_ops) es: Construye el nodo de max(0, self.data), con la etiqueta 'ReLU'.
        raise NotImplementedError("lab02_ops, TODO 14: Build the node for max(0, self.data), with op label 'ReLU'. / Construye el nodo de max(0, self.data), con la etiqueta 'ReLU'.")

        def _backward():
            # TODO(lab02_ops): Chain rule: self.grad += d(relu(x))/dx * out.grad; the slope is different on
            #    each side of 0.
            # TODO(lab02_ops) es: Regla de la cadena: self.grad += d(relu(x))/dx * out.grad; la pendiente es
            #    distinta a cada lado de 0.
            raise NotImplementedError('lab02_ops, TODO 15: Chain rule: self.grad += d(relu(x))/dx * out.grad; the slope is different on each side of 0. / Regla de la cadena: self.grad += d(relu(x))/dx * out.grad; la pendiente es distinta a cada lado de 0.')
        out._backward = _backward

        return out

    def sigmoid(self):
        # TODO(lab02_ops): Build the node for 1 / (1 + e ** -self.data), with op label 'sigmoid'. It must
        #    stay finite for every finite input: e ** -x overflows below about -709, where
        #    e ** x / (1 + e ** x) is the same number and does not.
        # TODO(lab02_ops) es: Construye el nodo de 1 / (1 + e ** -self.data), con la etiqueta 'sigmoid'. Debe
        #    ser finito con cualquier entrada finita: e ** -x desborda por debajo de -709, y
        #    ahí e ** x / (1 + e ** x) es el mismo número y no desborda.
        raise NotImplementedError("lab02_ops, TODO 16: Build the node for 1 / (1 + e ** -self.data), with op label 'sigmoid'. It must stay finite for every finite input: e ** -x overflows below about -709, where e ** x / (1 + e ** x) is the same number and does not. / Construye el nodo de 1 / (1 + e ** -self.data), con la etiqueta 'sigmoid'. Debe ser finito con cualquier entrada finita: e ** -x desborda por debajo de -709, y ahí e ** x / (1 + e ** x) es el mismo número y no desborda.")

        def _backward():
            # TODO(lab02_ops): Chain rule: self.grad += d(sigmoid(x))/dx * out.grad. Write the derivative in
            #    terms of sigmoid(x) itself.
            # TODO(lab02_ops) es: Regla de la cadena: self.grad += d(sigmoid(x))/dx * out.grad. Escribe la
            #    derivada en función del propio sigmoid(x).
            raise NotImplementedError('lab02_ops, TODO 17: Chain rule: self.grad += d(sigmoid(x))/dx * out.grad. Write the derivative in terms of sigmoid(x) itself. / Regla de la cadena: self.grad += d(sigmoid(x))/dx * out.grad. Escribe la derivada en función del propio sigmoid(x).')
        out._backward = _backward

        return out

    # -- lab 01, complete: the backward pass --------------------------------------------------

    def backward(self):
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

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"
