"""Each TrainConfig field described once (its Setting): the CLI help, the launcher fields, docs/settings.md
and validate read it; run presets are JSON files that the launcher and `train --preset` read."""

from __future__ import annotations

import argparse
import dataclasses
import json

import pytest

from explorer.core.errors import ConfigError
from explorer.core.specs.train_config import TrainConfig, settings
from explorer.core.specs.run_presets import PRESETS_DIR, list_presets, load_preset


def test_every_field_has_one_setting_and_validate_reads_its_bounds():
    assert list(settings()) == [f.name for f in dataclasses.fields(TrainConfig)]
    for name, rule in settings().items():
        if rule.lo is None:
            continue
        bad = rule.lo - 1 if not rule.lo_open else rule.lo
        cfg = dataclasses.replace(TrainConfig(train="x.json"), **{name: bad})
        with pytest.raises(ConfigError, match=name):
            cfg.validate()
    with pytest.raises(ConfigError, match=r"dropout must be in \[0, 1\), got 1"):
        TrainConfig(train="x.json", dropout=1.0).validate()
    with pytest.raises(ConfigError, match="learning_rate must be > 0"):
        TrainConfig(train="x.json", learning_rate=0.0).validate()
    with pytest.raises(ConfigError, match="time_budget_minutes"):
        TrainConfig(train="x.json", time_budget_minutes=float("nan")).validate()


def test_launcher_fields_come_from_the_settings():
    pytest.importorskip("PySide6")
    from explorer.ui.launch.form_fields import EDITORS, FIELDS

    assert {f.name for f in FIELDS} == {n for n, s in settings().items() if s.label}
    for f in FIELDS:
        rule = settings()[f.name]
        assert f.label == rule.label and f.group == rule.group and f.kind in EDITORS
        if rule.lo is not None and not rule.lo_open:
            assert f.lo == rule.lo
    dropout = next(f for f in FIELDS if f.name == "dropout")
    assert dropout.hi < 1                                    # the open bound of [0, 1)


def test_settings_markdown_states_the_bounds():
    from explorer.core.specs.train_config import settings_markdown

    row = next(line for line in settings_markdown().splitlines() if line.startswith("| `warmup_ratio`"))
    assert "in [0, 1)" in row and "linear warmup" in row


def test_presets_are_data_files_that_apply_over_a_config():
    names = [p.name for p in list_presets()]
    assert names[:4] == ["offline", "offline-squad2", "fast-cpu", "paper"]
    assert all((PRESETS_DIR / f"{n}.json").is_file() for n in names)
    fast = load_preset("fast_cpu").apply(TrainConfig(model="m", train="t.json", batch_size=64))
    assert (fast.model, fast.train, fast.batch_size, fast.time_budget_minutes) == ("m", "t.json", 16, 30.0)
    assert fast.dropout == 0.0   # a half-hour run learns faster without it (README)
    paper = load_preset("paper").apply(TrainConfig(model="m", batch_size=4, learning_rate=1e-4))
    assert (paper.model, paper.batch_size, paper.learning_rate) == ("m", 32, None)
    with pytest.raises(ConfigError, match="fast-cpu"):
        load_preset("fastest")


def test_a_broken_preset_file_is_named(tmp_path):
    (tmp_path / "bad.json").write_text('{"label": "x", "settings": {"batch_sise": 3}}')
    with pytest.raises(ConfigError, match="preset bad: unknown setting.*batch_sise"):
        load_preset("bad", tmp_path).apply()
    (tmp_path / "torn.json").write_text('{"label": "x",\n "settings": {')
    with pytest.raises(ConfigError, match=r"torn.json is not valid JSON: .* line 2"):
        load_preset("torn", tmp_path)


def test_train_preset_flag_and_explicit_flags_win(tmp_path):
    from explorer.worker.train import add_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    run_json = tmp_path / "run.json"
    run_json.write_text(json.dumps({"train": "a.json", "batch_size": 8, "seed": 7}))
    cfg = config_from_args(parser.parse_args(["--config", str(run_json), "--preset", "fast-cpu",
                                              "--learning-rate", "5e-5"]))
    assert (cfg.train, cfg.seed) == ("a.json", 7)               # from --config
    assert (cfg.batch_size, cfg.time_budget_minutes) == (16, 30.0)   # the preset over --config
    assert cfg.learning_rate == 5e-5                            # the explicit flag over the preset
    with pytest.raises(ConfigError, match="presets: offline, offline-squad2, fast-cpu"):
        config_from_args(parser.parse_args(["--preset", "nope"]))
