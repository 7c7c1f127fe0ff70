"""The disguises of the corpus test are real disguises: each one changes the text of the engines
it applies to, and a disguised engine computes what the original does (run in this process:
the engines are the project's own corpora, not student code)."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from corpus import disguised_copy, independent_engines
from disguises import DISGUISES, SOURCE_DISGUISES

from grader.common.labs import LABS

VALUE_LABS = ("lab01_graph", "lab02_ops", "lab03_backprop")


def loaded(source: str, name: str) -> types.ModuleType:
    """The source run as a module (registered while it runs: dataclasses look it up)."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        exec(compile(source, name, "exec"), module.__dict__)  # noqa: S102 - the project's own engines
    finally:
        del sys.modules[name]
    return module


def diamond(module: types.ModuleType) -> tuple[Any, ...]:
    """c = a * b + a, c.backward(), then 2 * c (a number on the left): data and gradients."""
    value = module.Value
    a, b = value(2.0), value(-3.0)
    c = a * b + a
    c.backward()
    d = 2 * c + 1
    return (c.data, a.grad, b.grad, d.data)


@pytest.mark.parametrize("disguise", list(SOURCE_DISGUISES))
def test_each_disguise_changes_the_code_it_applies_to(disguise: str) -> None:
    changed = [e.id for lab in LABS for e in independent_engines(lab)
               if SOURCE_DISGUISES[disguise](e.source).split() != e.source.split()]
    assert len(changed) >= 5, f"{disguise} changed only {changed}"


@pytest.mark.parametrize("disguise", DISGUISES)
@pytest.mark.parametrize("lab_name", VALUE_LABS)
def test_a_disguised_engine_computes_what_the_original_does(lab_name: str, disguise: str,
                                                            tmp_path: Any) -> None:
    main = LABS[lab_name].main_file
    for engine in independent_engines(lab_name):
        copy = disguised_copy(engine, disguise, lab_name, tmp_path)
        original = diamond(loaded(engine.source, f"{engine.id}"))
        disguised = diamond(loaded(copy.files[main], f"{disguise} of {engine.id}"))
        assert disguised == pytest.approx(original), f"{disguise} of {engine.id} computes otherwise"
