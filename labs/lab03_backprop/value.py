# lab03_backprop: write the TODOs below, in order; `make check LAB=lab03_backprop` checks them.
# lab03_backprop: escribe los TODO de abajo, en orden; `make check LAB=lab03_backprop` los comprueba.
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

    # -- lab 03: the backward pass on large graphs ----------------------------------------------

    def backward(self):
        # TODO(lab03_backprop): Sort the graph topologically WITHOUT recursion (an explicit stack and a visited
        #    set), and raise ValueError (a message that mentions "cycle") if a node is reached
        #    again while it is still on the path from self. Then set self.grad = 1.0 and call
        #    every node's _backward from self back to the leaves. Reset no other gradient.
        # TODO(lab03_backprop) es: Ordena el grafo topológicamente SIN recursión (una pila explícita y un conjunto
        #    visited) y lanza ValueError (con un mensaje que mencione "cycle") si llegas otra vez
        #    a un nodo que sigue en el camino desde self. Después pon self.grad = 1.0 y llama al
        #    _backward de cada nodo desde self hasta las hojas. No pongas a cero ningún otro grad.
        raise NotImplementedError('lab03_backprop, TODO 1: Sort the graph topologically WITHOUT recursion (an explicit stack and a visited set), and raise ValueError (a message that mentions "cycle") if a node is reached again while it is still on the path from self. Then set self.grad = 1.0 and call every node\'s _backward from self back to the leaves. Reset no other gradient. / Ordena el grafo topológicamente SIN recursión (una pila explícita y un conjunto visited) y lanza ValueError (con un mensaje que mencione "cycle") si llegas otra vez a un nodo que sigue en el camino desde self. Después pon self.grad = 1.0 y llama al _backward de cada nodo desde self hasta las hojas. No pongas a cero ningún otro grad.')

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


def zero_grad(nodes):
    """Set .grad to 0.0 on every node of the graph of `nodes` (a Value, or a list of Values).

    The graph of a Value is the Value itself and every node it was computed from: leaves,
    intermediate nodes and the Value itself are all reset.
    """
    roots = [nodes] if isinstance(nodes, Value) else list(nodes)
    # TODO(lab03_backprop): Walk every node reachable from roots through _prev, each once (a visited set, and
    #    no recursion: graphs can be 100,000 nodes deep), and set its grad to 0.0.
    # TODO(lab03_backprop) es: Recorre cada nodo alcanzable desde roots a través de _prev, una sola vez (un conjunto
    #    visited, y sin recursión: los grafos pueden tener 100.000 nodos de profundidad), y pon
    #    su grad a 0.0.
    raise NotImplementedError('lab03_backprop, TODO 2: Walk every node reachable from roots through _prev, each once (a visited set, and no recursion: graphs can be 100,000 nodes deep), and set its grad to 0.0. / Recorre cada nodo alcanzable desde roots a través de _prev, una sola vez (un conjunto visited, y sin recursión: los grafos pueden tener 100.000 nodos de profundidad), y pon su grad a 0.0.')


def numerical_grad(f, xs, h=1e-6):
    """Estimate d f(*xs) / d x for each x in xs by central differences; a list of floats.

    f takes the Values of xs, in order, and returns a Value built from them. Each x.data is
    nudged to x.data + h and x.data - h, one input at a time, and put back exactly as it was.
    """
    # TODO(lab03_backprop): For each x: remember x.data, evaluate f(*xs).data at x.data + h and at x.data - h,
    #    put x.data back to the remembered number, and append (f_plus - f_minus) / (2 * h).
    # TODO(lab03_backprop) es: Para cada x: guarda x.data, evalúa f(*xs).data en x.data + h y en x.data - h,
    #    devuelve x.data al número guardado y añade (f_mas - f_menos) / (2 * h).
    raise NotImplementedError('lab03_backprop, TODO 3: For each x: remember x.data, evaluate f(*xs).data at x.data + h and at x.data - h, put x.data back to the remembered number, and append (f_plus - f_minus) / (2 * h). / Para cada x: guarda x.data, evalúa f(*xs).data en x.data + h y en x.data - h, devuelve x.data al número guardado y añade (f_mas - f_menos) / (2 * h).')


def check_grad(f, xs, tol=1e-4):
    """True if backward() and numerical_grad agree on d f(*xs) / d x for every x in xs.

    They agree when |analytic - numeric| <= tol * max(1, |numeric|) for every input. The
    gradients of the whole graph of f(*xs) are zeroed first (the inputs f uses, and any node
    built before f was called), so the verdict does not depend on what they held before.
    """
    # TODO(lab03_backprop): Build out = f(*xs), zero the gradients of its graph, call out.backward() and read
    #    each x.grad; compare them with numerical_grad(f, xs) within the tolerance above.
    # TODO(lab03_backprop) es: Construye out = f(*xs), pon a cero los gradientes de su grafo, llama a out.backward()
    #    y lee cada x.grad; compáralos con numerical_grad(f, xs) con la tolerancia de arriba.
    raise NotImplementedError('lab03_backprop, TODO 4: Build out = f(*xs), zero the gradients of its graph, call out.backward() and read each x.grad; compare them with numerical_grad(f, xs) within the tolerance above. / Construye out = f(*xs), pon a cero los gradientes de su grafo, llama a out.backward() y lee cada x.grad; compáralos con numerical_grad(f, xs) con la tolerancia de arriba.')
