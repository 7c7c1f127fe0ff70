"""Write README.md's pictures (docs/feedback.png, docs/dashboard.png): a student's feedback page and the class dashboard, from a
graded class (`make screenshots` grades the demo class first), taken in headless Chromium.

    python tests/browser/screenshots.py OUT_DIR DOCS_DIR [--student ben]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import headless

SHOTS = (  # (file written, page under OUT_DIR, viewport width, height)
    ("feedback.png", "{student}/feedback.html", 920, 1500),
    ("dashboard.png", "dashboard.html", 1280, 1500),
)


def main(argv: list[str]) -> int:
    """Take every shot; exit 2 (usage) when the graded class or the browser is missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path, help="a graded class (python -m grader grade --out)")
    parser.add_argument("docs_dir", type=Path, help="where the PNG files go")
    parser.add_argument("--student", default="ben", help="whose feedback to show (default: ben)")
    args = parser.parse_args(argv)
    reason = headless.unavailable_reason()
    if reason is not None:
        print(f"screenshots: {reason}", file=sys.stderr)
        return 2
    pages = [(name, args.out_dir / page.format(student=args.student), width, height)
             for name, page, width, height in SHOTS]
    missing = [str(path) for _name, path, _w, _h in pages if not path.is_file()]
    if missing:
        print(f"screenshots: no such page: {', '.join(missing)} (run make demo)", file=sys.stderr)
        return 2
    args.docs_dir.mkdir(parents=True, exist_ok=True)
    with headless.launched() as browser:
        for name, path, width, height in pages:
            viewer = headless.Viewer(browser, width, height)
            page, log = viewer.open(path)
            if log.requests or log.console_errors or log.page_errors:
                print(f"screenshots: {path} is not self-contained: {log}", file=sys.stderr)
                return 3
            page.screenshot(path=str(args.docs_dir / name), full_page=False)
            viewer.close()
            print(args.docs_dir / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
