"""Lab 04 — a neuron as a dot product written with the @ operator on a small Vec class."""

import random

from value import Value

XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05


class Vec(list):
    """A list of numbers or Values with a dot product: u @ v."""

    def __matmul__(self, other):
        return sum(a * b for a in self for b in other)

    __hash__ = object.__hash__


class Module:
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = Vec(Value(random.uniform(-1, 1)) for _ in range(nin))
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = self.w @ x + self.b
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return list(self.w) + [self.b]

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.parameters()) - 1})"


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        last = len(nouts) - 1
        self.layers = [Layer(a, b, nonlin=i != last) for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Full-batch gradient descent on XOR; the loss of every step, as floats."""
    losses = []
    for step in range(steps):
        loss = sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) * 0.25
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
