"""The attention heat map's token labels (explorer.ui.inspectors.components.token_ticks, drawn by heatmap.TokenAxis):
every token named when the labels fit, else the first token of each block ([CLS], the question, [SEP], the
passage, the last [SEP]) named in any zoom, spread apart where they are close, with evenly spaced tokens between
them."""

from __future__ import annotations

from explorer.ui.inspectors.components.token_ticks import block_starts, placed_ticks, token_ticks

BLOCKS = ["cls"] + ["question"] * 7 + ["sep"] + ["passage"] * 50 + ["sep"]


def test_block_starts_are_the_first_token_of_each_run():
    assert block_starts(BLOCKS) == [0, 1, 8, 9, 59]
    assert block_starts(None) == [] and block_starts([]) == []


def test_every_token_when_the_labels_fit():
    assert token_ticks(12, 0, 12, px_per_cell=20, label_px=16) == list(range(12))


def _apart(placed, cells):
    """No two labels overlap: centres at least one label length (in cells) apart."""
    return all(b - a >= cells - 1e-9 for (_, a), (_, b) in zip(placed, placed[1:]))


def test_block_starts_always_named_when_thinned():
    placed = placed_ticks(len(BLOCKS), 0, len(BLOCKS), px_per_cell=8, label_px=16, boundaries=block_starts(BLOCKS))
    ticks = [i for i, _ in placed]
    starts = [0, 1, 8, 9, 59]
    assert set(starts) <= set(ticks)   # 2 cells a label: [CLS] / question and [SEP] / passage all named, spread
    assert _apart(placed, 2)
    roomy = token_ticks(len(BLOCKS), 0, len(BLOCKS), px_per_cell=16, label_px=16, boundaries=block_starts(BLOCKS))
    assert roomy == list(range(len(BLOCKS)))                    # every token when the labels fit
    regular = [t for t in ticks if t not in starts]
    assert regular and all(min(abs(t - b) for b in starts) >= 2 for t in regular)


def test_where_the_question_starts_and_ends_is_named_in_a_full_window():
    """384 tokens in 230 px: [CLS], a 5-token question, [SEP] and the passage start lie within one label's height;
    all of them are named, in token order, their labels spread apart, and so is the last [SEP]."""
    blocks = ["cls"] + ["question"] * 5 + ["sep"] + ["passage"] * 376 + ["sep"]
    placed = placed_ticks(len(blocks), 0, len(blocks), px_per_cell=230 / 384, label_px=16,
                          boundaries=block_starts(blocks))
    ticks = [i for i, _ in placed]
    assert {0, 1, 6, 7, len(blocks) - 1} <= set(ticks)
    assert _apart(placed, 16 / (230 / 384))
    assert all(0 <= p <= len(blocks) for _, p in placed)
    assert len(placed) >= 230 // 16 - 1            # as many evenly spaced tokens as the room holds


def test_labels_of_their_own_widths_are_spread_on_a_horizontal_axis():
    widths = {0: 40.0, 1: 20.0, 2: 60.0}
    placed = placed_ticks(100, 0, 100, px_per_cell=2, label_px=lambda i: widths.get(i, 30.0), boundaries=[0, 1, 2])
    pos = dict(placed)
    assert pos[1] - pos[0] >= (40 + 20) / 2 / 2 and pos[2] - pos[1] >= (20 + 60) / 2 / 2


def test_a_zoomed_view_names_only_what_is_in_it():
    ticks = token_ticks(len(BLOCKS), 20.2, 40.0, px_per_cell=2, label_px=16, boundaries=block_starts(BLOCKS))
    assert ticks and all(20 <= t <= 40 for t in ticks)


def test_the_heat_map_axis_names_the_sep_token_in_a_small_view(qtbot):
    from explorer.ui.inspectors.heatmap import TokenHeatmap
    import numpy as np

    labels = ["[CLS]"] + [f"q{i}" for i in range(7)] + ["[SEP]"] + [f"p{i}" for i in range(50)] + ["[SEP]"]
    heat = TokenHeatmap()
    qtbot.addWidget(heat)
    heat.resize(360, 360)
    heat.show()
    qtbot.waitExposed(heat)
    n = len(labels)
    heat.set_matrix(np.random.default_rng(0).random((n, n)), labels, labels, BLOCKS, BLOCKS)
    axis = heat.left_axis
    view = heat.plot.getViewBox()
    lo, hi = view.viewRange()[1]
    ticks = axis.tickValues(lo, hi, axis.height())
    named = axis.tickStrings(ticks[0][1], 1, 1)
    assert "[SEP]" in named and "[CLS]" in named      # where the question starts and ends, without hovering


def test_the_attention_page_names_every_block_start_at_1280x800(qtbot, tiny_qa):
    """The Attention page at 1280x800 with a full 384-token window: both axes name [CLS], the question's first
    token, its [SEP], the passage's first token and the last [SEP], and no two labels overlap."""
    from PySide6.QtWidgets import QApplication

    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    qtbot.addWidget(view)
    view.resize(500, 660)     # the Attention pane beside the probe panel and the Runs dock at 1280x800
    view.show()
    qtbot.waitExposed(view)
    passage = " ".join(f"in {1815 + i} ada lovelace wrote note {i} on the engine of charles babbage." for i in range(40))
    r = probe(tiny_qa, "where was ada born?", passage, attentions=True, max_seq_length=384, doc_stride=128)
    view.set_result(r)
    for _ in range(3):
        QApplication.instance().processEvents()
    tokens = r.windows[0].tokens
    assert len(tokens) == 384
    seps = [i for i, t in enumerate(tokens) if t == "[SEP]"]
    cluster = ["[CLS]", tokens[1], "[SEP]", tokens[seps[0] + 1]]   # [CLS], the question, its [SEP], the passage
    heat = view.heatmap
    for axis, length in ((heat.left_axis, heat.left_axis.height()), (heat.bottom_axis, heat.bottom_axis.width())):
        lo, hi = axis.range
        (_, values), = axis.tickValues(lo, hi, length)
        names = axis.tickStrings(values, 1, 1)
        assert names[:4] == cluster and names[-1] == "[SEP]", names
        assert len(names) > 6                            # evenly spaced passage tokens between them
        px = length / (max(lo, hi) - min(lo, hi))
        sizes = [(16.0 if axis is heat.left_axis else 7.0 * min(len(n), 14) + 8.0) / px for n in names]
        assert all(b - a >= (sa + sb) / 2 - 1e-6
                   for a, b, sa, sb in zip(values, values[1:], sizes, sizes[1:])), "labels overlap"


def test_the_row_axis_title_stays_clear_of_the_widest_token_label(qtbot):
    """The left axis's title ("from token (row)") is drawn at the axis's outer edge and the token labels
    right-aligned at the map: the axis is wide enough for both, measured in the fonts that draw them (a width
    guessed from character counts put the title over "##lace"); at the sizes of a 1920x1080 and a 1280x800 page."""
    import numpy as np
    from PySide6.QtGui import QFont, QFontMetricsF
    from PySide6.QtWidgets import QApplication

    from explorer.ui.inspectors.heatmap import TokenHeatmap

    labels = ["[CLS]", "where", "was", "ada", "born", "?", "[SEP]", "ada", "love", "##lace", "was", "born", "in",
              "london", "in", "1815", ".", "[SEP]"]
    blocks = ["cls"] + ["question"] * 5 + ["sep"] + ["passage"] * 10 + ["sep"]
    for size in ((520, 520), (380, 300)):
        heat = TokenHeatmap()
        qtbot.addWidget(heat)
        heat.plot.setLabel("left", "from token (row)")
        heat.resize(*size)
        heat.show()
        qtbot.waitExposed(heat)
        heat.set_matrix(np.random.default_rng(0).random((len(labels), len(labels))), labels, labels, blocks, blocks)
        axis = heat.left_axis
        QApplication.processEvents()   # the layout gives the axis its new width
        fm = QFontMetricsF(axis.style.get("tickFont") or QFont())
        text_left = axis.width() - axis.style["tickTextOffset"][0] - max(fm.horizontalAdvance(s) for s in labels)
        title = axis.label.mapRectToParent(axis.label.boundingRect())   # the rotated title in the axis's frame
        assert title.right() <= text_left + 0.5, (size, title.right(), text_left)


def test_a_167_token_question_and_passage_names_its_block_starts_in_a_1280x800_window(qtbot, tmp_path, monkeypatch,
                                                                                      tiny_qa):
    """The main window at 1280x800, Attention, a question and passage of 167 tokens: the token map (about 310 px
    wide, too narrow for every label) names [CLS], the question's first token, its [SEP], the passage's first
    token and the last [SEP] on both axes, beside the evenly spaced tokens between them."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from helpers import shown_main_window
    from layout_shots import resize, settle, show_page
    from PySide6.QtWidgets import QApplication

    question = "where was ada born?"
    words = " ".join(f"in {1815 + i} ada lovelace wrote note {i} on the engine of charles babbage." for i in range(20))
    words = words.split()
    n = len(words)
    while len(tiny_qa.tokenizer(question, " ".join(words[:n]))["input_ids"]) > 167:
        n -= 1
    passage = " ".join(words[:n])
    assert 160 <= len(tiny_qa.tokenizer(question, passage)["input_ids"]) <= 167
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    app = QApplication.instance()
    w = shown_main_window(qtbot, tmp_path, inspector_opened=True)
    w.hub.set_model(tiny_qa)
    w.hub.open_example(question, passage)
    qtbot.waitUntil(lambda: w.hub.result is not None and not w.hub.probes._outstanding, timeout=60_000)
    resize(w, (1280, 800), app)
    show_page(w, "Attention", app)
    view = w.hub.attention_view
    if view.token_views.tabbed:
        view.token_views.tabs.setCurrentWidget(view.heatmap)
    settle(app)
    tokens = view.current_labels()
    seps = [i for i, t in enumerate(tokens) if t == "[SEP]"]
    wanted = ["[CLS]", tokens[1], "[SEP]", tokens[seps[0] + 1]]   # [CLS], the question, its [SEP], the passage
    heat = view.heatmap
    for axis, length in ((heat.left_axis, heat.left_axis.height()), (heat.bottom_axis, heat.bottom_axis.width())):
        lo, hi = axis.range
        (_, values), = axis.tickValues(lo, hi, length)
        names = axis.tickStrings(values, 1, 1)
        assert len(names) < len(tokens)                  # too narrow for every label: thinned
        assert names[:4] == wanted and names[-1] == "[SEP]", names
        assert len(names) > 5                            # evenly spaced tokens between them
