"""Lab 04 network: map(operator.mul) for w · x, layers iterable, the loss times 0.25, a while loop."""
import operator
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
        act = sum(map(operator.mul, self.w, x), self.b)
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __iter__(self):
        return iter(self.neurons)

    def __call__(self, x):
        outs = [neuron(x) for neuron in self]
        return outs if len(outs) != 1 else outs[0]

    def parameters(self):
        return [p for neuron in self for p in neuron.parameters()]


class MLP(Module):
    def __init__(self, nin, nouts):
        self.layers = []
        n_in = nin
        for k, n_out in enumerate(nouts):
            self.layers.append(Layer(n_in, n_out, nonlin=k + 1 < len(nouts)))
            n_in = n_out

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        params = []
        for layer in self.layers:
            params.extend(layer.parameters())
        return params


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    losses = []
    step = 0
    while step <= steps:
        errs = [(model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)]
        loss = sum(errs) * 0.25
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
        step += 1
    return losses
