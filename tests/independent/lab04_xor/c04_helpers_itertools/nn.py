"""Lab 04 — training XOR: neurons, layers, a multilayer perceptron, and the loop that trains it."""

import random

from value import Value

XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05

import itertools


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
        return list(itertools.chain(self.w, [self.b]))


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return list(itertools.chain.from_iterable(n.parameters() for n in self.neurons))


class MLP(Module):
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = []
        for i in range(len(nouts)):
            self.layers.append(Layer(sizes[i], sizes[i + 1], nonlin=i < len(nouts) - 1))

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return list(itertools.chain.from_iterable(l.parameters() for l in self.layers))


def mse(model):
    errs = [(model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)]
    return sum(errs) / len(errs)


def sgd_step(model, lr):
    for p in model.parameters():
        p.data -= lr * p.grad


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    history = []
    for _ in range(steps):
        loss = mse(model)
        model.zero_grad()
        loss.backward()
        sgd_step(model, lr)
        history.append(loss.data)
    return history
