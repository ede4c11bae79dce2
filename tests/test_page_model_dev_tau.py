"""The τ on dev set page's Qt-free model (explorer/ui/inspectors/components/dev_tau.py): the time estimate, the
study's summary, τ table and figures at a τ, and the questions nearest τ, on a tiny model's τ study. No window,
no qtbot."""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import write_tiny_squad

from explorer.core.qa.scores import grid_text, tau_sweep
from explorer.ui.inspectors.components.dev_tau import (ASSUMED_QPS, at_tau, count_questions, estimate_line,
                                                       near_question, questions_near_tau, study_line, summary_lines,
                                                       tau_rows, windows_note)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from helpers import tiny_loaded_model

    from explorer.core.qa.tau_study import run_study, study_figures

    tmp = tmp_path_factory.mktemp("study")
    s = run_study(tiny_loaded_model("qa"), str(write_tiny_squad(tmp / "dev.json", v2=True, repeat=2)), 12,
                  cache_dir=tmp)
    return s, study_figures(s)


def test_questions_are_counted_from_the_file_and_a_missing_file_has_none(tmp_path):
    path = write_tiny_squad(tmp_path / "dev.json", v2=True, repeat=3)
    assert count_questions(str(path)) == path.read_bytes().count(b'"question"') > 0
    assert count_questions(str(tmp_path / "nothing.json")) is None


def test_the_estimate_is_a_guess_until_measured_and_suggests_a_cap_for_long_runs():
    guess = estimate_line(400, 0, None)
    assert guess == (f"≈ 40 s for 400 of 400 questions at {ASSUMED_QPS:.1f} questions/s (a guess until the first run "
                     "here measures it)")
    measured = estimate_line(4000, 0, 8.0)
    assert measured.startswith("≈ 8 min for 4,000 of 4,000 questions at 8.0 questions/s (measured here by the last "
                               "run)")
    assert measured.endswith('; set "first N questions" to try a part first')
    assert estimate_line(4000, 100, 8.0).startswith("≈ 12 s for 100 of 4,000 questions")
    assert estimate_line(None, 0, 8.0) == "" and estimate_line(0, 0, 8.0) == ""


def test_the_windows_of_the_run_are_named_in_the_estimate():
    window = SimpleNamespace(max_seq_length=256, doc_stride=64, max_query_length=32)
    assert windows_note(window) == (". Windows as the run trained: max_seq_length 256, doc_stride 64, "
                                    "max_query_length 32")


def test_the_status_says_whether_the_study_came_from_the_cache(study):
    s, _ = study
    assert study_line(s).startswith(f"{len(s)} questions of dev.json, model {s.source}: inference ")
    cached = dataclasses.replace(s, from_cache=True, note="the cache file was unreadable")
    assert study_line(cached).endswith("from the cache (instant). Note: the cache file was unreadable")


def test_the_summary_and_tau_table_come_from_the_figures(study):
    s, f = study
    lines = summary_lines(f)
    assert lines[0].startswith(f"<b>at τ = 0</b>: EM {f.official['exact_match']:.2f}, F1 {f.official['f1']:.2f}")
    assert any(line.startswith("<b>honest τ</b>") for line in lines) == (f.honest is not None)
    rows = tau_rows(f, 0.5)
    assert rows[0][:3] == ("chosen τ", "+0.50", f"{tau_sweep(f.scores, taus=[0.5]).f1[0]:.2f}")
    assert rows[1][:3] == ("best τ on the grid", f"{f.grid.best_tau:+.2f}", f"{f.grid.best_f1:.2f}")
    assert rows[1][3].endswith(f"(τ from {grid_text(f.grid.taus)})")   # the grid's own ends, widened or not
    assert [r[0] for r in rows[2:]] == (["official best τ"] if "best_tau" in f.official else []) + \
        (["honest τ (two halves)"] if f.honest is not None else [])


def test_the_figures_at_a_tau_and_the_questions_nearest_it(study):
    s, f = study
    at = at_tau(f, -1.0)
    sweep = tau_sweep(f.scores, taus=[-1.0])
    assert (at.tau, at.f1) == ("-1.00", f"{sweep.f1[0]:.2f}")
    assert at.line.startswith(f"F1 {sweep.f1[0]:.2f}, EM {sweep.exact_match[0]:.2f}, ")
    near, rows = questions_near_tau(s, f, 0.0, n=5)
    assert len(rows) == len(near) == min(5, len(s))
    gaps = [float(r.cells[1]) for r in rows]
    assert gaps == sorted(gaps) and gaps[0] == pytest.approx(np.abs(f.scores.score_diff).min(), abs=1e-3)
    for row, i in zip(rows, near):
        answered = f.scores.score_diff[i] > 0.0
        assert row.cells[2] == ("answer" if answered else "no answer")
        assert row.good == ((f.scores.f1_span[i] if answered else f.scores.f1_null[i]) >= 0.5)
    question, passage = near_question(s, f, near, 0)
    k = s.ids.index(f.scores.ids[near[0]])
    assert (question, passage) == (s.questions[k], s.context(k)) and rows[0].cells[6] == question


def test_the_grid_is_named_by_its_own_ends():
    """A grid widened past ±6 for a model whose score_diff lies far out is named by its ends: the table said
    "τ from −6 to +6" beside a best τ of +8.00."""
    from explorer.core.qa.scores import DEFAULT_TAUS, tau_grid

    assert grid_text(DEFAULT_TAUS) == "\u22126 to +6, step 0.25"
    wide = tau_grid([9.3, -2.0])
    assert wide[-1] > 6 and grid_text(wide) == f"\u2212{wide[-1]:g} to +{wide[-1]:g}, step 0.25"


def test_a_best_tau_that_answers_almost_no_question_is_said_to_be_about_abstaining():
    """A best τ that answers 0.3% of 300 questions (1 answer, F1 0) scores the all-no-answer baseline: the summary
    says so, as it does for a τ that answers none; a τ that answers a real share gets no such note."""
    from types import SimpleNamespace

    from explorer.ui.inspectors.components.dev_tau import summary_lines

    official = {"exact_match": 8.0, "f1": 11.08, "HasAns_f1": 25.38, "HasAns_total": 131, "NoAns_f1": 0.0,
                "NoAns_total": 169}

    def figures(best_f1, rate):
        grid = SimpleNamespace(best_tau=9.25, best_f1=best_f1,
                               at=lambda tau: {"answer_rate": rate if tau else 100.0})
        return SimpleNamespace(official=official, grid=grid, honest=None)

    almost = " ".join(summary_lines(figures(56.33, 0.3)))
    assert "answers 0.3% of the questions: its F1 56.33 is about the all-no-answer baseline" in almost
    assert "answers no question" in " ".join(summary_lines(figures(56.33, 0.0)))
    assert "abstaining" not in " ".join(summary_lines(figures(64.0, 35.0)))


def _abstaining_figures(answered: int, honest_f1: float):
    """300 questions, 131 answerable: ``answered`` of them have a score_diff above the honest τ (+8 on both halves);
    the τ at the official search's end answers none (its best_f1_thresh kept at 0.0)."""
    score_diff = np.full(300, -2.0)
    score_diff[:answered] = 9.0
    has_ans = np.zeros(300, dtype=bool)
    has_ans[:131] = True
    from explorer.core.qa.scores import QuestionScores

    zeros, null = np.zeros(300), (~has_ans).astype(float)
    scores = QuestionScores([str(i) for i in range(300)], score_diff, has_ans, zeros, zeros, null, null)
    official = {"exact_match": 7.67, "f1": 11.08, "HasAns_f1": 25.38, "HasAns_total": 131, "NoAns_f1": 0.0,
                "NoAns_total": 169, "best_tau": 9.266, "best_f1": 56.33, "best_f1_thresh": 0.0}
    grid = SimpleNamespace(best_tau=8.0, best_f1=56.33, taus=np.arange(-10, 10.25, 0.25),
                           at=lambda tau: {"answer_rate": 100.0 * (score_diff > tau).mean()})
    honest = {"tau_A": 8.0, "tau_B": 8.0, "f1_B_at_tau_A": 56.0, "f1_A_at_tau_B": 56.67, "honest_f1": honest_f1,
              "dev_best_tau": 8.0, "dev_best_f1": 56.33, "n_A": 150, "n_B": 150}
    return SimpleNamespace(official=official, grid=grid, honest=honest, scores=scores)


def test_an_honest_tau_that_answers_almost_no_question_says_its_figure_is_answering_none():
    """The figure to quote (honest F1 56.33) of a τ that answers 1 of 300 questions is the share of unanswerable
    questions: the honest line says so in words beside it; a τ that answers many questions gets no such words."""
    from explorer.ui.inspectors.components.dev_tau import honest_abstains_note

    honest_line = summary_lines(_abstaining_figures(1, 56.33))[-1]
    assert "(the figure to quote)" in honest_line
    assert ("this τ answers 1 of 300 questions: the figure equals answering no question at all, NoAns share 56.33"
            in honest_line)
    assert honest_abstains_note(_abstaining_figures(120, 70.0)) == ""


def test_the_official_best_tau_row_says_the_scripts_zero_is_no_threshold():
    """The official search's row, when answering none scores best: its τ lies above the highest score_diff and
    answers none; the script's best_f1_thresh 0.000 is named once, as the value evaluate-v2.0's find_best_thresh
    starts from (kept when no threshold beats answering none), not as a threshold that maximises F1: read as
    one (null odds = −score_diff) it would answer every question with score_diff ≥ 0."""
    figures = _abstaining_figures(0, 56.33)
    figures.scores.score_diff[:] = -2.0
    figures.scores.score_diff[0] = 8.266
    row = next(r for r in tau_rows(figures, 8.0) if r[0] == "official best τ")
    what = row[3]
    assert row[1] == "+9.266"
    assert what.count("best_f1_thresh") == 1 and what.count("τ") == 1
    assert "lies above the highest score_diff (+8.266) and answers none" in what
    assert "reads 0.000 here: not a threshold but the value its search starts from" in what
    assert "null-odds scale = −score_diff, it would answer every question with score_diff ≥ +0.000" in what
    assert "maximises F1" not in what


def test_the_running_line_names_the_model_by_its_last_path_parts():
    """While a study runs, the status line names a checkpoint by its run folder and below, on one short line."""
    from explorer.ui.inspectors.components.dev_tau import running_line

    line = running_line("/tmp/home/bert-explorer-runs/20261206-101838-minilm-squad_v1/checkpoints/best",
                        "/data/squad/dev-subset.json")
    assert line == "running …/20261206-101838-minilm-squad_v1/checkpoints/best on dev-subset.json …"
    assert running_line("distilbert/x", "d.json") == "running distilbert/x on d.json …"
