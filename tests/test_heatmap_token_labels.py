"""The attention heat map's token labels (explorer.ui.inspectors.components.token_ticks, drawn by heatmap.TokenAxis):
every token named when the labels fit, else the first token of each block ([CLS], the question, [SEP], the
passage) named in any zoom, with every k-th token between them."""

from __future__ import annotations

from explorer.ui.inspectors.components.token_ticks import block_starts, token_ticks

BLOCKS = ["cls"] + ["question"] * 7 + ["sep"] + ["passage"] * 50 + ["sep"]


def test_block_starts_are_the_first_token_of_each_run():
    assert block_starts(BLOCKS) == [0, 1, 8, 9, 59]
    assert block_starts(None) == [] and block_starts([]) == []


def test_every_token_when_the_labels_fit():
    assert token_ticks(12, 0, 12, px_per_cell=20, label_px=16) == list(range(12))


def test_block_starts_always_named_when_thinned():
    ticks = token_ticks(len(BLOCKS), 0, len(BLOCKS), px_per_cell=8, label_px=16, boundaries=block_starts(BLOCKS))
    starts = [0, 1, 8, 9, 59]
    assert {0, 8, 59} <= set(ticks)   # 2 cells a label: [CLS] / question and [SEP] / passage clash; the one-token
    assert not {1, 9} & set(ticks)    # block of each pair is named: [CLS], and the [SEP] that ends the question
    roomy = token_ticks(len(BLOCKS), 0, len(BLOCKS), px_per_cell=16, label_px=16, boundaries=block_starts(BLOCKS))
    assert roomy == list(range(len(BLOCKS)))                    # every token when the labels fit
    regular = [t for t in ticks if t not in starts]
    assert regular and all(min(abs(t - b) for b in (0, 8, 59)) >= 2 for t in regular)


def test_where_the_question_ends_is_named_in_a_full_window():
    """384 tokens in 230 px: [CLS], a 5-token question, [SEP] and the passage start lie within one label's height;
    the [SEP] that ends the question is the one named there, and the labels do not overlap."""
    blocks = ["cls"] + ["question"] * 5 + ["sep"] + ["passage"] * 376 + ["sep"]
    ticks = token_ticks(len(blocks), 0, len(blocks), px_per_cell=230 / 384, label_px=16,
                        boundaries=block_starts(blocks))
    assert 6 in ticks and not {0, 1, 7} & set(ticks) and len(blocks) - 1 in ticks
    step = 27   # ceil(16 / (230 / 384))
    assert all(b - a >= step for a, b in zip(ticks, ticks[1:]))


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
