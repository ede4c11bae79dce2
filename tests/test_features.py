"""Windows, offsets, labels and dynamic padding (explorer.core.qa.windows)."""

import copy

import pytest

from explorer.core.qa.windows import collate_qa, prepare_qa_features
from helpers import tiny_tokenizer

LONG = " ".join(f"word{k} in london" for k in range(60))  # 60 x (word, ##k.., in, london) ~ 250 tokens


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


def cls_last_tokenizer():
    """A RoBERTa/XLNet-like variant: no token_type_ids, [CLS] at the END of the window."""
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    base = tiny_tokenizer()
    bt = copy.deepcopy(base.backend_tokenizer)
    sep, cls = base.sep_token_id, base.cls_token_id
    bt.post_processor = TemplateProcessing(single="$A [SEP] [CLS]", pair="$A [SEP] $B [SEP] [CLS]",
                                           special_tokens=[("[SEP]", sep), ("[CLS]", cls)])
    return PreTrainedTokenizerFast(tokenizer_object=bt, cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]",
                                   unk_token="[UNK]", model_input_names=["input_ids", "attention_mask"])


def passage_positions(offs):
    return [k for k, o in enumerate(offs) if o is not None]


def test_short_passage_one_window(tok):
    ctx = "Ada Lovelace was born in London in 1815."
    f = prepare_qa_features(["Where was Ada born?"], [ctx], tok)
    assert len(f) == 1 and f.example_index == [0] and f.cls_index == [0]
    tokens = tok.convert_ids_to_tokens(f.input_ids[0])
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    offs = f.offset_mapping[0]
    # question tokens + specials have no offsets; passage tokens do and map back to the text
    assert offs[:7] == [None] * 7  # [CLS] where was ada born ? [SEP]
    assert offs[-1] is None
    pieces = [ctx[o[0]:o[1]] for o in offs if o is not None]
    assert "".join(pieces) == ctx.replace(" ", "")
    assert f.token_type_ids[0][:7] == [0] * 7 and f.token_type_ids[0][7] == 1
    assert f.sequence_ids[0][0] is None and f.sequence_ids[0][1] == 0 and f.sequence_ids[0][7] == 1
    assert f.attention_mask[0] == [1] * len(f.input_ids[0])
    assert f.start_positions is None


def test_long_passage_windows_overlap_by_doc_stride(tok):
    f = prepare_qa_features(["where is it?"], [LONG], tok, max_seq_length=64, doc_stride=16)
    assert len(f) > 3
    assert all(len(ids) <= 64 for ids in f.input_ids)
    assert set(f.example_index) == {0}
    spans = [[f.offset_mapping[k][p] for p in passage_positions(f.offset_mapping[k])] for k in range(len(f))]
    for a, b in zip(spans, spans[1:]):
        assert a[-16:] == b[:16]  # doc_stride = overlap in tokens
    # every passage token is covered and the last window reaches the end of the passage
    assert spans[0][0][0] == 0 and spans[-1][-1][1] == len(LONG)


def test_labels_answer_in_second_window(tok):
    ctx = " ".join(["the river"] * 30) + " ada was born in paris in 1815 ."
    start = ctx.index("paris")
    answers = [{"text": ["paris"], "answer_start": [start]}]
    f = prepare_qa_features(["where was ada born?"], [ctx], tok, max_seq_length=48, doc_stride=8, answers=answers)
    assert len(f) >= 2
    labelled = [k for k in range(len(f)) if f.start_positions[k] != f.cls_index[k]]
    assert labelled and labelled[0] >= 1  # first window does not contain the answer -> cls label
    assert f.start_positions[0] == f.end_positions[0] == f.cls_index[0]
    for k in labelled:
        s, e = f.start_positions[k], f.end_positions[k]
        offs = f.offset_mapping[k]
        assert ctx[offs[s][0]:offs[e][1]] == "paris"


def test_labels_multi_token_answer_and_no_answer(tok):
    ctx = "Ada Lovelace was born in London in 1815."
    answers = [{"text": ["Ada Lovelace"], "answer_start": [0]}, {"text": [], "answer_start": []}]
    f = prepare_qa_features(["who?", "what year is it now?"], [ctx, ctx], tok, answers=answers)
    s, e = f.start_positions[0], f.end_positions[0]
    assert (s, e) == (4, 12)  # [CLS] who ? [SEP] ada(4) l ##o ##v ##e ##l ##a ##c ##e(12)
    assert ctx[f.offset_mapping[0][s][0]:f.offset_mapping[0][e][1]] == "Ada Lovelace"
    assert f.start_positions[1] == f.end_positions[1] == f.cls_index[1] == 0


def test_question_truncated_to_max_query_length(tok):
    q = " ".join(["what"] * 100) + "?"
    f = prepare_qa_features([q], ["in london"], tok, max_seq_length=64, doc_stride=8, max_query_length=10)
    assert f.sequence_ids[0].count(0) == 10
    assert f.sequence_ids[0].count(1) == 2


def test_unicode_offsets_map_to_exact_characters(tok):
    ctx = "Café Zürich — 東京 🎉 naïve résumé"
    f = prepare_qa_features(["where?"], [ctx], tok)
    pieces = [ctx[o[0]:o[1]] for o in f.offset_mapping[0] if o is not None]
    assert pieces[:4] == ["C", "a", "f", "é"]
    assert "東" in pieces and "京" in pieces and "🎉" in pieces and "ï" in pieces
    assert "".join(pieces) == ctx.replace(" ", "")


def test_no_token_type_ids_and_cls_not_first():
    t = cls_last_tokenizer()
    ctx = "Ada was born in London."
    f = prepare_qa_features(["where?"], [ctx], t, answers=[{"text": ["London"], "answer_start": [16]}])
    assert f.token_type_ids is None
    n = len(f.input_ids[0])
    assert f.cls_index == [n - 1]
    assert f.input_ids[0][n - 1] == t.cls_token_id
    s = f.start_positions[0]
    assert ctx[f.offset_mapping[0][s][0]:f.offset_mapping[0][f.end_positions[0]][1]] == "London"
    batch = collate_qa(f, [0], t.pad_token_id)
    assert "token_type_ids" not in batch


def test_collate_dynamic_padding(tok):
    f = prepare_qa_features(["where?", "who was born in london in 1815?"], ["in london", "ada"], tok,
                            answers=[{"text": ["london"], "answer_start": [3]}, {"text": [], "answer_start": []}])
    lens = f.lengths()
    batch = collate_qa(f, [0, 1], tok.pad_token_id)
    assert batch["input_ids"].shape == (2, max(lens))
    short = lens.index(min(lens))
    assert batch["input_ids"][short, min(lens):].tolist() == [tok.pad_token_id] * (max(lens) - min(lens))
    assert batch["attention_mask"].sum(1).tolist() == lens
    assert batch["start_positions"].tolist() == f.start_positions
    assert collate_qa(f, [0, 1], tok.pad_token_id, pad_to_multiple_of=8)["input_ids"].shape[1] % 8 == 0
    with pytest.raises(ValueError):
        collate_qa(f, [], tok.pad_token_id)


def test_bad_settings_raise(tok):
    with pytest.raises(ValueError, match="doc_stride"):
        prepare_qa_features(["where was ada born?"], [LONG], tok, max_seq_length=16, doc_stride=12)
    with pytest.raises(ValueError, match="contexts"):
        prepare_qa_features(["a", "b"], ["x"], tok)
