"""Lab 04: every module keeps its parameters in a dict by name; each example is backpropagated on its own."""
import random

from value import Value

XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05
LOSSES = []  # every loss seen, to plot


class Module:
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self):
        return []


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.params = {}
        for i in range(nin):
            self.params[f"w{i}"] = Value(random.uniform(-1, 1))
        self.params["b"] = Value(0.0)
        self.nin = nin
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum((self.params[f"w{i}"] * x[i] for i in range(self.nin)), self.params["b"])
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return list(self.params.values())

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({self.nin})"


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.params = {f"n{j}": Neuron(nin, **kwargs) for j in range(nout)}

    @property
    def neurons(self):
        return list(self.params.values())

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin, *nouts]
        self.params = {}
        for i in range(len(nouts)):
            self.params[f"layer{i}"] = Layer(sizes[i], sizes[i + 1], nonlin=(i + 1 < len(nouts)))

    @property
    def layers(self):
        return list(self.params.values())

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Gradient descent on XOR, each example backpropagated on its own, one update per step."""
    losses = LOSSES
    for _ in range(steps):
        model.zero_grad()
        total = 0.0
        for x, y in zip(XOR_INPUTS, XOR_TARGETS):
            err = (model(x) - y) ** 2 / len(XOR_INPUTS)
            err.backward()
            total += err.data
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(total)
    return losses
