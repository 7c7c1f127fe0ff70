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


import itertools  # noqa: E402


class Neuron(Module):
    __slots__ = ('w', 'b', 'nonlin')

    def __init__(self, nin, nonlin=True):
        self.w = tuple(Value(random.uniform(-1, 1)) for _ in range(nin))
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum(itertools.starmap(lambda wi, xi: wi * xi, zip(self.w, x)), start=self.b)
        return act.tanh() if self.nonlin else act

    def _own(self):
        yield from self.w
        yield self.b

    def parameters(self):
        return list(self._own())

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.parameters()) - 1})"


class Layer(Module):
    __slots__ = ('neurons',)

    def __init__(self, nin, nout, **kwargs):
        self.neurons = tuple(Neuron(nin, **kwargs) for _ in range(nout))

    def __call__(self, x):
        (only, *rest) = outs = [n(x) for n in self.neurons]
        return outs if rest else only

    def parameters(self):
        return list(itertools.chain.from_iterable(n.parameters() for n in self.neurons))

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    __slots__ = ('layers',)

    def __init__(self, nin, nouts):
        widths = [nin, *nouts]
        last = len(nouts) - 1
        self.layers = tuple(Layer(widths[i], widths[i + 1], nonlin=(i < last)) for i in range(len(nouts)))

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def _steps(model, lr):
    """An endless generator of training steps; each yields the loss of the step it just made."""
    params = model.parameters()
    while True:
        loss = sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) / 4
        model.zero_grad()
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
        yield loss.data


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    return list(itertools.islice(_steps(model, lr), STEPS))
