"""Blind-corpus probe: runs every engine of tests/blind/<lab>/ and the reference solution on the
same scenarios and compares the results (not the grader; written without reading its checks).

    python tests/blind/_probes/probe.py [LAB ...] [--engine NAME] [--verbose]

Each engine runs in a child process of its own (its `value`/`nn` modules must not meet another
engine's), every scenario under a time limit. A correct engine must match the reference on every
scenario; a bug engine must differ on at least one. The exit status is 1 if either fails.
"""

import importlib.util
import json
import math
import pathlib
import random
import signal
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
BLIND = ROOT / 'tests' / 'blind'
LABS = ['lab01_graph', 'lab02_ops', 'lab03_backprop', 'lab04_xor']
TIME_LIMIT = 8.0  # seconds per scenario
REL, ABS = 1e-6, 1e-9


# -- helpers used inside the child ------------------------------------------------------------

class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def walk(root):
    """Every node below root (root included), iteratively, by identity."""
    seen, out, stack = set(), [], [root]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        out.append(v)
        stack.extend(v._prev)
    return out


def f(x):
    """A plain float (bools and ints too), so results compare as numbers."""
    return float(x)


def retype(prev, items):
    """A new _prev holding items, of the same kind as prev (tuple, list or set)."""
    return type(prev)(items)


# -- lab01 scenarios ----------------------------------------------------------------------------

def l1_basic(m):
    V = m.Value
    a, b, c = V(2.0), V(-3.0), V(10.0)
    d = a * b + c
    d.backward()
    return [f(d.data), a.grad, b.grad, c.grad, d.grad]


def l1_structure(m):
    V = m.Value
    a, b = V(2.0), V(3.0)
    s, p = a + b, a * b
    ids = {id(a), id(b)}
    return {
        'data': [f(s.data), f(p.data)],
        'values': isinstance(s, V) and isinstance(p, V),
        'prev': [{id(x) for x in s._prev} == ids, {id(x) for x in p._prev} == ids],
        'new_grad': [s.grad, p.grad],
        'labels_differ': s._op != p._op,
        'labels_set': bool(s._op) and bool(p._op),
        'leaf_label': a._op == '',
    }


def l1_leaf_backward(m):
    V = m.Value
    a = V(3.0)
    a.grad = 0.5
    a._backward()
    s = a + 1
    [k] = [x for x in s._prev if x is not a]
    k.grad = 0.25
    k._backward()
    return [a.grad, k.grad, isinstance(k, V), f(k.data)]


def l1_diamonds(m):
    V = m.Value
    res = []
    for build in (lambda a, b: a * b + a, lambda a, b: a + a, lambda a, b: a * a,
                  lambda a, b: (a * b) * a, lambda a, b: (a + b) * (a + b)):
        a, b = V(1.5), V(-2.5)
        out = build(a, b)
        out.backward()
        res.append([f(out.data), a.grad, b.grad])
    return res


def l1_numbers(m):
    V = m.Value
    res = []
    for build in (lambda a: a + 1, lambda a: 1 + a, lambda a: 2 * a, lambda a: a * 2,
                  lambda a: (3 + a) * (a * 4), lambda a: 2 * a * 5 + 1):
        a = V(1.25)
        out = build(a)
        ok = isinstance(out, V)
        out.backward()
        res.append([ok, f(out.data), a.grad])
    return res


def l1_leaf_output(m):
    a = m.Value(5.0)
    a.backward()
    return [a.grad]


def l1_upstream(m):
    V = m.Value
    a, b, c, d = V(1.5), V(-0.5), V(2.0), V(-3.0)
    e = (a + b) * c
    g = e * d
    g.backward()
    return [f(g.data), a.grad, b.grad, c.grad, d.grad, e.grad, g.grad]


def l1_uneven_paths(m):
    V = m.Value
    a, b, c, d = V(1.5), V(2.0), V(-1.0), V(3.0)
    x = a * b
    z = x + (x * d) * c
    z.backward()
    return [f(z.data), a.grad, b.grad, c.grad, d.grad, x.grad]


def l1_equal_data(m):
    V = m.Value
    a, b = V(2.0), V(2.0)
    c = a * b + a
    c.backward()
    p, q = V(1.0), V(1.0)
    x, y = p + q, p + q
    z = x * y + x
    z.backward()
    return [a.grad, b.grad, p.grad, q.grad, x.grad, y.grad]


def random_graph(V, seed, n_leaves=4, n_nodes=12, ops=('+', '*')):
    rng = random.Random(seed)
    leaves = [V(rng.uniform(-2, 2)) for _ in range(n_leaves)]
    pool = list(leaves)
    for _ in range(n_nodes):
        op = rng.choice(ops)
        x, y = rng.choice(pool), rng.choice(pool)
        if rng.random() < 0.2:
            y = round(rng.uniform(-2, 2), 2)
            node = (x + y if rng.random() < 0.5 else y + x) if op == '+' else (
                x * y if rng.random() < 0.5 else y * x)
        else:
            node = x + y if op == '+' else x * y
        pool.append(node)
    out = pool[-1] + pool[-2] * pool[-3]
    return leaves, out


def l1_random(m):
    res = []
    for seed in range(12):
        leaves, out = random_graph(m.Value, seed)
        out.backward()
        res.append([f(out.data)] + [x.grad for x in leaves])
    return res


LAB01 = [l1_basic, l1_structure, l1_leaf_backward, l1_diamonds, l1_numbers, l1_leaf_output,
         l1_upstream, l1_uneven_paths, l1_equal_data, l1_random]


# -- lab02 scenarios ----------------------------------------------------------------------------

UNARY_POINTS = {
    'exp': [-1.3, 0.4, 2.0], 'log': [0.3, 1.7, 4.0], 'tanh': [-1.2, 0.3, 2.5],
    'relu': [-1.5, 0.7, 2.2], 'sigmoid': [-2.0, 0.5, 1.5],
}


def _unary(m, name):
    V = m.Value
    res = []
    for x in UNARY_POINTS[name]:
        a = V(x)
        out = getattr(a, name)()
        res.append(['data', f(out.data), isinstance(out, V)])
        a, c = V(x), V(1.7)
        out = getattr(a, name)() * c
        out.backward()
        res.append(['upstream', a.grad, c.grad])
        a = V(x)
        out = getattr(a, name)() + a
        out.backward()
        res.append(['accumulate', a.grad])
    return res


def l2_exp(m):
    return _unary(m, 'exp')


def l2_log(m):
    return _unary(m, 'log')


def l2_tanh(m):
    return _unary(m, 'tanh')


def l2_relu(m):
    return _unary(m, 'relu')


def l2_sigmoid(m):
    return _unary(m, 'sigmoid')


def l2_neg(m):
    V = m.Value
    res = []
    for x in (-1.5, 0.75, 3.0):
        a, c = V(x), V(-2.0)
        out = (-a) * c
        out.backward()
        res.append([f((-V(x)).data), a.grad, c.grad])
        a = V(x)
        out = -a + a * 3
        out.backward()
        res.append([a.grad])
    return res


def l2_pow(m):
    V = m.Value
    res = []
    for x, n in ((1.5, 2), (-0.7, 3), (2.0, -1), (3.0, 0.5), (1.3, -2), (0.8, 1.5)):
        a = V(x)
        out = a ** n
        res.append(['data', f(out.data)])
        a, c = V(x), V(1.3)
        out = a ** n * c
        out.backward()
        res.append(['upstream', a.grad, c.grad])
        a = V(x)
        out = a ** n + a
        out.backward()
        res.append(['accumulate', a.grad])
    return res


def l2_sub(m):
    V = m.Value
    res = []
    for x, y in ((2.5, -1.0), (0.3, 0.9)):
        a, b = V(x), V(y)
        out = a - b
        res.append(['data', f(out.data)])
        a, b, c = V(x), V(y), V(-1.5)
        out = (a - b) * c
        out.backward()
        res.append(['upstream', a.grad, b.grad, c.grad])
        a, b = V(x), V(y)
        out = (a - b) + b
        out.backward()
        res.append(['accumulate', a.grad, b.grad])
    return res


def l2_div(m):
    V = m.Value
    res = []
    for x, y in ((2.5, -1.25), (0.3, 0.9), (-4.0, 2.0)):
        a, b = V(x), V(y)
        out = a / b
        res.append(['data', f(out.data)])
        a, b, c = V(x), V(y), V(0.7)
        out = (a / b) * c
        out.backward()
        res.append(['upstream', a.grad, b.grad, c.grad])
        a, b = V(x), V(y)
        out = (a / b) + b
        out.backward()
        res.append(['accumulate', a.grad, b.grad])
    return res


def l2_numbers(m):
    V = m.Value
    res = []
    for build in (lambda a: a - 2, lambda a: 2 - a, lambda a: a / 2, lambda a: 2 / a,
                  lambda a: (1 - a) * (3 / a), lambda a: -(a - 5) / 4):
        a = V(1.6)
        out = build(a)
        ok = isinstance(out, V)
        out.backward()
        res.append([ok, f(out.data), a.grad])
    return res


def l2_value_exponent(m):
    V = m.Value
    try:
        out = V(2.0) ** V(2.0)
    except (TypeError, AssertionError, NotImplementedError, ValueError):
        return 'refused'
    return ['accepted', repr(out)[:40]]


def l2_random(m):
    V = m.Value
    res = []
    for seed in range(10):
        rng = random.Random(seed)
        leaves = [V(rng.uniform(0.5, 1.5)) for _ in range(3)]
        pool = list(leaves)
        for _ in range(10):
            x = rng.choice(pool)
            y = rng.choice(pool)
            k = rng.randrange(10)
            if k == 0:
                node = x - y
            elif k == 1:
                node = x / (y * y + 1)
            elif k == 2:
                node = (x * x + 0.5).log()
            elif k == 3:
                node = (x * 0.3).exp()
            elif k == 4:
                node = x.tanh()
            elif k == 5:
                node = (x - 0.2).relu()
            elif k == 6:
                node = x.sigmoid()
            elif k == 7:
                node = (x * x + 0.1) ** 1.5
            elif k == 8:
                node = -x * y
            else:
                node = 1.5 - x / 2
            pool.append(node)
        out = pool[-1] * pool[-2] + pool[-3]
        out.backward()
        res.append([f(out.data)] + [x.grad for x in leaves])
    return res


LAB02 = [l2_exp, l2_log, l2_tanh, l2_relu, l2_sigmoid, l2_neg, l2_pow, l2_sub, l2_div,
         l2_numbers, l2_value_exponent, l2_random]


# -- lab03 scenarios ----------------------------------------------------------------------------

def l3_tree(m):
    V = m.Value
    a, b, c = V(0.7), V(-1.2), V(2.0)
    out = ((a * b).tanh() + c ** 2 - a / c).exp() * b
    out.backward()
    return [f(out.data), a.grad, b.grad, c.grad, out.grad]


def l3_second_backward(m):
    V = m.Value
    a, b = V(2.0), V(3.0)
    out = a * b
    out.backward()
    out.backward()
    x, y = V(0.5), V(-1.5)
    g = (x * y + x).tanh() * y
    g.backward()
    first = [x.grad, y.grad]
    g.backward()
    return [a.grad, b.grad, out.grad, first, x.grad, y.grad, g.grad]


def ladder(V, levels):
    x0, c, d = V(1.0), V(0.6), V(0.4)
    x = x0
    for _ in range(levels):
        x = x * c + x * d
    return x0, c, d, x


def l3_ladder8(m):
    x0, c, d, top = ladder(m.Value, 8)
    top.backward()
    return [f(top.data), x0.grad, c.grad, d.grad]


def l3_ladder40(m):
    x0, c, d, top = ladder(m.Value, 40)
    top.backward()
    return [f(top.data), x0.grad, c.grad, d.grad]


def l3_ladder40_zero(m):
    x0, c, d, top = ladder(m.Value, 40)
    for v in walk(top):
        v.grad = 1.0
    m.zero_grad(top)
    return [all(v.grad == 0 for v in walk(top))]


def chain(V, n):
    b = V(1.0)
    x = V(0.0)
    for _ in range(n):
        x = x + b
    return b, x


def l3_chain_backward(m):
    b, x = chain(m.Value, 100_000)
    x.backward()
    return [f(x.data), b.grad, x.grad]


def l3_chain_zero(m):
    b, x = chain(m.Value, 100_000)
    nodes = walk(x)
    for v in nodes:
        v.grad = 2.0
    m.zero_grad(x)
    return [all(v.grad == 0 for v in nodes)]


def _cycle_result(e):
    if isinstance(e, (ValueError, RuntimeError)) and 'cycle' in str(e).lower():
        return 'cycle-error'
    return ['raised', type(e).__name__]


def l3_cycle_below(m):
    V = m.Value
    a, b = V(1.0), V(2.0)
    c = a * b
    d = c + a
    e = d * 2
    c._prev = retype(c._prev, [a, b, d])
    try:
        e.backward()
    except Exception as exc:  # noqa: BLE001
        return _cycle_result(exc)
    return 'no error'


def l3_cycle_through_output(m):
    V = m.Value
    a, b = V(1.0), V(2.0)
    c = a * b
    d = c + a
    e = d * 3
    d._prev = retype(d._prev, [c, a, e])
    try:
        e.backward()
    except Exception as exc:  # noqa: BLE001
        return _cycle_result(exc)
    return 'no error'


def l3_zero_grad(m):
    V = m.Value
    a, b = V(0.3), V(-0.8)
    out = (a * b + a).exp() * b
    out.backward()
    m.zero_grad(out)
    nodes = walk(out)
    one = all(v.grad == 0 for v in nodes)
    out.backward()
    single = [a.grad, b.grad, out.grad]
    x, y = V(1.5), V(0.5)
    o1, o2 = x * y, (x + y).tanh()
    o1.backward()
    o2.backward()
    m.zero_grad([o1, o2])
    listed = all(v.grad == 0 for v in walk(o1) + walk(o2))
    return [one, single, listed]


def l3_equal_data(m):
    V = m.Value
    a, b = V(2.0), V(2.0)
    p, q = a + 1, b + 1  # two nodes holding 3.0
    out = p * q + a
    out.backward()
    grads = [a.grad, b.grad, p.grad, q.grad]
    for v in walk(out):
        v.grad = 5.0
    m.zero_grad(out)
    return [grads, [v.grad == 0 for v in (a, b, p, q, out)]]


def l3_numerical(m):
    V = m.Value
    a, b = V(1.3), V(0.4)
    fn = lambda a, b: a ** 3 * b + b.exp()  # noqa: E731
    coarse = m.numerical_grad(fn, [a, b], h=1e-3)
    fine = m.numerical_grad(fn, [a, b])
    return [coarse, fine, a.data == 1.3, b.data == 0.4]


def l3_numerical_restores(m):
    V = m.Value
    res = []
    for x in (0.1, 0.7, 1e-3, 123.456, -2.2):
        a, b = V(x), V(0.3)
        m.numerical_grad(lambda a, b: a * b + a * a, [a, b])
        res.append(a.data == x and b.data == 0.3)
    return res


def l3_check_grad(m):
    V = m.Value

    def bad_square(x, slope):
        out = V(x.data ** 2, (x,), 'sq')

        def _backward():
            x.grad += slope(x.data) * out.grad
        out._backward = _backward
        return out

    res = []
    a, b = V(0.9), V(-0.6)
    good = lambda a, b: (a * b + a ** 2).tanh() * b  # noqa: E731
    res.append(m.check_grad(good, [a, b]))
    a.grad, b.grad = 100.0, -7.0
    res.append(m.check_grad(good, [a, b]))
    a, b = V(0.9), V(-0.6)
    res.append(m.check_grad(lambda a, b: bad_square(a, lambda x: 3 * x) * b, [a, b]))
    res.append(m.check_grad(lambda a, b: bad_square(a, lambda x: 2 * x + 0.003) * b, [a, b]))
    res.append(m.check_grad(lambda a, b: a * b + bad_square(b, lambda x: 2.5 * x), [a, b]))
    x = V(5.0)
    res.append(m.check_grad(lambda x: x ** 4 * 10, [x]))
    return res


def l3_random(m):
    return [row for row in l2_random(m)]


LAB03 = [l3_tree, l3_second_backward, l3_ladder8, l3_ladder40, l3_ladder40_zero,
         l3_chain_backward, l3_chain_zero, l3_cycle_below, l3_cycle_through_output, l3_zero_grad,
         l3_equal_data, l3_numerical, l3_numerical_restores, l3_check_grad, l3_random]


# -- lab04 scenarios ----------------------------------------------------------------------------

def l4_structure(m):
    res = []
    for seed in (0, 7):
        random.seed(seed)
        model = m.MLP(2, [4, 1])
        params = model.parameters()
        out = model([1.0, -1.0])
        res.append([len(params), [p.data for p in params], type(out).__name__, f(out.data)])
        random.seed(seed)
        big = m.MLP(3, [4, 4, 2])
        outs = big([0.5, -0.2, 0.9])
        res.append([len(big.parameters()), isinstance(outs, list) and len(outs),
                    [f(o.data) for o in outs]])
    random.seed(3)
    n = m.Neuron(3, nonlin=False)
    layer = m.Layer(2, 3)
    res.append([f(n([1.0, 2.0, -1.0]).data), len(n.parameters()),
                [f(o.data) for o in layer([0.4, -0.6])]])
    return res


def l4_parameters_identity(m):
    random.seed(1)
    model = m.MLP(2, [4, 1])
    p1, p2 = model.parameters(), model.parameters()
    same = all(x is y for x, y in zip(p1, p2, strict=False))
    before = f(model([1.0, -1.0]).data)
    for p in p1:
        p.data += 0.1
    after = f(model([1.0, -1.0]).data)
    return [same, before, after]


def _loss(m, model):
    errors = [(model(x) - y) ** 2 for x, y in zip(m.XOR_INPUTS, m.XOR_TARGETS, strict=True)]
    return sum(errors) / len(errors)


def l4_zero_grad(m):
    random.seed(2)
    model = m.MLP(2, [4, 1])
    _loss(m, model).backward()
    model.zero_grad()
    return [all(p.grad == 0 for p in model.parameters())]


def l4_gradients(m):
    res = []
    for seed in (0, 5):
        random.seed(seed)
        model = m.MLP(2, [4, 1])
        loss = _loss(m, model)
        loss.backward()
        res.append([f(loss.data)] + [p.grad for p in model.parameters()])
    random.seed(4)
    model = m.MLP(3, [4, 4, 2])
    outs = model([0.5, -0.2, 0.9])
    (outs[0] * outs[1]).backward()
    res.append([p.grad for p in model.parameters()])
    return res


def l4_train(m):
    res = []
    for seed in (0, 11, 1234):
        random.seed(seed)
        model = m.MLP(2, [4, 1])
        losses = m.train_xor(model)
        res.append([len(losses), all(type(x) is float for x in losses),
                    [f(x) for x in losses[::10]], f(_loss(m, model).data) < 0.05])
    return res


def l4_train_short(m):
    random.seed(9)
    model = m.MLP(2, [4, 1])
    losses = m.train_xor(model, steps=5, lr=0.1)
    return [len(losses), [f(x) for x in losses], [p.data for p in model.parameters()]]


LAB04 = [l4_structure, l4_parameters_identity, l4_zero_grad, l4_gradients, l4_train,
         l4_train_short]

SCENARIOS = {'lab01_graph': LAB01, 'lab02_ops': LAB02, 'lab03_backprop': LAB03, 'lab04_xor': LAB04}


# -- the child: one engine, every scenario ------------------------------------------------------

def load(lab, folder):
    folder = pathlib.Path(folder)
    sys.path.insert(0, str(folder))
    name = 'nn' if lab == 'lab04_xor' else 'value'
    spec = importlib.util.spec_from_file_location(name, folder / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def clean(x):
    """Plain JSON-able data; NaN and infinities as strings."""
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        x = float(x)
        return x if math.isfinite(x) else repr(x)
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    return ['object', type(x).__name__]


def child(lab, folder):
    signal.signal(signal.SIGALRM, _alarm)
    try:
        m = load(lab, folder)
    except Exception as exc:  # noqa: BLE001
        print(json.dumps({'__import__': ['raised', type(exc).__name__]}))
        return
    results = {}
    for scenario in SCENARIOS[lab]:
        signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
        try:
            results[scenario.__name__] = clean(scenario(m))
        except Timeout:
            results[scenario.__name__] = 'timeout'
        except BaseException as exc:  # noqa: BLE001
            results[scenario.__name__] = ['raised', type(exc).__name__]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    print(json.dumps(results))


# -- the parent: compare with the reference -----------------------------------------------------

def same(x, y):
    if isinstance(x, float) and isinstance(y, float) and not isinstance(x, bool):
        return math.isclose(x, y, rel_tol=REL, abs_tol=ABS)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    return type(x) is type(y) and x == y


def run(lab, folder):
    proc = subprocess.run([sys.executable, __file__, '--child', lab, str(folder)],
                          capture_output=True, text=True, timeout=600, cwd=folder)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        return {'__crash__': proc.stderr[-300:]}
    return json.loads(lines[-1])


def intent(folder):
    import tomllib
    return tomllib.loads((folder / 'NOTE.toml').read_text())['intent']


def main(argv):
    if argv[:1] == ['--child']:
        child(argv[1], argv[2])
        return 0
    verbose = '--verbose' in argv
    only = argv[argv.index('--engine') + 1] if '--engine' in argv else None
    labs = [a for a in argv if a in LABS] or LABS
    failures = 0
    for lab in labs:
        ref = run(lab, ROOT / 'solutions' / lab)
        assert all(not (isinstance(v, list) and v[:1] == ['raised']) and v != 'timeout'
                   for v in ref.values()), (lab, ref)
        engines = sorted(p for p in (BLIND / lab).iterdir() if (p / 'NOTE.toml').is_file())
        for folder in engines:
            if only and folder.name != only:
                continue
            got = run(lab, folder)
            differ = [k for k in ref if not same(got.get(k), ref[k])]
            kind = intent(folder)
            ok = not differ if kind == 'correct' else bool(differ)
            failures += not ok
            mark = 'ok ' if ok else 'BAD'
            print(f'{mark} {lab:15} {folder.name:28} {kind:8} differs on: {", ".join(differ) or "-"}')
            if verbose or not ok:
                for k in differ:
                    print(f'      {k}: got {json.dumps(got.get(k))[:300]}')
                    print(f'      {" " * len(k)}  ref {json.dumps(ref[k])[:300]}')
    print('FAILED' if failures else 'all engines behave as their NOTE says', f'({failures} bad)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
