"""The Spans & τ view's Qt-free model (explorer/ui/inspectors/components/spans.py) on a tiny model's probe: the
decision lines at a τ, the window and span lines, the marked passage, the span table's best cell and first zoom.
No window, no qtbot."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import tiny_loaded_model

from explorer.core.qa.scores import TAU_GRID_LIMIT
from explorer.core.qa.probe import probe
from explorer.ui.inspectors.components.spans import (ANSWER_STYLE, CLICKED_STYLE, WITHHELD_STYLE, ZOOM_TOKENS,
                                                     best_cell, cell_tip, decision_lines, first_zoom, fmt,
                                                     passage_html, passage_range, slider_tip, span_line,
                                                     span_text, token_probs_tip, window_text)

PASSAGE = "ada was born in london. the river is in paris."


@pytest.fixture(scope="module")
def result():
    loaded = tiny_loaded_model("qa", seed=1)
    return probe(loaded, "where was ada born?", PASSAGE, tokenizer=loaded.tokenizer, attentions=False)


def test_scores_are_shown_with_two_decimals_and_infinities_named():
    assert (fmt(1.234), fmt(-math.inf), fmt(math.inf), fmt(None), fmt(2.0, 3)) == ("1.23", "-inf", "+inf", "n/a",
                                                                                   "2.000")


def test_the_decision_answers_below_score_diff_and_abstains_above(result):
    below = decision_lines(result, result.score_diff - 1.0)
    above = decision_lines(result, result.score_diff + 1.0)
    assert below.answer and not above.answer
    assert below.decision.startswith(f"τ = {result.score_diff - 1.0:+.2f}:  ")
    from explorer.core.qa.probe_text import addition, score_digits

    d = score_digits(result.nbest, result.null_start_logit, result.null_end_logit)   # the n-best table's
    assert below.null == f"S.C + E.C = {addition(result.null_start_logit, result.null_end_logit, d)}"
    null_total = below.null.split(" = ")[-1]
    best_total = below.best.split(" = ")[-1].split("  ")[0]
    assert below.diff.startswith(f"{best_total} − {null_total} = ")   # the rows' own printed scores, their decimals
    quoted = f"\"{result.nbest[0].text}\""
    assert below.best.endswith(quoted) and below.best_tip.startswith(quoted)
    assert below.by_hand.startswith("max |T_i·W + b − logits| = ")


def test_the_slider_tip_says_when_the_range_is_wider_than_the_grid():
    assert "(the τ study's grid);" in slider_tip(TAU_GRID_LIMIT)
    wide = slider_tip(9.0)
    assert "Slider: τ from -9 to +9" in wide and "widened to reach this question's score_diff" in wide


def test_windows_and_spans_are_named_by_tokens_characters_and_scores(result):
    w = result.windows[0]
    line = window_text(result, w)
    assert line.startswith(f"window 1: {len(w.tokens)} tokens, chars 0–{len(PASSAGE)}; s_null ")
    p0, p1 = passage_range(w)
    assert w.offsets[p0] is not None and w.offsets[p0 - 1] is None and p1 <= len(w.tokens)
    assert span_text(result, w, p0, p0 + 1) == "ada was"   # tokens i..j, both included
    assert span_text(result, w, 0, 1) == "(not passage text)"
    valid = span_line(result, 0, p0, p0 + 1, True)
    s, e = float(w.start_logits[p0]), float(w.end_logits[p0 + 1])
    second = f"({e:.2f})" if e < 0 else f"{e:.2f}"   # a negative second part in parentheses
    assert valid == (f"span tokens {p0}..{p0 + 1} of window 1: \"ada was\"  S.T_i + E.T_j = {s:.2f} + {second} = "
                     f"{s + e:.2f}")
    assert span_line(result, 0, p0 + 2, p0, False).endswith("(invalid span: the search never considers it)")


def test_the_passage_marks_the_best_span_by_the_decision_and_the_clicked_one(result):
    best = result.nbest[0]
    answered, anchored = passage_html(result, 0, result.score_diff - 1.0, None)
    assert anchored and ANSWER_STYLE in answered and WITHHELD_STYLE not in answered
    withheld, _ = passage_html(result, 0, result.score_diff + 1.0, None)
    assert WITHHELD_STYLE in withheld and ANSWER_STYLE not in withheld
    p0, _ = passage_range(result.windows[0])
    clicked, _ = passage_html(result, 0, result.score_diff + 1.0, (0, p0 + 3, p0 + 3))   # "in": no other mark there
    assert f'<a name="shown"></a><span style="{CLICKED_STYLE}">in</span>' in clicked
    assert PASSAGE[best.start_char:best.end_char] in answered


def test_the_best_cell_skips_invalid_spans_and_long_tables_zoom_around_it():
    table = np.full((5, 5), np.nan)
    assert best_cell(table) is None and best_cell(np.zeros((0, 0))) is None
    table[1, 3], table[2, 2] = 4.0, 1.0
    assert best_cell(table) == (1, 3)
    assert first_zoom((1, 3), ZOOM_TOKENS) is None
    assert first_zoom((100, 104), 300) == (100 - ZOOM_TOKENS // 2, 100 - ZOOM_TOKENS // 2 + ZOOM_TOKENS)
    assert first_zoom((5, 8), 300) == (0, ZOOM_TOKENS)


def test_hover_texts_name_the_tokens_and_numbers():
    w = SimpleNamespace(tokens=["[CLS]", "ada", "born"], start_probs=[0.1, 0.7, 0.2], end_probs=[0.1, 0.2, 0.7],
                        start_logits=[0.0, 2.0, 1.0], end_logits=[0.0, 1.0, 2.0])
    assert cell_tip(w, 1, 2, 3.0) == "start 'ada' (1), end 'born' (2): 3.00"
    assert cell_tip(w, 2, 1, float("nan")).endswith(": invalid")
    assert token_probs_tip(w, 1) == "'ada' (1): P(start) 0.700, P(end) 0.200; start_logit 2.00, end_logit 1.00"


def _added_up(text: str) -> bool:
    """Every "a + b = c" in ``text`` holds for the numbers as shown."""
    import re

    found = re.findall(r"(-?\d+\.(\d+)) \+ (-?\d+\.\d+) = (-?\d+\.\d+)", text)
    return bool(found) and all(round(float(a) + float(b), len(d)) == float(c) for a, d, b, c in found)


def test_the_shown_parts_of_a_score_add_up_to_the_shown_sum(result):
    """3.6561 + 3.5351 = 7.1912: to two decimals 3.66 + 3.54 would be shown as 7.19; a third decimal is shown
    instead, so a reader adding the parts on screen gets the sum on screen."""
    import copy

    from explorer.core.qa.probe_text import addition, render_text, sum_digits

    assert addition(3.6561, 3.5351) == "3.656 + 3.535 = 7.191" and addition(3.66, 3.53) == "3.66 + 3.53 = 7.19"
    assert sum_digits(-0.31, -0.32) == 2 and sum_digits(math.inf, 1.0) == 2
    r = copy.deepcopy(result)
    r.decoding.nbest[:] = r.nbest[:1]   # the shown rows share one decimal count: this one alone decides it
    r.null_start_logit, r.null_end_logit = 3.6561, 3.5351
    r.nbest[0].start_logit, r.nbest[0].end_logit = 3.6561, 3.5351
    lines = decision_lines(r, 0.0)
    assert lines.null == "S.C + E.C = 3.656 + 3.535 = 7.191" and _added_up(lines.best)
    text = render_text(r)
    assert "null_score = S.C + E.C = 3.656 + 3.535 = 7.191" in text and "= 3.656 + 3.535 = 7.191" in text


def test_a_sum_at_four_decimals_adds_its_printed_parts_and_says_they_are_rounded(result):
    """1.403751 + 3.375451 = 4.779202 in a table that needs four decimals: 1.4038 + 3.3755 is printed as 4.7793
    (the parts as printed, added), never 4.7792, and the text and the table say the parts are rounded."""
    import copy

    from explorer.core.qa import probe_text
    from explorer.core.qa.probe_text import addition, render_text, table_digits
    from explorer.ui.inspectors.components import spans

    pairs = [(1.403751, 3.375451), (0.12551, 0.12551)]   # the second row needs four decimals
    assert table_digits(pairs) == 4
    assert addition(1.403751, 3.375451, 4) == "1.4038 + 3.3755 = 4.7793"
    rounding_note, nbest_note, nbest_rows = probe_text.rounding_note, spans.nbest_note, spans.nbest_rows
    assert rounding_note(pairs, 4) == "parts rounded to 4 decimals; a sum adds the parts as printed"
    assert rounding_note([(3.6561, 3.5351)], 3) == ""
    r = copy.deepcopy(result)
    r.decoding.nbest[:] = r.nbest[:2]
    for c, (s, e) in zip(r.nbest, pairs):
        c.start_logit, c.end_logit = s, e
    rows = nbest_rows(r.nbest, (r.null_start_logit, r.null_end_logit))
    assert rows[0][2:5] == ["1.4038", "3.3755", "4.7793"]
    assert nbest_note(r.nbest, (r.null_start_logit, r.null_end_logit)) == "parts rounded to 4 decimals; a sum adds the parts as printed"
    text = render_text(r, top=2)
    assert "S.T_i + E.T_j = 1.4038 + 3.3755 = 4.7793" in text and "4.7792" not in text
    assert "n-best (top 2 of 2; parts rounded to 4 decimals; a sum adds the parts as printed):" in text


def test_a_difference_with_a_negative_null_score_reads_without_two_minus_signs(result):
    """best − null with null below zero: "6.61 − (-1.20) = 7.81", never "6.61 − -1.20"; a null score that rounds to
    zero reads "0.00", never "-0.00"."""
    import copy

    from explorer.core.qa.probe_text import addition, subtraction

    assert subtraction(6.61, -1.2) == "6.61 − (-1.20) = 7.81"
    assert subtraction(6.61, -0.001) == "6.61 − 0.00 = 6.61"
    assert addition(3.0, -1.5) == "3.00 + (-1.50) = 1.50" and addition(-0.001, 2.0) == "0.00 + 2.00 = 2.00"
    r = copy.deepcopy(result)
    r.decoding.nbest[:] = r.nbest[:1]
    r.nbest[0].start_logit, r.nbest[0].end_logit = 3.3, 3.31
    r.null_start_logit, r.null_end_logit = -0.001, -0.001
    diff = decision_lines(r, 0.0).diff
    assert diff == "6.61 − 0.00 = 6.61" and "− -" not in diff and "-0.00" not in diff
    r.null_start_logit, r.null_end_logit = -0.6, -0.6
    assert decision_lines(r, 0.0).diff == "6.61 − (-1.20) = 7.81"


def test_score_diff_repeats_the_printed_null_and_best_scores_with_their_decimals(result):
    """score_diff's parts are the null_score and best span score exactly as their rows print them (one rounding,
    one decimal count), and its total is their printed difference: null parts −0.15214 + −0.15214 print as
    −0.3042 (their printed sum), so score_diff never reads "− (−0.3043)", in the panel and in the probe text."""
    import copy
    import re

    from explorer.core.qa.probe_text import render_text

    r = copy.deepcopy(result)
    r.decoding.nbest[:] = r.nbest[:2]
    for c, (s, e) in zip(r.nbest, ((3.73221, 3.73221), (0.12551, 0.12551))):   # the second row needs 4 decimals
        c.start_logit, c.end_logit = s, e
    r.null_start_logit, r.null_end_logit = -0.15214, -0.15214
    lines = decision_lines(r, 0.0)
    assert lines.null.startswith("S.C + E.C = -0.1521 + (-0.1521) = -0.3042")
    assert lines.best.startswith("S.T_i + E.T_j = 3.7322 + 3.7322 = 7.4644")
    assert lines.diff == "7.4644 − (-0.3042) = 7.7686"
    text = render_text(r, top=2)
    assert "score_diff = best_non_null_score - null_score = 7.4644 − (-0.3042) = 7.7686" in text
    # a difference that adds up at two decimals still carries its neighbours' four
    r.null_start_logit, r.null_end_logit = -0.5, -0.5
    null_total = re.search(r"= (\S+)$", decision_lines(r, 0.0).null).group(1)
    assert null_total == "-1.0000"
    assert decision_lines(r, 0.0).diff == "7.4644 − (-1.0000) = 8.4644"
    r.decoding.nbest[:] = []   # no span: null_score's own decimals in both rows
    assert decision_lines(r, 0.0).null.startswith("S.C + E.C = -0.50 + (-0.50) = -1.00")
    assert decision_lines(r, 0.0).diff == "-inf − (-1.00) = -inf"


def test_the_nbest_table_and_the_probe_text_show_one_decimal_count_per_column(result):
    """One row needing a third decimal (3.6561 + 3.5351 = 7.1912) gives the whole table three decimals, and every
    row's shown parts still add up to its shown sum."""
    import copy

    from explorer.core.qa.probe_text import render_text, table_digits
    from explorer.ui.inspectors.components.spans import nbest_rows

    assert table_digits([(1.0, 2.0), (3.6561, 3.5351)]) == 3 and table_digits([(1.0, 2.0), (0.5, 0.25)]) == 2
    r = copy.deepcopy(result)
    assert len(r.nbest) >= 3
    r.decoding.nbest[:] = r.nbest[:3]
    for c, (s, e) in zip(r.nbest, ((4.0, 3.25), (3.6561, 3.5351), (1.5, -0.25))):
        c.start_logit, c.end_logit = s, e
    r.null_start_logit, r.null_end_logit = 1.0, 2.0
    rows = nbest_rows(r.nbest, (r.null_start_logit, r.null_end_logit))
    assert {len(cell.split(".")[1]) for row in rows for cell in row[2:5]} == {3}
    assert all(round(float(s) + float(e), 3) == float(t) for _, _, s, e, t, _ in rows)
    text = render_text(r, top=len(r.nbest))
    listed = [line for line in text.splitlines() if line.startswith("  ") and "S.T_i + E.T_j = " in line]
    assert len(listed) == len(r.nbest)
    decimals = {len(n.split(".")[1]) for line in listed
                for n in line.split("S.T_i + E.T_j = ")[1].split("  (")[0].replace("(", "").replace(")", "").split()
                if "." in n}
    assert decimals == {3}


def test_null_score_is_printed_with_the_span_scores_decimals_and_adds_its_printed_parts(result):
    """Span scores needing four decimals give null_score's parts and sum four too (never "0.11 + 0.10" beside
    them), in the probe text, the decision panel and the n-best table; its printed sum adds its printed parts."""
    import copy

    from explorer.core.qa.probe_text import render_text
    from explorer.ui.inspectors.components.spans import nbest_rows

    r = copy.deepcopy(result)
    r.decoding.nbest[:] = r.nbest[:2]
    for c, (s, e) in zip(r.nbest, ((1.403751, 3.375451), (0.12551, 0.12551))):
        c.start_logit, c.end_logit = s, e
    r.null_start_logit, r.null_end_logit = 0.11047, 0.10047
    text = render_text(r, top=2)
    null_line = next(line for line in text.splitlines() if line.startswith("null_score = "))
    assert null_line.startswith("null_score = S.C + E.C = 0.1105 + 0.1005 = 0.2110")
    assert decision_lines(r, 0.0).null.startswith("S.C + E.C = 0.1105 + 0.1005 = 0.2110")
    assert nbest_rows(r.nbest, (r.null_start_logit, r.null_end_logit))[1][2:5] == ["0.1255", "0.1255", "0.2510"]
    import re

    a, b, total = (float(x) for x in re.match(r"null_score = S\.C \+ E\.C = (\S+) \+ (\S+) = (\S+)", null_line).groups())
    assert round(a + b, 4) == total
    best = decision_lines(r, 0.0).best
    assert best.startswith("S.T_i + E.T_j = 1.4038 + 3.3755 = 4.7793")
    # the null score alone needing a third decimal gives the span rows three as well
    r2 = copy.deepcopy(result)
    r2.decoding.nbest[:] = r2.nbest[:1]
    r2.nbest[0].start_logit, r2.nbest[0].end_logit = 1.0, 2.0
    r2.null_start_logit, r2.null_end_logit = 3.6561, 3.5351
    assert nbest_rows(r2.nbest, (r2.null_start_logit, r2.null_end_logit))[0][2:5] == ["1.000", "2.000", "3.000"]
    assert "S.T_i + E.T_j = 1.000 + 2.000 = 3.000" in render_text(r2, top=1)
