import importlib.util, sys, time
def load(p, n):
    s = importlib.util.spec_from_file_location(n, p + '/value.py'); m = importlib.util.module_from_spec(s); s.loader.exec_module(m); return m
import pathlib; _ROOT = pathlib.Path(__file__).resolve().parents[3]; R = str(_ROOT / 'solutions/lab03_backprop'); I = str(_ROOT / 'tests/independent/lab03_backprop') + '/'
ref = load(R, 'ref')
def run(m, code):
    g = {'Value': m.Value, 'zero_grad': m.zero_grad, 'numerical_grad': m.numerical_grad, 'check_grad': m.check_grad, 'time': time}
    exec(code, g); return g['result']
CASES = {
 'b06_seed_only_if_zero': "a, b = Value(2.0), Value(3.0); t = a * b; L = t * 3; L.backward(); t.backward(); result = a.grad",
 'b15_numgrad_restore_by_arithmetic': "x = Value(0.7); numerical_grad(lambda x: x * x, [x]); result = repr(x.data)",
 'b18_check_grad_absolute_tol': "a = Value(5.0); result = check_grad(lambda a: (a * 3).exp(), [a])",
 'b19_check_grad_first_input_only': """a, b = Value(1.0), Value(2.0)
def f(a, b):
    out = a * b
    right = out._backward
    def wrong():
        right(); b.grad += 1.0
    out._backward = wrong
    return out
result = check_grad(f, [a, b])""",
 'b22_check_grad_zero_inputs_only': "x = Value(1.0); c = x * 2; c.grad = 5.0; result = check_grad(lambda x: c * 0 + x, [x])",
}
for k, code in CASES.items():
    print(k, '| engine:', run(load(I + k, k), code), '| reference:', run(ref, code))
