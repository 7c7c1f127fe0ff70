"""Lab 04 — training XOR: neurons, layers, a multilayer perceptron, and the loop that trains it."""

import random

from value import Value

XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05


class Module:
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0

    def parameters(self):
        return []


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = []
        for _ in range(nin):
            self.w.append(Value(random.uniform(-1, 1)))
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        xs = [xi if isinstance(xi, Value) else Value(xi) for xi in x]
        total = self.b.data + sum(wi.data * xi.data for wi, xi in zip(self.w, xs))
        act = Value(total, tuple(self.w) + tuple(xs) + (self.b,), 'dot')

        parts = []
        for wi, xi in zip(self.w, xs):
            def pair():
                wi.grad += xi.data * act.grad
                xi.grad += wi.data * act.grad
            parts.append(pair)

        def _backward():
            for part in parts:
                part()
            self.b.grad += act.grad
        act._backward = _backward
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return [*self.w, self.b]


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out if len(out) > 1 else out[0]

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        last = len(nouts) - 1
        self.layers = [Layer(a, b, nonlin=i < last) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    losses = []
    for _ in range(steps):
        loss = Value(0.0)
        for x, y in zip(XOR_INPUTS, XOR_TARGETS):
            diff = model(x) - y
            loss = loss + diff * diff
        loss = loss * 0.25
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
