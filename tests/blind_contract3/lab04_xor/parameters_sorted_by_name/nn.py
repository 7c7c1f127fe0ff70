"""Lab 04 — a PyTorch-like module tree: children(), named_parameters(), recursive parameters."""

import random

from value import Value

XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05


class Module:
    """A node of the module tree: its own parameters, its child modules, and theirs."""

    def children(self):
        return []

    def own_parameters(self):
        return []

    def named_parameters(self, prefix=''):
        for i, p in enumerate(self.own_parameters()):
            yield f"{prefix}p{i}", p
        for i, child in enumerate(self.children()):
            yield from child.named_parameters(f"{prefix}{i}.")

    def parameters(self):
        return [p for _, p in sorted(self.named_parameters(), key=lambda item: item[0])]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.tanh() if self.nonlin else act

    def own_parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.parameters()) - 1})"


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def children(self):
        return self.neurons

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin] + list(nouts)
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def children(self):
        return self.layers

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Full-batch gradient descent on XOR; the loss of every step, as floats."""
    losses = []
    for _ in range(steps):
        loss = sum((model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)) / 4
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
