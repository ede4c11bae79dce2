"""explorer.core.protocol.frames: every result type the inspector child sends round-trips exactly (same classes, dtypes,
shapes, values, NaN and infinities), arrays travel as npz bytes (not JSON lists), and bad input gets a
specific WireError."""

from __future__ import annotations

import dataclasses
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import tiny_loaded_model

from explorer.core.protocol.frames import (RemoteAttention, WireError, decode, encode, pack, read_frame, unpack,
                                write_frame)

QUESTION = "where was ada born?"
PASSAGE = "ada lovelace was born in london in 1815. she wrote the first program."


def same(a, b, where="value") -> None:
    """Exact equality, type by type (NaN equals NaN; numpy dtype and shape included)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), where
    elif isinstance(a, (float, np.floating)):
        assert (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b)), where
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), f"{where}: keys differ"
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif dataclasses.is_dataclass(a):
        sa, sb = vars(a), vars(b)
        assert list(sa) == list(sb), f"{where}: attributes {list(sa)} != {list(sb)}"
        for k in sa:
            same(sa[k], sb[k], f"{where}.{k}")
    elif isinstance(a, RemoteAttention):
        assert a == b, where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def roundtrip(value):
    """Through the bytes of a frame, as the pipe carries it."""
    frame = pack({"id": 1, "event": "result"}, value, has_value=True)
    message, back = read_frame(io.BytesIO(frame))
    assert message == {"id": 1, "event": "result", **({"nbytes": message["nbytes"]} if "nbytes" in message else {})}
    return back


@pytest.fixture(scope="module")
def qa():
    return tiny_loaded_model("qa")


def test_plain_values_round_trip_exactly():
    value = {"floats": [0.1, -0.0, math.inf, -math.inf, math.nan] * 3, "ints": list(range(-5, 20)) + [2 ** 62],
             "big": [2 ** 70, 1], "bools": [True, False] * 6, "strs": ["ada", "ünïcödé", "", "\ud800x"] * 3,
             "tuple": (1, "a", None), "short_surrogate": ["\udc80"], "int_keys": {1: "a", 2: "b"}, "dollar": {"$a": 1, "x": 2},
             "nested": [[1, 2], [], [3]] * 4, "rows": [{"q": "a", "n": i} for i in range(10)],
             "empty_rows": [{} for _ in range(9)], "mixed": [1, "a", 2.5, None, (1, 2)] * 2,
             "scalars": [np.float32(1.5), np.int64(3)], "scalar_col": [np.float32(i) for i in range(10)],
             "path": Path("/tmp/x"), "none": None,
             "arrays": [np.arange(12, dtype=np.float16).reshape(3, 4), np.array([[np.nan, 1]], np.float32),
                        np.zeros((0, 3), np.int64), np.array(["a", "bc"])]}
    same(value, roundtrip(value))


def test_probe_result_with_attention_round_trips(qa):
    from explorer.core.qa.probe import probe

    result = probe(qa, QUESTION, " ".join([PASSAGE] * 4), attentions=True, max_seq_length=48, doc_stride=16)
    result.lazy_attention.wire_ref = 7
    back = roundtrip(result)
    assert isinstance(back.lazy_attention, RemoteAttention) and back.lazy_attention.ref == 7
    assert back.lazy_attention.within_budget == result.lazy_attention.within_budget
    result.lazy_attention = back.lazy_attention = None
    same(result, back)
    assert back.decision(0.5) == result.decision(0.5) and back.best_window.tokens == result.best_window.tokens
    assert back.attention[0].attentions.dtype == np.float16


def test_probe_result_over_the_budget_keeps_the_remote_rule(qa):
    from explorer.core.qa.probe import probe

    result = probe(qa, QUESTION, " ".join([PASSAGE] * 6), attentions=True, max_seq_length=48, doc_stride=16,
                   attention_budget=2 * 4 * 48 * 48 * 2)
    back = roundtrip(result)
    kept = [k for k, a in enumerate(back.attention) if a.attentions is not None]
    assert len(kept) == 1 and not back.lazy_attention.within_budget
    other = (kept[0] + 1) % len(back.windows)
    assert back.attention_weights(other) is None            # the GUI asks the child for it
    weights = result.attention_weights(other)
    back.lazy_attention.store(back.attention, other, weights)
    assert [k for k, a in enumerate(back.attention) if a.attentions is not None] == [other]
    np.testing.assert_array_equal(back.attention[other].attentions, weights)


def test_tau_study_and_figures_round_trip(qa, tmp_path):
    from test_ui_inspector_core import squad_v2_file

    from explorer.core.qa.tau_study import run_study, study_figures

    study = run_study(qa, str(squad_v2_file(tmp_path / "dev.json")), cache_dir=tmp_path / "cache")
    figures = study_figures(study)
    back_study, back_figures = roundtrip((study, figures))
    same(study, back_study)
    same(figures, back_figures)
    assert list(back_study.decodings) == study.ids and back_study.context(1) == study.context(1)


def test_classify_results_and_dev_report_round_trip(tmp_path):
    from helpers import write_tiny_classification

    from explorer.core.training.dev_scoring import score_classification_dev
    from explorer.core.classify.forward import classify_choices, classify_text

    cls = tiny_loaded_model("classification", num_labels=3)
    pair = classify_text(cls.model, cls.tokenizer, "ada was born in london.", "where was ada born?", label=1)
    same(pair, roundtrip(pair))
    mc = tiny_loaded_model("multiple_choice")
    swag = classify_choices(mc.model, mc.tokenizer, "ada was born", ["in london", "a river", "the city", "a model"])
    same(swag, roundtrip(swag))
    two = tiny_loaded_model("classification")
    report = score_classification_dev(two.model, two.tokenizer, "single",
                                      str(write_tiny_classification(tmp_path / "d.tsv")), cap=None)
    same(report, roundtrip(report))


def test_saliency_model_info_and_window_problems_round_trip(qa, tmp_path):
    from helpers import save_tiny_model

    from explorer.core.models.info import model_info
    from explorer.core.models.loading import load_model
    from explorer.core.qa.probe import probe
    from explorer.core.qa.saliency import window_saliency
    from explorer.core.models.window_settings import check_window_settings

    result = probe(qa, QUESTION, PASSAGE)
    best = result.nbest[0]
    sal = window_saliency(qa.model, result.windows[best.window_index], best.start_token, best.end_token)
    same(sal, roundtrip(sal))
    window = roundtrip(result.windows[0])
    same(result.windows[0], window)
    info = model_info(load_model(str(save_tiny_model(tmp_path / "m")), "qa"), "qa")
    back = roundtrip(info)
    same(info, back)
    assert back.question_tokens(QUESTION, 64) == len(qa.tokenizer(QUESTION, add_special_tokens=False)["input_ids"])
    problems = check_window_settings(qa.tokenizer, qa.model.config, 40, 30, 20)
    same(problems, roundtrip(problems))


def test_arrays_travel_as_npz_bytes_not_json():
    big = np.random.default_rng(0).standard_normal((6, 12, 64, 64)).astype(np.float16)
    frame = pack({"id": 3, "event": "result"}, {"w": big, "xs": [float(i) for i in range(1000)]})
    line, _, payload = frame.partition(b"\n")
    assert len(line) < 400 and json.loads(line)["nbytes"] == len(payload) >= big.nbytes + 8000
    message, value = unpack(line, payload)
    assert np.array_equal(value["w"], big) and value["xs"][999] == 999.0


def test_what_cannot_be_sent_or_read_is_named():
    with pytest.raises(WireError, match=r"\.f: a builtins.function cannot be sent"):
        encode({"f": lambda: 0})
    with pytest.raises(WireError, match="object array"):
        encode(np.array([object()]))
    with pytest.raises(WireError, match="only explorer.core dataclasses"):
        decode({"$dc": "subprocess:Popen", "f": {}}, [])
    with pytest.raises(WireError, match="not a dataclass"):
        decode({"$dc": "explorer.core.protocol.frames:WireError", "f": {}}, [])
    frame = pack({"id": 1}, np.arange(100))
    with pytest.raises(WireError, match="bytes before the end"):
        read_frame(io.BytesIO(frame[:-10]))
    with pytest.raises(WireError, match="not a JSON line"):
        read_frame(io.BytesIO(b"garbage\n"))


def test_frames_follow_each_other_on_one_stream():
    buf = io.BytesIO()
    write_frame(buf, {"id": 1, "event": "progress", "done": 1, "total": 2})
    write_frame(buf, {"id": 1, "event": "result"}, [np.float32(1.0)] * 9)
    write_frame(buf, {"id": 2, "event": "result"}, None, has_value=True)
    buf.seek(0)
    assert read_frame(buf) == ({"id": 1, "event": "progress", "done": 1, "total": 2}, None)
    message, value = read_frame(buf)
    assert message["id"] == 1 and value == [np.float32(1.0)] * 9 and type(value[0]) is np.float32
    assert read_frame(buf) == ({"id": 2, "event": "result"}, None)
    assert read_frame(buf) is None
