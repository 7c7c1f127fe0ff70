"""Lab 01: grafos de cómputo. Ana."""


class Value:
    """Un escalar que recuerda cómo se calculó."""

    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None  # una hoja no propaga nada
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _como_value(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._como_value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            # d(a+b)/da = d(a+b)/db = 1
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value._como_value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            # d(a*b)/da = b, d(a*b)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):  # número + Value
        return self + other

    def __rmul__(self, other):  # número * Value
        return self * other

    def _orden_topologico(self):
        # DFS en post-orden con una pila explícita: cada nodo va después de sus padres
        orden, visitados = [], set()
        pila = [(self, False)]
        while pila:
            nodo, listo = pila.pop()
            if listo:
                orden.append(nodo)
            elif nodo not in visitados:
                visitados.add(nodo)
                pila.append((nodo, True))
                pila.extend((padre, False) for padre in nodo._prev)
        return orden

    def backward(self):
        orden = self._orden_topologico()
        self.grad = 1.0  # d(self)/d(self)
        for nodo in reversed(orden):
            nodo._backward()
