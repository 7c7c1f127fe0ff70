# lab04_xor: write the TODOs below, in order; `make check LAB=lab04_xor` checks them.
# lab04_xor: escribe los TODO de abajo, en orden; `make check LAB=lab04_xor` los comprueba.
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
        # TODO(lab04_xor): Set the grad of every parameter of this module back to 0.
        # TODO(lab04_xor) es: Vuelve a poner a 0 el grad de cada parámetro de este módulo.
        raise NotImplementedError('lab04_xor, TODO 1: Set the grad of every parameter of this module back to 0. / Vuelve a poner a 0 el grad de cada parámetro de este módulo.')

    def parameters(self):
        return []


class Neuron(Module):
    """tanh(w · x + b), or just w · x + b when nonlin is False."""

    def __init__(self, nin, nonlin=True):
        # TODO(lab04_xor): Make nin weights, each Value(random.uniform(-1, 1)), drawn one after another,
        #    and a bias Value(0.0); remember nonlin.
        # TODO(lab04_xor) es: Crea nin pesos, cada uno Value(random.uniform(-1, 1)), sorteados uno tras otro,
        #    y un sesgo Value(0.0); guarda nonlin.
        raise NotImplementedError('lab04_xor, TODO 2: Make nin weights, each Value(random.uniform(-1, 1)), drawn one after another, and a bias Value(0.0); remember nonlin. / Crea nin pesos, cada uno Value(random.uniform(-1, 1)), sorteados uno tras otro, y un sesgo Value(0.0); guarda nonlin.')

    def __call__(self, x):
        # TODO(lab04_xor): Return tanh(w · x + b) as a Value, or w · x + b when nonlin is False.
        # TODO(lab04_xor) es: Devuelve tanh(w · x + b) como Value, o w · x + b si nonlin es False.
        raise NotImplementedError('lab04_xor, TODO 3: Return tanh(w · x + b) as a Value, or w · x + b when nonlin is False. / Devuelve tanh(w · x + b) como Value, o w · x + b si nonlin es False.')

    def parameters(self):
        # TODO(lab04_xor): Return the weights, in order, then the bias: the Values themselves, not copies.
        # TODO(lab04_xor) es: Devuelve los pesos, en orden, y luego el sesgo: los propios Values, no copias.
        raise NotImplementedError('lab04_xor, TODO 4: Return the weights, in order, then the bias: the Values themselves, not copies. / Devuelve los pesos, en orden, y luego el sesgo: los propios Values, no copias.')

    def __repr__(self):
        return f"{'Tanh' if self.nonlin else 'Linear'}Neuron({len(self.parameters()) - 1})"


class Layer(Module):
    """nout neurons that all read the same inputs."""

    def __init__(self, nin, nout, **kwargs):
        # TODO(lab04_xor): Make nout neurons of nin inputs each, passing kwargs (nonlin) on to them.
        # TODO(lab04_xor) es: Crea nout neuronas de nin entradas cada una, pasándoles kwargs (nonlin).
        raise NotImplementedError('lab04_xor, TODO 5: Make nout neurons of nin inputs each, passing kwargs (nonlin) on to them. / Crea nout neuronas de nin entradas cada una, pasándoles kwargs (nonlin).')

    def __call__(self, x):
        # TODO(lab04_xor): Return the list of the neurons' outputs, or the only output itself when there
        #    is one neuron.
        # TODO(lab04_xor) es: Devuelve la lista de salidas de las neuronas, o la única salida si solo hay
        #    una neurona.
        raise NotImplementedError("lab04_xor, TODO 6: Return the list of the neurons' outputs, or the only output itself when there is one neuron. / Devuelve la lista de salidas de las neuronas, o la única salida si solo hay una neurona.")

    def parameters(self):
        # TODO(lab04_xor): Return the parameters of every neuron, neuron after neuron.
        # TODO(lab04_xor) es: Devuelve los parámetros de todas las neuronas, una neurona tras otra.
        raise NotImplementedError('lab04_xor, TODO 7: Return the parameters of every neuron, neuron after neuron. / Devuelve los parámetros de todas las neuronas, una neurona tras otra.')

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """Layers of sizes nouts, one after another; tanh everywhere except the last layer."""

    def __init__(self, nin, nouts):
        # TODO(lab04_xor): Make one Layer per entry of nouts, each reading the outputs of the one before;
        #    every layer is tanh except the last, which is linear (nonlin=False).
        # TODO(lab04_xor) es: Crea una Layer por cada elemento de nouts, cada una leyendo las salidas de la
        #    anterior; todas son tanh salvo la última, que es lineal (nonlin=False).
        raise NotImplementedError('lab04_xor, TODO 8: Make one Layer per entry of nouts, each reading the outputs of the one before; every layer is tanh except the last, which is linear (nonlin=False). / Crea una Layer por cada elemento de nouts, cada una leyendo las salidas de la anterior; todas son tanh salvo la última, que es lineal (nonlin=False).')

    def __call__(self, x):
        # TODO(lab04_xor): Feed x through the layers in order and return what the last one returns.
        # TODO(lab04_xor) es: Pasa x por las capas en orden y devuelve lo que devuelve la última.
        raise NotImplementedError('lab04_xor, TODO 9: Feed x through the layers in order and return what the last one returns. / Pasa x por las capas en orden y devuelve lo que devuelve la última.')

    def parameters(self):
        # TODO(lab04_xor): Return the parameters of every layer, layer after layer.
        # TODO(lab04_xor) es: Devuelve los parámetros de todas las capas, una capa tras otra.
        raise NotImplementedError('lab04_xor, TODO 10: Return the parameters of every layer, layer after layer. / Devuelve los parámetros de todas las capas, una capa tras otra.')

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def train_xor(model, steps=STEPS, lr=LEARNING_RATE):
    """Train model on XOR by full-batch gradient descent; return the loss of every step."""
    # TODO(lab04_xor): Repeat steps times: the loss is the mean of (model(x) - y) ** 2 over the four
    #    examples; reset the gradients, backward(), then p.data -= lr * p.grad for every
    #    parameter. Return the list of the steps' losses (floats, before each update).
    # TODO(lab04_xor) es: Repite steps veces: la pérdida es la media de (model(x) - y) ** 2 sobre los cuatro
    #    ejemplos; pon los gradientes a cero, backward(), y luego p.data -= lr * p.grad en
    #    cada parámetro. Devuelve la lista de pérdidas (floats, antes de cada actualización).
    raise NotImplementedError("lab04_xor, TODO 11: Repeat steps times: the loss is the mean of (model(x) - y) ** 2 over the four examples; reset the gradients, backward(), then p.data -= lr * p.grad for every parameter. Return the list of the steps' losses (floats, before each update). / Repite steps veces: la pérdida es la media de (model(x) - y) ** 2 sobre los cuatro ejemplos; pon los gradientes a cero, backward(), y luego p.data -= lr * p.grad en cada parámetro. Devuelve la lista de pérdidas (floats, antes de cada actualización).")
