"""A scalar autograd engine whose backward pass lets the standard library order the graph.

backward() collects the nodes the output depends on into a dict {node: its parents} and hands
it to graphlib.TopologicalSorter, whose static_order() yields every node after its parents;
the _backward closures then run in the reverse of that order.
"""
from graphlib import TopologicalSorter


def _leaf_backward():
    return None


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = _leaf_backward
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

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

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * self

    def _graph(self):
        """{node: its parents} for every node this one depends on (itself included)."""
        graph = {}
        todo = [self]
        while todo:
            node = todo.pop()
            if node not in graph:
                graph[node] = node._prev
                todo.extend(node._prev)
        return graph

    def backward(self):
        order = list(TopologicalSorter(self._graph()).static_order())
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
