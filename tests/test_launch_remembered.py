"""The launcher form remembered at close comes back with the values the user set still theirs: Evaluate every 15
is not refitted to the data after a restart (the fitted value is for fields the user left alone)."""

from __future__ import annotations

from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.form_model import LaunchForm


def _table(tmp_path) -> str:
    path = tmp_path / "data" / "a.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("sentence\tlabel\nok\t1\n")
    return str(path)


def test_a_remembered_evaluate_every_survives_a_restart(tmp_path):
    from explorer.ui.shell.settings import AppSettings

    runs = str(tmp_path / "runs")
    before = LaunchForm(tmp_path / "runs")
    before.load(TrainConfig(output_dir=runs, task="single", train=_table(tmp_path), batch_size=16))
    before.edit("eval_every", 15)
    settings = AppSettings(tmp_path / "s.ini")
    settings.set_last_config(before.config().to_dict(), before.edited)   # what closing the window saves
    settings.sync()

    again = AppSettings(tmp_path / "s.ini")
    after = LaunchForm(tmp_path / "runs")
    after.load(TrainConfig.from_dict(again.last_config()), again.saved_edited())   # what the next start does
    after.plan.train_result = {"ok": True, "counts": {"examples": 3_200}}            # the data check counted
    assert not after.fit_eval_every() and after.get("eval_every") == 15
    assert "eval_every" in again.saved_edited()

    fresh = LaunchForm(tmp_path / "runs")   # a field the user never set still follows the data
    fresh.load(TrainConfig.from_dict(again.last_config()))
    fresh.plan.train_result = {"ok": True, "counts": {"examples": 3_200}}
    assert fresh.fit_eval_every() and fresh.get("eval_every") != 15


def test_an_unreadable_edited_list_is_none(tmp_path):
    from explorer.ui.shell.settings import AppSettings

    s = AppSettings(tmp_path / "s.ini")
    s.qs.setValue("launcher/last_edited", "not json")
    assert s.saved_edited() == set()
