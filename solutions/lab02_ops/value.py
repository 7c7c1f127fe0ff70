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
        # BEGIN SOLUTION
        # en: Refuse an exponent that is not an int or a float (a TypeError, or an assert as
        #    in micrograd), then build the node for self ** other, with op label f'**{other}'.
        # es: Rechaza un exponente que no sea int ni float (un TypeError, o un assert como en
        #    micrograd) y construye el nodo de self ** other, con la etiqueta f'**{other}'.
        if not isinstance(other, (int, float)):
            raise TypeError(f"only int or float exponents are supported, not {type(other).__name__}")
        out = Value(self.data ** other, (self,), f'**{other}')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule for the power: self.grad += d(self ** other)/d(self) * out.grad.
            # es: Regla de la cadena de la potencia: self.grad += d(self ** other)/d(self) * out.grad.
            self.grad += other * self.data ** (other - 1) * out.grad  # d(x**n)/dx = n * x**(n-1)
            # END SOLUTION
        out._backward = _backward

        return out

    def __neg__(self):  # -self
        # BEGIN SOLUTION
        # en: Return -self, built from the operations you already have (or as a node of its own).
        # es: Devuelve -self, construido con las operaciones que ya tienes (o como un nodo propio).
        return self * -1
        # END SOLUTION

    def __sub__(self, other):  # self - other
        # BEGIN SOLUTION
        # en: Return self - other, built from + and unary - (or as a node of its own).
        # es: Devuelve self - other, construido con + y el - unario (o como un nodo propio).
        return self + (-other)
        # END SOLUTION

    def __rsub__(self, other):  # other - self, when other is a plain number
        # BEGIN SOLUTION
        # en: Handle number - Value; Python calls this when the left operand is not a Value.
        # es: Resuelve número - Value; Python lo llama si el operando izquierdo no es un Value.
        return other + (-self)
        # END SOLUTION

    def __truediv__(self, other):  # self / other
        # BEGIN SOLUTION
        # en: Return self / other, built from * and ** (or as a node of its own).
        # es: Devuelve self / other, construido con * y ** (o como un nodo propio).
        return self * other ** -1
        # END SOLUTION

    def __rtruediv__(self, other):  # other / self, when other is a plain number
        # BEGIN SOLUTION
        # en: Handle number / Value; Python calls this when the left operand is not a Value.
        # es: Resuelve número / Value; Python lo llama si el operando izquierdo no es un Value.
        return other * self ** -1
        # END SOLUTION

    # -- lab 02: functions of one Value ---------------------------------------------------------

    def exp(self):
        # BEGIN SOLUTION
        # en: Build the node for e ** self.data, with self as its parent and op label 'exp'.
        # es: Construye el nodo de e ** self.data, con self como padre y la etiqueta 'exp'.
        out = Value(math.exp(self.data), (self,), 'exp')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule: self.grad += d(exp(x))/dx * out.grad. Which number is that?
            # es: Regla de la cadena: self.grad += d(exp(x))/dx * out.grad. ¿Qué número es?
            self.grad += out.data * out.grad  # d(e**x)/dx = e**x, which is out.data
            # END SOLUTION
        out._backward = _backward

        return out

    def log(self):
        # BEGIN SOLUTION
        # en: Build the node for the natural logarithm of self.data, with op label 'log'.
        # es: Construye el nodo del logaritmo natural de self.data, con la etiqueta 'log'.
        out = Value(math.log(self.data), (self,), 'log')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule: self.grad += d(log(x))/dx * out.grad.
            # es: Regla de la cadena: self.grad += d(log(x))/dx * out.grad.
            self.grad += (1 / self.data) * out.grad  # d(log x)/dx = 1/x, x is the input
            # END SOLUTION
        out._backward = _backward

        return out

    def tanh(self):
        # BEGIN SOLUTION
        # en: Build the node for tanh(self.data), with op label 'tanh'.
        # es: Construye el nodo de tanh(self.data), con la etiqueta 'tanh'.
        out = Value(math.tanh(self.data), (self,), 'tanh')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule: self.grad += d(tanh(x))/dx * out.grad. Write the derivative in
            #    terms of tanh(x) itself.
            # es: Regla de la cadena: self.grad += d(tanh(x))/dx * out.grad. Escribe la derivada
            #    en función del propio tanh(x).
            self.grad += (1 - out.data ** 2) * out.grad  # d(tanh x)/dx = 1 - tanh(x)**2
            # END SOLUTION
        out._backward = _backward

        return out

    def relu(self):
        # BEGIN SOLUTION
        # en: Build the node for max(0, self.data), with op label 'ReLU'.
        # es: Construye el nodo de max(0, self.data), con la etiqueta 'ReLU'.
        out = Value(self.data if self.data > 0 else 0.0, (self,), 'ReLU')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule: self.grad += d(relu(x))/dx * out.grad; the slope is different on
            #    each side of 0.
            # es: Regla de la cadena: self.grad += d(relu(x))/dx * out.grad; la pendiente es
            #    distinta a cada lado de 0.
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad  # 1 for x > 0, else 0
            # END SOLUTION
        out._backward = _backward

        return out

    def sigmoid(self):
        # BEGIN SOLUTION
        # en: Build the node for 1 / (1 + e ** -self.data), with op label 'sigmoid'. It must
        #    stay finite for every finite input: e ** -x overflows below about -709, where
        #    e ** x / (1 + e ** x) is the same number and does not.
        # es: Construye el nodo de 1 / (1 + e ** -self.data), con la etiqueta 'sigmoid'. Debe
        #    ser finito con cualquier entrada finita: e ** -x desborda por debajo de -709, y
        #    ahí e ** x / (1 + e ** x) es el mismo número y no desborda.
        x = self.data
        s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
        out = Value(s, (self,), 'sigmoid')
        # END SOLUTION

        def _backward():
            # BEGIN SOLUTION
            # en: Chain rule: self.grad += d(sigmoid(x))/dx * out.grad. Write the derivative in
            #    terms of sigmoid(x) itself.
            # es: Regla de la cadena: self.grad += d(sigmoid(x))/dx * out.grad. Escribe la
            #    derivada en función del propio sigmoid(x).
            s = out.data
            self.grad += s * (1 - s) * out.grad  # d(s(x))/dx = s(x) * (1 - s(x))
            # END SOLUTION
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
