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

    def __init__(self, nin, nonlin=True, weights=None):
        self.w = []
        for i in range(nin):
            self.w.append(Value(weights[i] if weights is not None else random.uniform(-1, 1)))
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        total = self.b
        for wi, xi in zip(self.w, x):
            total = total + wi * xi
        if self.nonlin:
            return total.tanh()
        return total

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.parameters()) - 1})"


class Layer(Module, list):
    """A layer IS a list of neurons."""

    __hash__ = object.__hash__

    def __init__(self, nin, nout, **kwargs):
        # the weight matrix, one row per input (W[j][i] connects input j to neuron i)
        matrix = [[random.uniform(-1, 1) for _ in range(nout)] for _ in range(nin)]
        list.__init__(self, (Neuron(nin, weights=[row[i] for row in matrix], **kwargs) for i in range(nout)))

    @property
    def neurons(self):
        return list(self)

    def __call__(self, x):
        if len(self) == 1:
            return self[0](x)
        return [neuron(x) for neuron in self]

    def parameters(self):
        params = []
        for neuron in self:
            params.extend(neuron.parameters())
        return params

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self)}]"


class MLP(Module, list):
    """An MLP IS a list of layers."""

    __hash__ = object.__hash__

    def __init__(self, nin, nouts):
        sizes = [nin, *nouts]
        list.__init__(self)
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            self.append(Layer(a, b, nonlin=i < len(nouts) - 1))

    @property
    def layers(self):
        return list(self)

    def __call__(self, x):
        for layer in self:
            x = layer(x)
        return x

    def parameters(self):
        params = []
        for layer in self:
            params.extend(layer.parameters())
        return params

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self)}]"


def _sgd(params, lr):
    """A function that moves every parameter against its gradient."""
    def step():
        for p in params:
            p.data -= lr * p.grad
    return step


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    step = _sgd(model.parameters(), lr)
    history = []
    for _ in range(steps):
        errors = [(model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)]
        loss = sum(errors) / 4
        model.zero_grad()
        loss.backward()
        step()
        history.append(loss.data)
    return history
