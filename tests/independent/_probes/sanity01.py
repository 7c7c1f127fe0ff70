import importlib.util, random, sys, os, math, traceback
import pathlib; ROOT = str(pathlib.Path(__file__).resolve().parents[3])
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
ref = load(f'{ROOT}/solutions/lab01_graph/value.py', 'ref01')

def build(V, rng_seed):
    rng = random.Random(rng_seed)
    leaves = [V(rng.uniform(-2, 2)) for _ in range(3)]
    nodes = list(leaves)
    for i in range(rng.randint(2, 9)):
        kind = rng.choice(['+', '*', 'c+', 'c*', '+c', '*c'])
        a = rng.choice(nodes); b = rng.choice(nodes)
        c = round(rng.uniform(-2, 2), 2)
        if kind == '+': n = a + b
        elif kind == '*': n = a * b
        elif kind == 'c+': n = c + a
        elif kind == 'c*': n = c * a
        elif kind == '+c': n = a + c
        else: n = a * c
        nodes.append(n)
    # force consumers at different depths
    out = nodes[-1] + nodes[len(nodes)//2] * nodes[-1]
    nodes.append(out)
    out.backward()
    return [(n.data, n.grad) for n in nodes]

def fixed(V):
    a = V(1.5); t = a * 2; out = t + t * 3
    out.backward(); r = [a.grad, t.grad]
    a = V(2.0); b = a + a; c = a * a; d = b * c
    d.backward(); r += [a.grad]
    x = V(3.0); x.backward(); r += [x.grad]
    y = V(2.0); z = 1 + y; w = 2 * z; u = z + 1; v = w * 3
    v.backward(); r += [y.grad, z.grad]
    p, q = V(3.0), V(3.0); s = p * q; s.backward(); r += [p.grad, q.grad]
    return r

eng = sys.argv[1]
for d in sorted(os.listdir(f'{ROOT}/tests/independent/{eng}')):
    if not os.path.isdir(f'{ROOT}/tests/independent/{eng}/{d}'): continue
    try:
        m = load(f'{ROOT}/tests/independent/{eng}/{d}/value.py', 'e_' + d)
        diffs = 0
        for s in range(200):
            try:
                got = build(m.Value, s)
            except Exception as e:
                diffs += 1; continue
            exp = build(ref.Value, s)
            if any(abs(g[0]-e[0]) > 1e-9*max(1,abs(e[0])) or abs(g[1]-e[1]) > 1e-9*max(1,abs(e[1])) for g, e in zip(got, exp)):
                diffs += 1
        try:
            f = fixed(m.Value); fe = fixed(ref.Value)
            fx = 'ok' if all(abs(a-b) < 1e-9 for a, b in zip(f, fe)) else f'DIFF {f} vs {fe}'
        except Exception as e:
            fx = f'ERR {type(e).__name__}: {e}'[:80]
        print(f'{d:28s} random-diff {diffs:3d}/200  fixed {fx}')
    except Exception as e:
        print(d, 'LOAD ERR', e)
