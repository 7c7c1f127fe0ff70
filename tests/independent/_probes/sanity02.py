import importlib.util, random, sys, os, math
import pathlib; ROOT = str(pathlib.Path(__file__).resolve().parents[3])
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
ref = load(f'{ROOT}/solutions/lab02_ops/value.py', 'ref02')
UN = ['exp', 'log', 'tanh', 'relu', 'sigmoid', 'neg', 'pow2', 'pow.5', 'powm1']
BI = ['+', '-', '*', '/', 'c-', 'c/', '-c', '/c']
def build(V, seed):
    rng = random.Random(seed)
    xs = [V(rng.uniform(0.3, 2.0)) for _ in range(2)]
    nodes = list(xs)
    for i in range(6):
        if rng.random() < 0.5:
            op = rng.choice(UN); a = rng.choice(nodes)
            if op in ('log', 'pow.5') and a.data <= 0.1: op = 'exp'
            if op == 'powm1' and abs(a.data) < 0.2: op = 'tanh'
            if op == 'relu' and abs(a.data) < 1e-3: op = 'tanh'
            if op == 'exp' and a.data > 5: op = 'tanh'
            n = {'exp': lambda: a.exp(), 'log': lambda: a.log(), 'tanh': lambda: a.tanh(), 'relu': lambda: a.relu(),
                 'sigmoid': lambda: a.sigmoid(), 'neg': lambda: -a, 'pow2': lambda: a ** 2, 'pow.5': lambda: a ** 0.5,
                 'powm1': lambda: a ** -1}[op]()
        else:
            op = rng.choice(BI); a = rng.choice(nodes); b = rng.choice(nodes); c = rng.choice([2, 0.5, -1.5, 3])
            if op in ('/', 'c/') and abs(b.data if op == '/' else a.data) < 0.2: op = '+'
            n = {'+': lambda: a + b, '-': lambda: a - b, '*': lambda: a * b, '/': lambda: a / b,
                 'c-': lambda: c - a, 'c/': lambda: c / a, '-c': lambda: a - c, '/c': lambda: a / c}[op]()
        if abs(n.data) > 50: n = n.tanh()
        nodes.append(n)
    out = nodes[-1] * 1.7 + nodes[-2] * nodes[-1]
    nodes.append(out); out.backward()
    return [(float(n.data), float(n.grad)) for n in nodes]

def probes(V):
    r = {}
    def t(name, fn):
        try: r[name] = fn()
        except Exception as e: r[name] = type(e).__name__
    def g(op, x):
        a = V(x); out = op(a) * 3.0; out.backward(); return round(float(out.data), 9), round(float(a.grad), 9)
    for nm, op, x in [('neg', lambda a: -a, 0.7), ('sub', lambda a: a - 2, 0.7), ('rsub', lambda a: 2 - a, 0.7),
                      ('div', lambda a: a / 2, 0.7), ('rdiv', lambda a: 2 / a, 0.7), ('pow', lambda a: a ** 3, 0.7),
                      ('powf', lambda a: a ** 0.5, 0.7), ('exp', lambda a: a.exp(), 0.7), ('log', lambda a: a.log(), 0.7),
                      ('tanh', lambda a: a.tanh(), 0.7), ('relu+', lambda a: a.relu(), 0.7), ('relu-', lambda a: a.relu(), -0.7),
                      ('sig', lambda a: a.sigmoid(), 0.7), ('diamond_exp', lambda a: a.exp() + a, 0.7),
                      ('diamond_sub', lambda a: (a - V(1.0)) + a, 0.7), ('diamond_sub2', lambda a: (V(1.0) - a) * a, 0.7)]:
        t(nm, lambda: g(op, x))
    def pv():
        a = V(2.0)
        try:
            a ** V(2.0)
        except (TypeError, AssertionError, NotImplementedError, ValueError):
            return 'raises'
        return 'no-raise'
    t('powV', pv)
    return r

lab = sys.argv[1]
refp = probes(ref.Value)
for d in sorted(os.listdir(f'{ROOT}/tests/independent/{lab}')):
    p = f'{ROOT}/tests/independent/{lab}/{d}'
    if not os.path.isdir(p): continue
    m = load(f'{p}/value.py', 'e_' + d)
    diffs = 0
    for s in range(300):
        exp = build(ref.Value, s)
        try: got = build(m.Value, s)
        except Exception as e: diffs += 1; continue
        if any(abs(g[0]-e[0]) > 1e-7*max(1,abs(e[0])) or abs(g[1]-e[1]) > 1e-7*max(1,abs(e[1])) for g, e in zip(got, exp)): diffs += 1
    pr = probes(m.Value)
    bad = [k for k in refp if pr.get(k) != refp[k]]
    print(f'{d:30s} random-diff {diffs:3d}/300  probes-differ: {bad}')
