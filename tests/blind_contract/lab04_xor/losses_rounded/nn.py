"""Lab 04 network: Neuron and MLP as dataclasses whose __post_init__ draws the weights."""
from dataclasses import dataclass, field
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


@dataclass(eq=False)
class Neuron(Module):
    nin: int
    nonlin: bool = True
    w: list = field(init=False, repr=False)
    b: Value = field(init=False, repr=False)

    def __post_init__(self):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(self.nin)]
        self.b = Value(0.0)

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return [*self.w, self.b]


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


@dataclass(eq=False)
class MLP(Module):
    nin: int
    nouts: list
    layers: list = field(init=False, repr=False)

    def __post_init__(self):
        sizes = [self.nin, *self.nouts]
        last = len(self.nouts) - 1
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=(i < last)) for i in range(len(self.nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    history = []
    for _ in range(steps):
        loss = sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) / len(XOR_INPUTS)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        history.append(round(loss.data, 6))
    return history
