import importlib.util, sys, os, random
import pathlib; ROOT = str(pathlib.Path(__file__).resolve().parents[3])
def load(d):
    for k in ('nn', 'value'): sys.modules.pop(k, None)
    sys.path.insert(0, d)
    spec = importlib.util.spec_from_file_location('nn', d + '/nn.py'); m = importlib.util.module_from_spec(spec); sys.modules['nn'] = m; spec.loader.exec_module(m)
    sys.path.pop(0); return m
ref = load(f'{ROOT}/solutions/lab04_xor')
def run(m, seed):
    random.seed(seed); model = m.MLP(2, [4, 1])
    n = len(model.parameters()); same = all(a is b for a, b in zip(model.parameters(), model.parameters()))
    init = [round(p.data, 9) for p in model.parameters()]
    out = model([1.0, -1.0]); o = round(float(out.data), 9)
    losses = m.train_xor(model)
    final = sum((float(model(x).data) - y) ** 2 for x, y in zip(m.XOR_INPUTS, m.XOR_TARGETS)) / 4
    return n, same, init, o, [round(float(getattr(l, 'data', l)), 6) for l in losses[:3]], round(final, 5), type(losses[0]).__name__
for d in sorted(os.listdir(f'{ROOT}/tests/independent/lab04_xor')):
    m = load(f'{ROOT}/tests/independent/lab04_xor/{d}')
    diffs = []
    for s in (0, 1, 7):
        a = run(m, s); b = run(ref, s)
        names = ['nparams', 'same-objs', 'init', 'out', 'first-losses', 'final', 'loss-type']
        diffs += [f'{names[i]}' for i in range(7) if a[i] != b[i]]
        if s == 0: fin = a[5]
    print(f'{d:30s} final(seed0)={fin:<10} differs: {sorted(set(diffs))}')
