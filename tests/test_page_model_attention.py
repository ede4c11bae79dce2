"""The Attention view's Qt-free model (explorer/ui/inspectors/components/attention.py): the window names, the flow
shown for a head choice, the head view's rows and columns, and the readout's sentences. No window, no qtbot."""

from types import SimpleNamespace

import numpy as np
import pytest

from explorer.core.attention.selection import selection_attention
from explorer.core.attention.wordmerge import word_groups
from explorer.ui.inspectors.components.attention import (MODE_LAYER, MODE_ROLLOUT, QA_BLOCKS, SENTENCE_BLOCKS,
                                                         ShownAttention, export_title, flow_column_tip, head_flow,
                                                         window_label)

TOKENS = ["[CLS]", "where", "born", "[SEP]", "ada", "was", "born", "[SEP]"]
BLOCKS = ["special", "question", "question", "special", "passage", "passage", "passage", "special"]


def shown() -> ShownAttention:
    m = np.arange(64, dtype=np.float32).reshape(8, 8) / 64
    s = ShownAttention()
    s.show(m, list(TOKENS), list(BLOCKS), None, "layer 2, head 3")
    return s


def test_a_window_is_named_by_its_place_tokens_and_characters():
    w = SimpleNamespace(index=1, tokens=["t"] * 165, offsets=[None, (374, 380), (381, 940), None])
    assert window_label(w, 3) == "window 2 of 3 · 165 tokens · chars 374–940"
    assert window_label(SimpleNamespace(index=0, tokens=["t"], offsets=[None]), 1).endswith("no passage")


def test_the_flow_shown_is_the_head_mean_unless_one_head_of_one_layer_is_chosen():
    flow = np.random.default_rng(0).random((4, 3, 3, 3))
    mean, which = head_flow(flow, 0, MODE_LAYER)
    np.testing.assert_array_equal(mean, flow.mean(axis=1))
    assert which == "mean over heads"
    one, which = head_flow(flow, 2, MODE_LAYER)
    np.testing.assert_array_equal(one, flow[:, 1])
    assert which == "head 2"
    assert head_flow(flow, 2, MODE_ROLLOUT)[1] == "mean over heads"   # rollout has no heads


def test_block_layouts_name_their_pairs_and_columns():
    assert QA_BLOCKS.pair_names()[QA_BLOCKS.pairs.index(QA_BLOCKS.default_pair)] == "question → passage"
    assert SENTENCE_BLOCKS.pair_names() == ["sentence → sentence", "sentence → [CLS]/[SEP]",
                                            "[CLS]/[SEP] → sentence", "[CLS]/[SEP] → [CLS]/[SEP]"]
    assert flow_column_tip("question → passage") == ("question → passage: share of the attention of the question "
                                                      "tokens that goes to the passage tokens")


def test_the_head_view_shows_the_chosen_direction_rows_and_columns():
    s = shown()
    weights, left, right, left_blocks, right_blocks = s.pick_direction("question", "passage")
    assert left == ["where", "born"] and right == ["ada", "was", "born"]
    assert set(left_blocks) == {"question"} and set(right_blocks) == {"passage"}
    np.testing.assert_array_equal(weights, s.matrix[np.ix_([1, 2], [4, 5, 6])])
    assert s.token_index("left", 1) == 2 and s.token_index("right", 0) == 4 and s.token_index("left", 5) == -1
    assert s.selected("right", [0, 2, 9]) == [4, 6]
    _, left, _, _, _ = s.pick_direction(None, None)   # all tokens -> all tokens
    assert left == TOKENS


def test_a_new_matrix_keeps_the_head_view_rows_until_a_direction_is_picked():
    s = shown()
    s.pick_direction("question", "passage")
    s.show(np.zeros((8, 8), np.float32), list(TOKENS), list(BLOCKS), None, "computing …")
    assert list(s.left_idx) == [1, 2] and s.what == "computing …"


def test_a_token_is_described_by_its_strongest_weights_and_its_share_per_block():
    s = shown()
    share = np.tile([0.2, 0.5, 0.3], (8, 1))   # (tokens, blocks): question, passage, special
    text = s.describe_token(4, share, QA_BLOCKS.labels)
    assert text.startswith("'ada' (passage) attends most to '[SEP]' 0.609, 'born' 0.594, 'was' 0.578 "
                           "(layer 2, head 3).")
    assert text.endswith("it gives 0.200 of its attention to the question, 0.500 to the passage, "
                         "0.300 to [CLS]/[SEP].")
    hover = s.hover_text(4, 1, share, QA_BLOCKS.labels)
    assert hover.startswith("'ada' → 'where': 0.5156.  'ada' (passage)")


def test_merged_words_average_their_pieces_shares():
    tokens = ["[CLS]", "lo", "##ve", "[SEP]"]
    blocks = ["special", "passage", "passage", "special"]
    groups = word_groups(tokens, [None, 0, 0, None], blocks)
    s = ShownAttention()
    s.show(np.eye(3, dtype=np.float32), groups.labels, groups.blocks, groups, "layer 1, mean over heads")
    share = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0.5, 0.5], [0, 0, 1.0]])
    assert "0.750 to the passage" in s.describe_token(1, share, QA_BLOCKS.labels)
    assert "3 words." in s.readout(0, 1)


def test_the_readout_names_the_matrix_window_and_memory_note():
    s = shown()
    text = s.readout(1, 4, "only the shown window kept")
    assert text == ("layer 2, head 3; window 2 of 4, 8 tokens.\nMemory budget: only the shown window kept.\n"
                    "Rows attend to columns; hover a token to see where its attention goes.")
    assert "Memory budget" not in s.readout(0, 1)


def test_a_selection_is_summed_and_named():
    s = shown()
    summary = selection_attention(s.matrix, [1, 2])
    text = s.selection_text(summary)
    assert text.startswith("2 selected ('where', 'born'), layer 2, head 3: their attention goes (mean over them) "
                           "to '[SEP]'")
    assert text.endswith("Escape clears the selection.")
    many = s.selection_text(selection_attention(s.matrix, list(range(8))))
    assert "and 2 more" in many


@pytest.mark.parametrize("result, title", [
    (SimpleNamespace(question="where?", windows=[0, 1]), "where? (window 2 of 2)"),
    (SimpleNamespace(text="EU rejects", windows=[0, 1]), "EU rejects (window 2 of 2)"),
])
def test_the_export_title_names_the_input_and_window(result, title):
    assert export_title(result, 1) == title
