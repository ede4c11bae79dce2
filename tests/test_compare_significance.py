"""Is B better than A? core/qa/compare.py's significance (McNemar, paired bootstrap) in the report and the CLI lines."""

from __future__ import annotations

import json

import pytest

from explorer.core.qa.compare import (
    Comparison,
    QuestionComparison,
    comparison_from_dict,
    comparison_to_dict,
    count_agreement,
)


def _comparison(only_a=2, only_b=10, both_right=30, both_wrong=8) -> Comparison:
    rows = []
    for i, (ea, eb) in enumerate([(1, 0)] * only_a + [(0, 1)] * only_b + [(1, 1)] * both_right + [(0, 0)] * both_wrong):
        rows.append(QuestionComparison(f"q{i}", f"question {i}", ["gold"], "a" if ea else "x", "a" if eb else "y",
                                       float(ea), float(ea), float(eb), float(eb)))
    n = len(rows)
    return Comparison("v1.1", "ckpt-a", "ckpt-b", 0.0, 0.0, rows, count_agreement(rows, "v1.1"),
                      {"exact_match": 100 * (only_a + both_right) / n, "f1": 100 * (only_a + both_right) / n},
                      {"exact_match": 100 * (only_b + both_right) / n, "f1": 100 * (only_b + both_right) / n})


def test_significance_mcnemar_and_bootstrap_in_words():
    c = _comparison()
    sig = c.significance()
    assert (sig.mcnemar.only_a, sig.mcnemar.only_b) == (2, 10)
    assert sig.mcnemar.p == pytest.approx(0.0386, abs=5e-5)
    assert sig.f1.difference == pytest.approx(8 / 50)
    assert sig.f1.resamples == 10_000 and sig.f1.low > 0
    assert c.significance() is sig                              # computed once
    lines = sig.lines()
    assert lines[0].startswith("F1: B is better by 16.0 F1 points, 95% interval ")
    assert lines[0].endswith("; p = 0.039 for exact match")
    assert "only A right 2, only B right 10, p = 0.039" in lines[2]
    again = comparison_from_dict(json.loads(json.dumps(comparison_to_dict(c)))).significance()
    assert (again.f1.low, again.f1.high) == (sig.f1.low, sig.f1.high)   # seeded: the same interval


def test_no_detectable_difference_when_even():
    sig = _comparison(only_a=3, only_b=3).significance(resamples=2000)
    assert sig.mcnemar.p == 1.0
    assert sig.lines()[0].startswith("F1: no detectable difference in F1 (B - A = +0.0 points")


def test_report_and_cli_lines_show_the_figures(tmp_path):
    from explorer.commands.compare import _lines
    from explorer.core.studies.reports import write_comparison_report

    c = _comparison()
    md = (write_comparison_report(tmp_path / "r", c, data="dev.json") / "report.md").read_text(encoding="utf-8")
    assert "## Is B better than A?" in md and "p = 0.039 for exact match" in md
    assert "McNemar's exact test (exact match): only A right 2, only B right 10" in md
    text = "\n".join(_lines(c, show=3))
    assert "B is better by 16.0 F1 points" in text and "paired bootstrap of 10,000 resamples (seed 0)" in text
    empty = Comparison("v1.1", "a", "b", 0.0, 0.0, [], {"both_right": 0, "only_a": 0, "only_b": 0, "both_wrong": 0},
                       {"exact_match": 0.0, "f1": 0.0}, {"exact_match": 0.0, "f1": 0.0})
    assert "Is B better" not in (write_comparison_report(tmp_path / "e", empty) / "report.md").read_text(encoding="utf-8")


def test_the_comparison_file_is_strict_json_when_a_question_has_no_valid_span(tmp_path):
    """A question without a valid span has score_diff -inf: comparison.json holds it clipped to -1e6 (as
    null_odds.json does), a score_diff not given as null, so the file is strict JSON for any reader, and it reads
    back to the same comparison."""
    import math

    from explorer.core.studies.reports import write_comparison_report

    c = _comparison(only_a=1, only_b=1, both_right=1, both_wrong=1)
    c.questions[0].score_diff_a, c.questions[0].score_diff_b = -math.inf, 2.5
    text = (write_comparison_report(tmp_path / "r", c) / "comparison.json").read_text(encoding="utf-8")

    def refuse(token):
        raise ValueError(token)

    data = json.loads(text, parse_constant=refuse)
    assert (data["questions"][0]["score_diff_a"], data["questions"][0]["score_diff_b"]) == (-1e6, 2.5)
    assert data["questions"][1]["score_diff_a"] is None
    again = comparison_from_dict(data)
    assert again.questions[0].score_diff_a == -1e6 and math.isnan(again.questions[1].score_diff_b)
    assert again.significance().lines() == c.significance().lines()
