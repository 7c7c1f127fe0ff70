"""Lab 04: a small MLP trained on XOR."""

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
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
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
        return outs if len(outs) > 1 else outs[0]

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


def _build(sizes, last_index, i=0):
    """The layers from index i on, built recursively in order (layer i is drawn before i + 1)."""
    if i == last_index + 1:
        return []
    first = Layer(sizes[i], sizes[i + 1], nonlin=i != last_index)
    return [first] + _build(sizes, last_index, i + 1)


def _run(layers, x):
    """Feed x through the layers, recursively: the first layer, then the rest."""
    if not layers:
        return x
    return _run(layers[1:], layers[0](x))


class MLP(Module):

    def __init__(self, nin, nouts):
        self.layers = _build([nin] + list(nouts), len(nouts) - 1)

    def __call__(self, x):
        return _run(self.layers, x)

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def _loss(model):
    return sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) / len(XOR_INPUTS)


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    losses = []
    for _ in range(steps):
        loss = _loss(model)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
