"""Layers and heads as a person names them: counted from 1 on every page, in every field, flag and message
(explorer.core.attention.head_labels), while the code keeps 0-based indexes."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.core.attention.head_labels import (HeadLabelError, head_label, head_name, layer_axis_labels,
                                                 numbers, outside_message, parse_head, parse_heads, parse_layer)
from explorer.core.errors import UserError


def test_a_head_label_reads_back_as_the_same_indexes():
    for layer in range(6):
        assert parse_layer(str(layer + 1)) == layer and parse_layer(f"L{layer + 1}") == layer
        for head in range(12):
            assert parse_head(head_label(layer, head)) == (layer, head)
    assert head_label(4, 2) == "5.3" and head_name(4, 2) == "layer 5, head 3"
    assert layer_axis_labels(2) == ["layer 1", "layer 2"] and numbers(3) == ["1", "2", "3"]


def test_a_typed_set_names_heads_and_whole_layers_counted_from_1():
    named = parse_heads("5.3, 6.*, L2 2.4", 6, 12)
    assert named.heads == [(4, 2)] and named.layers == [1, 5]
    assert named.labels() == ["layer 2 (all heads)", "layer 6 (all heads)", "5.3"]


@pytest.mark.parametrize("text, message", [
    ("7.1", "layer 7 does not exist: this model has layers 1-6 and heads 1-12 per layer"),
    ("6.13", "head 13 of layer 6 does not exist: this model has layers 1-6 and heads 1-12 per layer"),
    ("0.3", "layer 0 does not exist: this model has layers 1-6"),
    ("5,3", "'5' is not a head"),
])
def test_a_head_outside_the_model_is_said_in_a_persons_words(text, message):
    with pytest.raises(HeadLabelError) as err:
        parse_heads(text, 6, 12)
    assert str(err.value).startswith(message) and isinstance(err.value, UserError)
    assert "Error" not in str(err.value) and ".." not in str(err.value)
    assert outside_message(6, 0, 6, 12) == "layer 7 does not exist: this model has layers 1-6 and heads 1-12 per layer"


def test_heads_off_and_the_attention_page_name_the_same_head(qtbot, tiny_qa):
    """"2.3" typed in Heads off is the head the Attention page shows for layer 2, head 3."""
    from explorer.core.attention.gates import gate_tensor, head_layout
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView
    from explorer.ui.inspectors.components.head_masking import parse_selection

    view = AttentionView()
    qtbot.addWidget(view)
    r = probe(tiny_qa, "Where was Ada born?", "Ada was born in London.", attentions=True)
    view.set_result(r)
    view.layer.setCurrentIndex(view.layer.findText("2"))
    view.head.setCurrentIndex(view.head.findText("3"))
    shown = view.current_matrix()
    layout = head_layout(tiny_qa.model)
    sel = parse_selection("2.3", layout.layers, layout.heads)
    assert sel.error == "" and len(sel.heads) == 1
    layer, head = sel.heads[0]
    np.testing.assert_allclose(shown, r.attention[0].attentions[layer][head].astype(np.float32))
    gates = gate_tensor(layout, heads=sel.heads).numpy()
    assert list(zip(*np.nonzero(gates == 0))) == [(layer, head)]
    assert sel.describe() == "2.3" and head_name(layer, head) == "layer 2, head 3"


def test_a_selection_is_named_as_it_is_typed_whole_layers_as_star():
    """The heads switched off, said back counted from 1: a whole layer as 6.*, single heads as 4.2, in layer
    order; a long list is cut with the count of the rest."""
    from explorer.core.attention.head_labels import selection_label

    assert selection_label([(5, h) for h in range(12)] + [(3, 1)], 12) == "4.2, 6.*"
    assert selection_label([(0, 0), (0, 1)], 0) == "1.1, 1.2"          # the layer's size unknown: never 1.*
    assert selection_label([(0, h) for h in range(10)], 12, most=3) == "1.1, 1.2, 1.3 …and 7 more"
    assert selection_label([], 12) == ""
