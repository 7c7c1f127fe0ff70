"""How the two readers issue 38 found quadratic grow with their input, on any checkout.

Usage: python bench/intake_scaling.py [CHECKOUT]   (default: this one; e.g. /work/main)

Prints the time of `collect.clean_export` on lab01's solution padded with 16,000, 32,000 and
64,000 newlines, and of `collect.read_submission` on zips of 1,000, 2,000 and 4,000 equal
copies of it: doubling the input doubles a linear cost and quadruples a quadratic one.
"""

from __future__ import annotations

import sys
import tempfile
import time
import zipfile
from pathlib import Path

CHECKOUT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(CHECKOUT))

from grader.common.labs import get_lab  # noqa: E402
from grader.intake import collect  # noqa: E402


def main() -> None:
    """Time both readers at three sizes each."""
    lab = get_lab("lab01_graph")
    engine = (CHECKOUT / "solutions" / "lab01_graph" / "value.py").read_bytes()
    print(f"grader: {CHECKOUT}")
    for newlines in (16_000, 32_000, 64_000):
        started = time.perf_counter()
        collect.clean_export(engine + b"\n" * newlines)
        print(f"clean_export, {newlines} newlines: {time.perf_counter() - started:.2f} s",
              flush=True)
    with tempfile.TemporaryDirectory(prefix="minigrad-bench-scaling-") as scratch:
        for copies in (1000, 2000, 4000):
            path = Path(scratch) / f"copies-{copies}.zip"
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
                for number in range(copies):
                    bundle.writestr(f"c{number:05d}/value.py", engine)
            started = time.perf_counter()
            try:
                collect.read_submission(path, lab)
            except collect.Ungradable:
                pass  # the new reader refuses them, before reading any
            print(f"read_submission, a zip of {copies} equal candidates: "
                  f"{time.perf_counter() - started:.2f} s", flush=True)


if __name__ == "__main__":
    main()
