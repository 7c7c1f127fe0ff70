"""Lab 04 — training XOR: neurons, layers, a multilayer perceptron, and the loop that trains it.

Lab 04 — entrenar XOR: neuronas, capas, un perceptrón multicapa y el bucle que lo entrena.
"""

import random

from value import Value

# The four XOR examples, with -1 for false and 1 for true so that they sit in the range of
# tanh: the target is 1 exactly when the two inputs differ.
# Los cuatro ejemplos de XOR, con -1 para falso y 1 para verdadero, dentro del rango de
# tanh: el objetivo vale 1 exactamente cuando las dos entradas son distintas.
XOR_INPUTS = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
XOR_TARGETS = [-1.0, 1.0, 1.0, -1.0]

# The stated loss: after random.seed(s), train_xor(MLP(2, [4, 1])) with these defaults
# returns losses whose last one is below TARGET_LOSS.
# La pérdida pedida: tras random.seed(s), train_xor(MLP(2, [4, 1])) con estos valores por
# defecto devuelve pérdidas cuya última está por debajo de TARGET_LOSS.
STEPS = 150
LEARNING_RATE = 0.2
TARGET_LOSS = 0.05


class Module:
    """What every part of the network has: its parameters, and a way to reset their gradients."""

    def zero_grad(self):
        # BEGIN SOLUTION
        # en: Set the grad of every parameter of this module back to 0.
        # es: Vuelve a poner a 0 el grad de cada parámetro de este módulo.
        for p in self.parameters():
            p.grad = 0.0
        # END SOLUTION

    def parameters(self):
        return []


class Neuron(Module):
    """tanh(w · x + b), or just w · x + b when nonlin is False."""

    def __init__(self, nin, nonlin=True):
        # BEGIN SOLUTION
        # en: Make nin weights, each Value(random.uniform(-1, 1)), drawn one after another,
        #    and a bias Value(0.0); remember nonlin.
        # es: Crea nin pesos, cada uno Value(random.uniform(-1, 1)), sorteados uno tras otro,
        #    y un sesgo Value(0.0); guarda nonlin.
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin
        # END SOLUTION

    def __call__(self, x):
        # BEGIN SOLUTION
        # en: Return tanh(w · x + b) as a Value, or w · x + b when nonlin is False.
        # es: Devuelve tanh(w · x + b) como Value, o w · x + b si nonlin es False.
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh() if self.nonlin else act
        # END SOLUTION

    def parameters(self):
        # BEGIN SOLUTION
        # en: Return the weights, in order, then the bias: the Values themselves, not copies.
        # es: Devuelve los pesos, en orden, y luego el sesgo: los propios Values, no copias.
        return self.w + [self.b]
        # END SOLUTION

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.parameters()) - 1})"


class Layer(Module):
    """nout neurons that all read the same inputs."""

    def __init__(self, nin, nout, **kwargs):
        # BEGIN SOLUTION
        # en: Make nout neurons of nin inputs each, passing kwargs (nonlin) on to them.
        # es: Crea nout neuronas de nin entradas cada una, pasándoles kwargs (nonlin).
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]
        # END SOLUTION

    def __call__(self, x):
        # BEGIN SOLUTION
        # en: Return the list of the neurons' outputs, or the only output itself when there
        #    is one neuron.
        # es: Devuelve la lista de salidas de las neuronas, o la única salida si solo hay
        #    una neurona.
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out
        # END SOLUTION

    def parameters(self):
        # BEGIN SOLUTION
        # en: Return the parameters of every neuron, neuron after neuron.
        # es: Devuelve los parámetros de todas las neuronas, una neurona tras otra.
        return [p for n in self.neurons for p in n.parameters()]
        # END SOLUTION

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts, one after another; tanh everywhere except the last layer."""

    def __init__(self, nin, nouts):
        # BEGIN SOLUTION
        # en: Make one Layer per entry of nouts, each reading the outputs of the one before;
        #    every layer is tanh except the last, which is linear (nonlin=False).
        # es: Crea una Layer por cada elemento de nouts, cada una leyendo las salidas de la
        #    anterior; todas son tanh salvo la última, que es lineal (nonlin=False).
        sizes = [nin] + nouts
        self.layers = [Layer(sizes[i], sizes[i + 1], nonlin=i != len(nouts) - 1)
                       for i in range(len(nouts))]
        # END SOLUTION

    def __call__(self, x):
        # BEGIN SOLUTION
        # en: Feed x through the layers in order and return what the last one returns.
        # es: Pasa x por las capas en orden y devuelve lo que devuelve la última.
        for layer in self.layers:
            x = layer(x)
        return x
        # END SOLUTION

    def parameters(self):
        # BEGIN SOLUTION
        # en: Return the parameters of every layer, layer after layer.
        # es: Devuelve los parámetros de todas las capas, una capa tras otra.
        return [p for layer in self.layers for p in layer.parameters()]
        # END SOLUTION

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Train model on XOR by full-batch gradient descent; return the loss of every step."""
    # BEGIN SOLUTION
    # en: Repeat steps times: the loss is the mean of (model(x) - y) ** 2 over the four
    #    examples; reset the gradients, backward(), then p.data -= lr * p.grad for every
    #    parameter. Return the list of the steps' losses (floats, before each update).
    # es: Repite steps veces: la pérdida es la media de (model(x) - y) ** 2 sobre los cuatro
    #    ejemplos; pon los gradientes a cero, backward(), y luego p.data -= lr * p.grad en
    #    cada parámetro. Devuelve la lista de pérdidas (floats, antes de cada actualización).
    losses = []
    for _ in range(steps):
        # forward: the whole graph of this step's loss, at the current parameters
        errors = [(model(x) - y) ** 2 for x, y in zip(XOR_INPUTS, XOR_TARGETS)]
        loss = sum(errors) / len(errors)
        # backward: gradients start from zero, so they belong to this loss alone
        model.zero_grad()
        loss.backward()
        # update: only now that every gradient is known does any data change
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
    # END SOLUTION
