import io
import json

import pytest

from explorer.core.protocol import events
from explorer.core.models.loading import ModelSourceError, eager_attention, load_model, resolve_source
from explorer.core.specs.train_config import ConfigError, TrainConfig, paper_grid


def test_event_writer_writes_stdout_and_file(tmp_path):
    stream = io.StringIO()
    w = events.EventWriter("r1", path=tmp_path / "r1" / "events.jsonl", stream=stream)
    w.emit("started", config={"a": 1}, device="cpu", num_parameters=10, steps_total=5)
    w.emit("step", step=1, loss=float("nan"), lr=1e-5)
    w.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    on_disk = events.read_events(tmp_path / "r1" / "events.jsonl")
    assert [e["event"] for e in on_disk] == ["started", "step"]
    assert on_disk[1]["loss"] is None  # NaN is not valid JSON: written as null


def test_parse_event_rejects_bad_lines_and_read_skips_torn_tail(tmp_path):
    with pytest.raises(events.EventParseError, match="not JSON"):
        events.parse_event("{oops")
    with pytest.raises(events.EventParseError, match="unknown event type"):
        events.parse_event(json.dumps({"event": "nope", "run_id": "x"}))
    p = tmp_path / "events.jsonl"
    p.write_text(json.dumps({"event": "step", "run_id": "x", "step": 1}) + "\n{\"event\": \"st")
    assert [e["step"] for e in events.read_events(p)] == [1]
    with pytest.raises(ValueError):
        events.make_event("bogus", "x")


def test_resolve_source_errors():
    with pytest.raises(ModelSourceError, match="does not exist"):
        resolve_source("./no/such/folder")
    with pytest.raises(ModelSourceError, match="unknown bundled"):
        resolve_source("bundled:nothing")
    with pytest.raises(ModelSourceError, match="offline"):
        load_model("someone/not-cached-model")


def test_eager_attention_switches_back(tiny_qa):
    import torch

    enc = tiny_qa.tokenizer("who was born", "ada was born in london", return_tensors="pt")
    with eager_attention(tiny_qa.model):
        out = tiny_qa.model(**enc, output_attentions=True)
    assert out.attentions[0].shape[1] == 4
    assert tiny_qa.model.config._attn_implementation == "sdpa"
    rows = out.attentions[-1][0].sum(-1)
    assert torch.allclose(rows, torch.ones_like(rows), atol=1e-5)


def test_train_config_roundtrip_and_validation(tmp_path):
    cfg = TrainConfig(train="t.json", task="squad_v1")
    assert cfg.resolved_learning_rate() == 3e-5 and cfg.resolved_max_seq_length() == 384
    assert TrainConfig(train="x", task="single").resolved_learning_rate() == 2e-5
    cfg.save(tmp_path / "c.json")
    assert TrainConfig.load(tmp_path / "c.json") == cfg
    with pytest.raises(ConfigError, match="task"):
        TrainConfig(train="x", task="nope").validate()
    with pytest.raises(ConfigError, match="unknown setting"):
        TrainConfig.from_dict({"lr": 1})
    grid = paper_grid(cfg)
    assert len(grid) == 24 and {g.batch_size for g in grid} == {16, 32}
    from explorer.core.specs.run_presets import fast_cpu_preset

    budgeted = paper_grid(fast_cpu_preset(cfg))          # the grid goes by epochs: no 30-minute cap
    assert {g.time_budget_minutes for g in budgeted} == {0.0} and {g.epochs for g in budgeted} == {2.0, 3.0, 4.0}
    assert "--learning-rate" in TrainConfig(train="x", learning_rate=5e-5).to_cli_args()


def test_events_carry_their_line_number_as_seq_also_after_a_resume_and_a_torn_line(tmp_path):
    path = tmp_path / "r1" / "events.jsonl"
    w = events.EventWriter("r1", path=path, stream=io.StringIO())
    assert w.emit("started", config={})["seq"] == 1 and w.emit("step", step=1)["seq"] == 2
    w.close()
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"event":"step","run_id":"r1","st')           # a crash tears the last line
    w = events.EventWriter("r1", path=path)                        # the resumed worker
    assert w.emit("started", config={})["seq"] == 4
    w.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[3])["seq"] == 4 and len(lines) == 4
    assert [e["seq"] for e in events.read_events(path)] == [1, 2, 4]


def test_a_library_that_fails_to_import_is_not_called_a_torn_checkpoint(tmp_path, monkeypatch):
    """An ImportError while loading (transformers resolving a name another thread was resolving) is said as
    the installation's, never as "torn or not a weights file?", which blamed a checkpoint that was fine."""
    import explorer.core.models.loading as loading
    from helpers import save_tiny_model

    ckpt = save_tiny_model(tmp_path / "best", "classification")

    def racing(*_a, **_k):
        raise ImportError("cannot import name 'AutoConfig' from 'transformers'")

    monkeypatch.setattr(loading, "_read_checkpoint", racing)
    with pytest.raises(ModelSourceError) as err:
        load_model(str(ckpt), "classification")
    text = str(err.value)
    assert "torn" not in text and "a library of this installation failed to import" in text
    assert "AutoConfig" in text and "the checkpoint's files were not read" in text

