"""Lab 04 scenarios: build the student's network, train it, and report what happened as numbers.

Side: sandbox child. Each function's source is shipped to the child and run there against the
student's code (and, for hidden checks, in the trusted process against the reference solution).
A scenario may use only its parameters and the helpers of `grader.grading.child.graph`: module
globals do not travel with it. This module imports nothing of the trusted side.

Lab 04 exports the whole module, so the first parameter of every scenario is the student's
`nn.py` itself: scenarios reach `nn.Neuron`, `nn.Layer`, `nn.MLP`, `nn.train_xor` and the
given engine `nn.Value` through it. Each scenario seeds Python's `random` before it builds a
model, so the student's run and a reference run with the same seed start from the same
weights (when the student's initialisation follows the contract), and restores the state of
`random` afterwards, which matters only in the trusted process. A scenario that patches the
engine to watch the training loop undoes the patch before returning, for the same reason.
"""

from grader.grading.child.graph import RECORD_CAP, called, data_of, finite_or_none, number
from grader.grading.child.scenario import Scenario, scenario
from grader.grading.child.schema import (
    COUNT,
    ERROR_TEXT,
    MANY,
    NUMBERS,
    TYPE_NAME,
    Bool,
    Columns,
    Int,
    ListOf,
    Num,
    Obj,
    OneOf,
    ReplySchema,
    Str,
    exactly,
    with_lists,
)


@scenario
def module_forward(nn, seed, kind, args, kwargs, x):
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        module = getattr(nn, kind)(*args, **kwargs)
        params = list(module.parameters())
        out = module(x)
    finally:
        random.setstate(state)
    result: dict = {"count": len(params), "distinct": len({id(p) for p in params})}
    odd = [type(p).__name__ for p in params if not isinstance(p, nn.Value)]
    if odd:
        result["not_value"] = odd[0]
        return result
    result["params"] = [data_of(p, f"parameters()[{i}]") for i, p in enumerate(params)]
    if isinstance(out, nn.Value):
        result["shape"] = "Value"
        result["outputs"] = [data_of(out, "out")]
    elif type(out) is list and all(isinstance(o, nn.Value) for o in out):
        result["shape"] = f"list of {len(out)} Values"
        result["outputs"] = [data_of(o, f"out[{i}]") for i, o in enumerate(out)]
    else:
        result["shape"] = type(out).__name__
    return result


@scenario
def seeded_parameters(nn, seed, kind, args):
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        params = list(getattr(nn, kind)(*args).parameters())
    finally:
        random.setstate(state)
    return {"params": [data_of(p, f"parameters()[{i}]") for i, p in enumerate(params)]}


@scenario
def zero_grad_module(nn, grads):
    # Module.zero_grad on the smallest module there is: one whose parameters() are given here.
    values = [nn.Value(1.0) for _ in grads]
    for value, grad in zip(values, grads, strict=True):
        value.grad = grad

    given = type("Given", (nn.Module,), {"parameters": lambda self: values})
    given().zero_grad()
    return {"grads": [number(v.grad, f"parameters()[{i}].grad") for i, v in enumerate(values)]}


@scenario
def neuron_output(nn, seed, x, nonlin):
    # A neuron's output alone: no call to parameters(), so it can be checked before that TODO.
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        out = nn.Neuron(len(x), nonlin=nonlin)(x)
    finally:
        random.setstate(state)
    if not isinstance(out, nn.Value):
        return {"type": type(out).__name__}
    return {"type": "Value", "out": data_of(out, "out")}


@scenario
def parameters_identity(nn, seed, kinds=("Neuron", "Layer", "MLP")):
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        every = {"Neuron": ("Neuron(3)", lambda: nn.Neuron(3)),
                 "Layer": ("Layer(3, 2)", lambda: nn.Layer(3, 2)),
                 "MLP": ("MLP(2, [4, 1])", lambda: nn.MLP(2, [4, 1]))}
        modules = [(every[kind][0], every[kind][1]()) for kind in kinds]
        report = []
        for name, module in modules:
            first = list(module.parameters())
            second = list(module.parameters())
            same = sum(1 for a, b in zip(first, second, strict=False) if a is b)
            report.append({"module": name, "total": len(first), "second": len(second),
                           "same": same})
    finally:
        random.setstate(state)
    return {"modules": report}


@scenario
def parameters_reach_model(nn, seed, x, delta, kind="MLP"):
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        model = nn.MLP(2, [4, 1]) if kind == "MLP" else nn.Neuron(len(x))
        out = model(x)
        leaves, seen, stack = set(), set(), [out]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            parents = list(node._prev)
            if not parents:
                leaves.add(id(node))
            stack.extend(parents)
        params = list(model.parameters())
        in_graph = sum(1 for p in params if id(p) in leaves)
        before = data_of(out, "model(x)")
        # a parameter outside the graph that still moves the output is the model's own, read
        # through .data somewhere: the graph is cut, not the parameter copied
        cut = 0
        for p in params:
            if id(p) not in leaves:
                saved = p.data
                p.data = saved + delta
                moved = data_of(model(x), "model(x)") != before
                p.data = saved
                cut += 1 if moved else 0
        for p in params:
            p.data += delta
        after = data_of(model(x), "model(x)")
    finally:
        random.setstate(state)
    return {"total": len(params), "in_graph": in_graph, "before": before, "after": after,
            "cut": cut}


@scenario
def zero_grad_resets(nn, seed, x, y):
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        model = nn.MLP(2, [4, 1])
        loss = (model(x) - y) ** 2
        loss.backward()
        params = list(model.parameters())
        nonzero = sum(1 for p in params if p.grad != 0)
        model.zero_grad()
    finally:
        random.setstate(state)
    return {"nonzero_before": nonzero,
            "grads": [number(p.grad, f"parameters()[{i}].grad") for i, p in enumerate(params)]}


@scenario
def gradients_and_differences(nn, seed, h):
    import random
    xs = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
    ys = [-1.0, 1.0, 1.0, -1.0]
    state = random.getstate()
    random.seed(seed)
    try:
        model = nn.MLP(2, [4, 1])
        params = list(model.parameters())

        def loss_of():
            return sum((model(x) - y) ** 2 for x, y in zip(xs, ys, strict=True)) / len(xs)
        loss_of().backward()
        grads = [number(p.grad, f"parameters()[{i}].grad") for i, p in enumerate(params)]
        plus, minus = [], []
        for p in params:
            saved = p.data
            p.data = saved + h
            plus.append(data_of(loss_of(), "loss"))
            p.data = saved - h
            minus.append(data_of(loss_of(), "loss"))
            p.data = saved
    finally:
        random.setstate(state)
    return {"grads": grads, "plus": plus, "minus": minus}


@scenario
def neuron_gradients(nn, seed, x):
    import random
    state = random.getstate()
    random.seed(seed)
    try:
        neuron = nn.Neuron(len(x))
        out = neuron(x)
        out.backward()
        params = list(neuron.parameters())
    finally:
        random.setstate(state)
    return {"out": data_of(out, "out"),
            "grads": [number(p.grad, f"parameters()[{i}].grad") for i, p in enumerate(params)]}


@scenario
def train_and_evaluate(nn, seed, steps, lr, layers=(4, 1), call=None):
    # steps=None: train_xor(model) with the defaults nn.py gives it. call: how MLP and
    # train_xor are called, by the README's signatures MLP(nin, nouts) and
    # train_xor(model, steps, lr): None as the README's example (MLP by position, steps= and
    # lr= by name), "positional" (every argument in order) or "keyword" (each by its name)
    import random
    xs = [[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]
    state = random.getstate()
    random.seed(seed)
    try:
        model = (nn.MLP(nin=2, nouts=list(layers)) if call == "keyword"
                 else nn.MLP(2, list(layers)))
        before = [data_of(model(x), "model(x)") for x in xs]
        drawn = random.getstate()  # the README: no random numbers while training
        if steps is None:
            losses = nn.train_xor(model)
        elif call is None:
            losses = nn.train_xor(model, steps=steps, lr=lr)
        else:
            losses = called(nn.train_xor, call, model=model, steps=steps, lr=lr)
        random_moved = random.getstate() != drawn
        after = [data_of(model(x), "model(x)") for x in xs]
    finally:
        random.setstate(state)
    if type(losses) is not list:
        return {"type": type(losses).__name__, "before": before, "after": after,
                "random_moved": random_moved}
    return {"type": "list", "before": before, "after": after, "random_moved": random_moved,
            "losses": [number(loss, f"losses[{i}]") for i, loss in enumerate(losses)]}


@scenario
def train_trace(nn, seed, steps, lr, stale=None):
    # Watches train_xor through the engine: the parents' data each node was built from, every
    # backward pass (the parameters changed since the forward pass, and the gradient it adds),
    # and every write to a parameter's data (the grad it read and the data before and after).
    import random
    state = random.getstate()
    random.seed(seed)
    Value = nn.Value
    try:
        model = nn.MLP(2, [4, 1])
        params = list(model.parameters())
    finally:
        random.setstate(state)
    if stale is not None:  # the model arrives with gradients, as an earlier backward() leaves them
        for p in params:
            p.grad = stale
    position = {id(p): i for i, p in enumerate(params)}
    built = {}
    pending = [0.0] * len(params)
    passes: list = []
    updates: list = []
    original_init, original_backward = Value.__init__, Value.backward
    own_data = vars(Value).get('data')

    def index_of(node):
        i = position.get(id(node))
        return i if i is not None and params[i] is node else None

    def traced_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        built[id(self)] = (self, [parent.data for parent in self._prev])

    def read_data(self):
        return self.__dict__['data']

    def write_data(self, new):
        i = index_of(self)
        if i is not None:
            if len(updates) < 10 * RECORD_CAP:
                updates.append([len(passes), i, self.grad, pending[i], self.__dict__.get('data'),
                                new])
            pending[i] = 0.0
        self.__dict__['data'] = new

    def traced_backward(self):
        changed, seen, stack = {}, set(), [self]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            entry = built.get(id(node))
            if entry is not None and entry[0] is node:
                for parent, then in zip(node._prev, entry[1], strict=False):
                    i = index_of(parent)
                    if i is not None and i not in changed and parent.data != then:
                        changed[i] = [then, parent.data]
            stack.extend(node._prev)
        before = [p.grad for p in params]
        original_backward(self)
        for i, p in enumerate(params):
            pending[i] += p.grad - before[i]
        passes.append(changed)

    Value.__init__ = traced_init
    Value.backward = traced_backward
    Value.data = property(read_data, write_data)
    try:
        nn.train_xor(model, steps=steps, lr=lr)
    finally:
        Value.__init__ = original_init
        Value.backward = original_backward
        if own_data is None:
            del Value.data
        else:
            Value.data = own_data
    changed_before_backward = []
    for call, changed in enumerate(passes, start=1):
        for i, (then, now) in sorted(changed.items()):
            changed_before_backward.append([call, i, number(then, f"parameters()[{i}].data"),
                                            number(now, f"parameters()[{i}].data")])
    update_rows = [[call, i, number(grad, f"parameters()[{i}].grad"), number(expected, "grad"),
                    number(old, f"parameters()[{i}].data"), number(new, f"parameters()[{i}].data")]
                   for call, i, grad, expected, old, new in updates]
    # Each row's fields by name, one list per field (each name once, however many rows): the
    # trusted side reads them back as records (verdicts.lab04_xor.TraceChange, TraceUpdate).
    return {
        "parameters": len(params),
        "passes": len(passes),
        "changed": {name: [row[k] for row in changed_before_backward[:20]]
                    for k, name in enumerate(("call", "param", "forward", "now"))},
        "updates": {name: [row[k] for row in update_rows]
                    for k, name in enumerate(("call", "param", "grad", "fresh", "old", "new"))},
    }


@scenario
def random_networks(nn, networks):
    # Each network: a module of the student's nn.py given these parameter values, and the loss
    # sum((o - y) ** 2) over its examples and outputs; the loss's data, and the gradient of
    # every parameter and (when the inputs are Values) of every input.
    import random
    Value = nn.Value
    results: list = []
    for net in networks:
        state = random.getstate()
        random.seed(0)
        try:
            module = getattr(nn, net["kind"])(*net["args"], **net["kwargs"])
        finally:
            random.setstate(state)
        params = list(module.parameters())
        if len(params) != len(net["params"]):
            results.append({"count": len(params)})
            continue
        for p, v in zip(params, net["params"], strict=True):
            p.data = v
        xs = [[Value(v) for v in x] if net["value_inputs"] else list(x) for x in net["X"]]
        try:
            loss = Value(0.0)
            for x, y in zip(xs, net["Y"], strict=True):
                out = module(x)
                for o in (out if isinstance(out, list) else [out]):
                    loss = loss + (o - y) ** 2
            loss.backward()
        except Exception as exc:  # noqa: BLE001 - reported, and judged on the trusted side
            results.append({"count": len(params), "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        inputs = [v for x in xs for v in x] if net["value_inputs"] else []
        results.append({
            "count": len(params),
            "loss": finite_or_none(loss.data, "loss.data"),
            "grads": [finite_or_none(p.grad, f"parameters()[{i}].grad") for i, p in enumerate(params)],
            "input_grads": [finite_or_none(v.grad, f"x[{i}].grad") for i, v in enumerate(inputs)],
        })
    return {"results": results}


@scenario
def arguments_kept(nn, seed, nin, nouts, x):
    # The lists a module is given, as the caller sees them after each call: MLP(nin, sizes),
    # a second MLP from the same list, then neuron(x), layer(x) and model(x) on copies of x (a
    # list of numbers). Each: kept if it holds the same items (each of the same type) as before.
    # And the parameter count of both MLPs built from the one list of sizes.
    import random

    def kept(given, before):
        return len(given) == len(before) and all(
            type(now) is type(then) and now == then for now, then in zip(given, before, strict=False))

    report: list = []

    def watch(name, call, given, before):
        report.append({"call": call, "list": name, "kept": kept(given, before),
                       "before": repr(before)[:200], "after": repr(given)[:200]})

    state = random.getstate()
    random.seed(seed)
    try:
        sizes = list(nouts)
        first = nn.MLP(nin, sizes)
        watch("nouts", f"MLP({nin}, nouts)", sizes, list(nouts))
        second = nn.MLP(nin, sizes)
        watch("nouts", f"MLP({nin}, nouts); MLP({nin}, nouts)", sizes, list(nouts))
        counts = [len(list(first.parameters())), len(list(second.parameters()))]
        for call, module in ((f"Neuron({nin})(x)", nn.Neuron(nin)),
                             (f"Layer({nin}, 2)(x)", nn.Layer(nin, 2)),
                             (f"MLP({nin}, nouts)(x)", first)):
            given = list(x)
            module(given)
            watch("x", call, given, list(x))
        watch("nouts", f"MLP({nin}, nouts)(x)", sizes, list(nouts))
    finally:
        random.setstate(state)
    return {"calls": report, "counts": counts}


# What each scenario may reply (checked at the boundary before any verdict reads it:
# grader.grading.sandbox.reply_schemas).
XOR_OUTPUTS = ListOf(Num(), 4, 4)
TRACE_ROWS = 10 * RECORD_CAP

REPLIES: dict[Scenario, ReplySchema] = {
    module_forward: Obj({"count": COUNT, "distinct": COUNT},
                                  {"not_value": TYPE_NAME, "params": NUMBERS, "shape": Str(),
                                   "outputs": NUMBERS}),
    seeded_parameters: Obj({"params": NUMBERS}),
    zero_grad_module: with_lists({"grads": exactly("grads", Num())}),
    neuron_output: Obj({"type": TYPE_NAME}, {"out": Num()}),
    parameters_identity: with_lists({"modules": exactly("kinds", Obj(
        {"module": Str(32), "total": COUNT, "second": COUNT, "same": COUNT}), default=3)}),
    parameters_reach_model: Obj({"total": COUNT, "in_graph": COUNT, "before": Num(),
                                 "after": Num(), "cut": COUNT}),
    zero_grad_resets: Obj({"nonzero_before": COUNT, "grads": NUMBERS}),
    gradients_and_differences: Obj({"grads": NUMBERS, "plus": NUMBERS,
                                              "minus": NUMBERS}),
    neuron_gradients: Obj({"out": Num(), "grads": NUMBERS}),
    train_and_evaluate: Obj({"type": TYPE_NAME, "before": XOR_OUTPUTS, "after": XOR_OUTPUTS,
                             "random_moved": Bool()}, {"losses": NUMBERS}),
    train_trace: Obj({
        "parameters": COUNT, "passes": COUNT,
        "changed": Columns(20, call=Int(1, 2 ** 53), param=Int(0, MANY), forward=Num(),
                           now=Num()),
        "updates": Columns(TRACE_ROWS, call=Int(0, 2 ** 53), param=Int(0, MANY), grad=Num(),
                           fresh=Num(), old=Num(), new=Num())}),
    arguments_kept: Obj({"calls": ListOf(Obj({"call": Str(64), "list": Str(8), "kept": Bool(),
                                              "before": Str(200), "after": Str(200)}), 8),
                         "counts": ListOf(COUNT, 2, 2)}),
    random_networks: with_lists({"results": exactly("networks", OneOf(
        Obj({"count": COUNT}),
        Obj({"count": COUNT, "error": ERROR_TEXT}),
        Obj({"count": COUNT, "loss": Num(nullable=True),
             "grads": ListOf(Num(nullable=True), MANY),
             "input_grads": ListOf(Num(nullable=True), MANY)})))}),
}
