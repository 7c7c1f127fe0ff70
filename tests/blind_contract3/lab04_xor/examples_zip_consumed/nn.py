"""Lab 04 — training as an iterator: train_xor lists what a Trainer object yields."""

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
            p.grad = 0.0

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
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return [*self.w, self.b]

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
        sizes = [nin, *nouts]
        self.layers = []
        for i in range(len(nouts)):
            self.layers.append(Layer(sizes[i], sizes[i + 1], nonlin=i < len(nouts) - 1))

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


class Trainer:
    """An iterator over training steps: each next() runs one step and returns its loss."""

    def __init__(self, model, steps, lr):
        self.model = model
        self.steps = steps
        self.lr = lr
        self.done = 0
        self.examples = zip(XOR_INPUTS, XOR_TARGETS)

    def __iter__(self):
        return self

    def loss(self):
        errors = [(self.model(x) - y) ** 2 for x, y in self.examples]
        return sum(errors) / len(errors)

    def __next__(self):
        if self.done >= self.steps:
            raise StopIteration
        loss = self.loss()
        self.model.zero_grad()
        loss.backward()
        for p in self.model.parameters():
            p.data -= self.lr * p.grad
        self.done += 1
        return loss.data


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Full-batch gradient descent on XOR; the loss of every step, as floats."""
    return list(Trainer(model, steps, lr))
