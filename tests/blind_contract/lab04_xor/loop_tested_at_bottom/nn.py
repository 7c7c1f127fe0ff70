"""Lab 04 network: the dot product by functools.reduce, parameters by itertools.chain, an sgd helper."""
import functools
import itertools
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
        act = functools.reduce(lambda acc, wx: acc + wx[0] * wx[1], zip(self.w, x), self.b)
        return act.tanh() if self.nonlin else act

    def parameters(self):
        return list(itertools.chain(self.w, [self.b]))


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        if len(out) == 1:
            return out[0]
        return out

    def parameters(self):
        return list(itertools.chain.from_iterable(n.parameters() for n in self.neurons))


class MLP(Module):
    def __init__(self, nin, nouts):
        ins = [nin] + list(nouts)
        self.layers = []
        for i, (a, b) in enumerate(zip(ins, ins[1:])):
            self.layers.append(Layer(a, b, nonlin=i != len(nouts) - 1))

    def __call__(self, x):
        return functools.reduce(lambda h, layer: layer(h), self.layers, x)

    def parameters(self):
        return list(itertools.chain.from_iterable(layer.parameters() for layer in self.layers))


def _mse(model):
    total = Value(0.0)
    for x, y in zip(XOR_INPUTS, XOR_TARGETS):
        d = model(x) - y
        total = total + d * d
    return total / 4


def _sgd(params, lr):
    for p in params:
        p.data = p.data - lr * p.grad


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    losses = []
    params = model.parameters()
    while True:
        loss = _mse(model)
        model.zero_grad()
        loss.backward()
        _sgd(params, lr)
        losses.append(float(loss.data))
        if len(losses) >= steps:
            break
    return losses
