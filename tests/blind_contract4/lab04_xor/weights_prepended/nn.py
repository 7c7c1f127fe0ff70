"""Lab 04: modules are abstract base classes and iterable over their parameters."""
import abc
import random

from value import Value

XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05


class Module(abc.ABC):
    @abc.abstractmethod
    def parameters(self):
        """The module's own Values."""

    def __iter__(self):
        return iter(self.parameters())

    def zero_grad(self):
        for p in self:
            p.grad = 0.0


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = []
        for _ in range(nin):
            self.w.insert(0, Value(random.uniform(-1, 1)))
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        if self.nonlin:
            return act.tanh()
        return act

    def parameters(self):
        return [*self.w, self.b]

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = []
        for _ in range(nout):
            self.neurons.append(Neuron(nin, **kwargs))

    def __call__(self, x):
        outs = [neuron(x) for neuron in self.neurons]
        if len(outs) == 1:
            return outs[0]
        return outs

    def parameters(self):
        params = []
        for neuron in self.neurons:
            params.extend(neuron)
        return params


class MLP(Module):
    def __init__(self, nin, nouts):
        self.layers = []
        fan_in = nin
        for i, nout in enumerate(nouts):
            self.layers.append(Layer(fan_in, nout, nonlin=i < len(nouts) - 1))
            fan_in = nout

    def __call__(self, x):
        out = x
        for layer in self.layers:
            out = layer(out)
        return out

    def parameters(self):
        params = []
        for layer in self.layers:
            params.extend(layer)
        return params


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Full-batch gradient descent on XOR; the loss of every step."""
    losses = []
    while len(losses) < steps:
        total = 0
        for x, y in zip(XOR_INPUTS, XOR_TARGETS):
            loss = (model(x) - y) ** 2
            total = total + loss
        total = total / 4
        model.zero_grad()
        total.backward()
        for p in model:
            p.data -= lr * p.grad
        losses.append(total.data)
    return losses
