"""Lab 01: grafos de cómputo. Carla."""


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        # primero ordenamos el grafo (hojas primero)
        topo = []
        visitados = set()

        def construir(v):
            if v not in visitados:
                visitados.add(v)
                for hijo in v._prev:
                    construir(hijo)
                topo.append(v)
        construir(self)

        # y luego recorremos al revés aplicando la regla de la cadena
        for v in reversed(topo):
            v._backward()
