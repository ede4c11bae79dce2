"""The Tag page's attention views: the attention the inspector child's ``tag`` op returns for a sentence is the
model's own output_attentions (eager), window by window under the memory budget rule, and the Tag page shows
it in the QA pages' AttentionView with the sentence's word pieces (or merged words) as token labels."""

import numpy as np
import pytest
from helpers import tiny_loaded_model

from explorer.core.attention.flow import rollout, stack_attentions
from explorer.core.tagging.alignment import split_words, window_rows, word_pieces
from explorer.core.tagging.forward import text_attention

TAGS = ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]
TEXT = "ada lovelace was born in london"


def _loaded(seed: int = 3):
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=seed)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    return loaded


def _eager_attentions(loaded, text: str, max_seq_length: int = 128) -> list[np.ndarray]:
    """Per window, the model's own output_attentions (eager attention), (layers, heads, seq, seq) float32."""
    import torch

    from explorer.core.models.loading import eager_attention

    tok, model = loaded.tokenizer, loaded.model
    rows = window_rows(tok, word_pieces(tok, [split_words(text)[0]]), max_seq_length)
    out = []
    model.eval()
    for ids, _, _ in rows:
        t = torch.tensor([ids])
        with torch.no_grad(), eager_attention(model):
            o = model(input_ids=t, attention_mask=torch.ones_like(t), token_type_ids=torch.zeros_like(t),
                      output_attentions=True)
        out.append(stack_attentions(o.attentions))
    return out


def test_text_attention_is_the_models_output_attentions():
    loaded = _loaded()
    att = text_attention(loaded.model, loaded.tokenizer, TEXT, keep="float32")
    ref = _eager_attentions(loaded, TEXT)
    assert len(att.windows) == len(ref) == 1 and att.attention_note == ""
    w, data = att.windows[0], att.attention[0]
    assert data.attentions.shape == ref[0].shape == (2, 4, len(w.tokens), len(w.tokens))
    assert np.max(np.abs(data.attentions - ref[0])) < 1e-6
    assert np.max(np.abs(data.rollout - rollout(ref[0]))) < 1e-5
    assert w.tokens[0] == "[CLS]" and w.tokens[-1] == "[SEP]" and w.blocks[0] == w.blocks[-1] == "special"
    assert set(w.blocks[1:-1]) == {"question"} and w.word_ids[1] == 0 and w.offsets[1] == (0, 3)
    # flow rows (sentence -> sentence, passage (empty), [CLS]/[SEP]) sum to 1 for the sentence block
    assert np.allclose(np.nansum(data.flow[:, :, 0, :], axis=-1), 1.0, atol=1e-5)


def test_long_text_over_the_budget_keeps_one_window_and_computes_the_others():
    loaded = _loaded()
    text = " ".join(["ada lovelace was born in london"] * 6)
    att = text_attention(loaded.model, loaded.tokenizer, text, max_seq_length=16, keep="float32", budget=1)
    ref = _eager_attentions(loaded, text, max_seq_length=16)
    assert len(att.windows) == len(ref) > 2 and "keeping only the shown window" in att.attention_note
    assert att.attention[0].attentions is not None and all(a.attentions is None for a in att.attention[1:])
    second = att.attention_weights(1)
    assert np.max(np.abs(second - ref[1])) < 1e-6 and att.attention[0].attentions is None


@pytest.fixture
def view(qtbot):
    from explorer.ui.inspectors.tag_view import TagView

    v = TagView()
    qtbot.addWidget(v)
    v.resize(1100, 800)
    return v


def _tag(qtbot, view, text: str) -> dict:
    view.result = None
    view.tag(text)
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    return view.result


def test_tag_page_shows_the_sentences_attention_with_its_pieces(qtbot, view, tmp_path):
    loaded = _loaded()
    view.set_loaded(loaded)
    res = _tag(qtbot, view, TEXT)
    att = res["attention"]
    ref = _eager_attentions(loaded, TEXT)[0]
    assert np.max(np.abs(att.attention[0].attentions - ref)) < 1e-6    # through the inspector pipe
    av = view.attention_view
    assert av.result is att and av.layer.count() == 2 and av.head.count() == 5   # "mean" + 4 heads
    pieces = res["tagged"].pieces
    assert av.current_labels() == pieces == att.windows[0].tokens
    assert av.heatmap.left_axis.labels == pieces and av.heatmap.bottom_axis.labels == pieces
    av.layer.setCurrentIndex(1)
    av.head.setCurrentIndex(3)
    assert np.allclose(av.current_matrix(), ref[1, 2], atol=1e-6)
    av.merge.setChecked(True)
    words = res["tagged"].words
    assert av.current_labels() == ["[CLS]", *words, "[SEP]"] and av.heatmap.left_axis.labels[1:-1] == words
    assert np.allclose(av.current_matrix().sum(axis=1), 1.0, atol=1e-5)
    assert av.flow_table.rowCount() == 2 and av.flow_table.horizontalHeaderItem(0).text() == "s→s"
    view.lower.setCurrentWidget(view.attention_scroll)
    view.grab().save(str(tmp_path / "tag_attention.png"))
    # another word of the same sentence: shown from the result held; Tag again keeps the attention on screen
    view.word.setValue(3)
    assert view.result is res and view.text.toPlainText().startswith(f"word 3 {words[2]!r}")
    view.run()
    qtbot.waitUntil(lambda: view.result is not res, timeout=30000)
    assert view.result["attention"] is None and av.result is att


def test_tag_page_fetches_a_window_over_the_budget_from_the_child(qtbot, view):
    loaded = _loaded()
    view.set_loaded(loaded)
    view.max_seq_length, view.attention_budget = 16, 1
    text = " ".join(["ada lovelace was born in london"] * 6)
    att = _tag(qtbot, view, text)["attention"]
    av = view.attention_view
    assert av.window_box.count() == len(att.windows) > 2 and "Memory budget" in av.info.text()
    assert att.attention[1].attentions is None
    av.set_window(1)
    qtbot.waitUntil(lambda: att.attention[1].attentions is not None, timeout=30000)
    ref = _eager_attentions(loaded, text, max_seq_length=16)[1]
    assert np.max(np.abs(att.attention[1].attentions - ref)) < 1e-6 and att.attention[0].attentions is None
    assert av.current_labels() == att.windows[1].tokens
