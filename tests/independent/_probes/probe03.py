# usage: probe03.py ENGINE_DIR PROBE -> prints result
import importlib.util, sys, time, math, random
sys.setrecursionlimit(10000)
d, probe = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location('eng', d + '/value.py'); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
V = m.Value
def r(x): return round(float(x), 9)
def P():
    if probe == 'diamond':
        a, b = V(2.0), V(3.0); t = a * b; out = t + t * a; out.backward(); return [r(a.grad), r(b.grad), r(t.grad)]
    if probe == 'twice':
        a, b = V(2.0), V(3.0); t = a * b; out = t.tanh() + t; out.backward(); out.backward(); return [r(a.grad), r(b.grad), r(out.grad)]
    if probe == 'seed_existing':
        a, b = V(2.0), V(3.0); t = a * b; L = t * 3; L.backward(); t.backward(); return [r(a.grad), r(t.grad)]
    if probe == 'zero_then':
        a, b = V(2.0), V(3.0); t = a * b; out = t * t + a; out.backward(); m.zero_grad(out); g0 = [r(a.grad), r(t.grad), r(out.grad)]; out.backward(); return g0 + [r(a.grad), r(b.grad)]
    if probe == 'zero_list':
        a, b = V(2.0), V(3.0); o1 = a * b; o2 = o1 + b; o2.backward(); m.zero_grad([o1, o2]); return [r(a.grad), r(b.grad), r(o1.grad), r(o2.grad)]
    if probe == 'chain_backward':
        x = V(0.5); c = V(1e-5); y = x
        for _ in range(100000): y = y + c
        t = time.time(); y.backward(); return [r(x.grad), r(c.grad), round(time.time() - t, 2)]
    if probe == 'chain_zero':
        x = V(0.5); c = V(1e-5); y = x
        for _ in range(100000): y = y + c
        x.grad = 5.0; c.grad = 5.0; t = time.time(); m.zero_grad(y); return [r(x.grad), r(c.grad), round(time.time() - t, 2)]
    if probe == 'ladder_backward':
        x = V(1.01); c = V(0.5); d = V(0.4)
        for _ in range(40): x = x * c + x * d
        t = time.time(); x.backward(); return [r(c.grad * 0 + 1), round(time.time() - t, 2)]
    if probe == 'ladder_zero':
        x0 = V(1.01); c = V(0.5); d = V(0.4); x = x0
        for _ in range(40): x = x * c + x * d
        x0.grad = 3.0; t = time.time(); m.zero_grad(x); return [r(x0.grad), round(time.time() - t, 2)]
    if probe in ('cycle_below', 'cycle_through', 'cycle_long'):
        a, b = V(1.0), V(2.0); t = a * b; u = t + a; out = u * 2
        if probe == 'cycle_below': t._prev = (a, u)
        elif probe == 'cycle_through': t._prev = (a, out)
        else:
            w = V(3.0); z = w + a; q = z * b; t._prev = (a, q); w._prev = (u,)
        try:
            out.backward()
        except (ValueError, RuntimeError) as e:
            return 'raised ' + ('cycle' if 'cycle' in str(e).lower() else 'no-cycle-word')
        except RecursionError:
            return 'RecursionError'
        return 'no error'
    if probe == 'restore':
        xs = [V(0.1), V(0.7), V(1e8 + 0.3)]
        before = [x.data for x in xs]
        m.numerical_grad(lambda a, b, c: a * b + c * 1e-8, xs)
        return [x.data == y for x, y in zip(xs, before)]
    if probe == 'numgrad':
        a = V(1.3); return [round(v, 4) for v in m.numerical_grad(lambda a: (a ** 3), [a], h=0.001)]
    if probe == 'numgrad_multi':
        a, b = V(1.3), V(0.4); return [round(v, 5) for v in m.numerical_grad(lambda a, b: a * a * b + b.exp(), [a, b])]
    if probe == 'check_big':
        a = V(3.0); return m.check_grad(lambda a: (a * 2).exp() * 100, [a])
    if probe == 'check_wrong_second':
        class W: pass
        a, b = V(1.0), V(2.0)
        def f(a, b):
            out = a * b
            bb = out._backward
            def wrong():
                bb(); b.grad += 1.0
            out._backward = wrong
            return out
        return m.check_grad(f, [a, b])
    if probe == 'check_stale':
        a, b = V(1.0), V(2.0); a.grad = 7.0; b.grad = -3.0
        return m.check_grad(lambda a, b: a * b + a, [a, b])
    if probe == 'check_stale_intermediate':
        a, b = V(1.0), V(2.0); t = a * b; t.grad = 5.0
        return m.check_grad(lambda a, b: t * a, [a, b])  # t captured; numerics see t frozen so this is ill-posed
print(P())
