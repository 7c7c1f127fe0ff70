"""The course file: weights per check or per pitfall, validated, resolved per lab."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.cli import main
from grader.common.labs import LABS
from grader.grading.course_config import ConfigError, load_course_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "course.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_check_weight_and_pitfall_factor_are_resolved_per_lab(tmp_path: Path) -> None:
    config = load_course_config(write(tmp_path, """
[weights]
diamond-accumulates = 5
[pitfall_weights]
grad-overwrite = 2
"""))
    weights = config.resolved(LABS["lab01_graph"])
    assert weights["diamond-accumulates"] == 5.0  # the check's own weight wins
    assert weights["self-add-accumulates"] == 4.0  # 2 * 2
    assert "value-hashable" not in weights
    assert config.record(LABS["lab01_graph"])["source"].endswith("course.toml")
    assert "diamond-accumulates" not in config.resolved(LABS["lab02_ops"])


@pytest.mark.parametrize(("text", "says"), [
    ("[weights]\ndiamond-acumulates = 2\n", "'diamond-acumulates' is not a check id"),
    ("[pitfall_weights]\nhash-trapp = 2\n", "'hash-trapp' is not a pitfall id"),
    ("[weights]\ndiamond-accumulates = 0\n", "must be a positive number"),
    ("[weights]\ndiamond-accumulates = true\n", "must be a positive number"),
    ("[weigths]\n", "unknown section"),
    ("[weights\n", "not valid TOML"),
])
def test_a_bad_course_file_is_one_clear_error(tmp_path: Path, text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says.replace("(", r"\(")):
        load_course_config(write(tmp_path, text))


def test_grade_with_a_bad_course_file_is_a_usage_error(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "[weights]\nno-such-check = 2\n")
    code = main(["grade", "lab01_graph", str(tmp_path), "--out", str(tmp_path / "out"),
                 "--config", str(path)])
    assert code == 2
    assert "'no-such-check' is not a check id" in capsys.readouterr().err


def test_the_weights_are_scored_and_recorded_in_the_document(tmp_path: Path) -> None:
    from grader.grading.batch import BatchOptions, grade_class
    from grader.grading.shard import GradingPlan, suites_for

    lab = LABS["lab01_graph"]
    config = load_course_config(write(tmp_path, "[weights]\ndiamond-accumulates = 10\n"))
    plan = GradingPlan(lab, suites_for(lab, hidden=True), "s", "en",
                       weights=config.resolved(lab), config=config.record(lab))
    [doc] = grade_class(plan, [lab.solution_dir], BatchOptions(out_dir=None, workers=1),
                        lambda *args: None)
    diamond = next(c for c in doc["checks"] if c["id"] == "diamond-accumulates")
    assert (diamond["max_score"], diamond["score"]) == (10.0, 10.0)
    assert doc["config"]["weights"] == {"diamond-accumulates": 10.0}

