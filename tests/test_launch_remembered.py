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


# ---- Run on: this machine or a host, chosen again after a restart ----------------------------------------------
def _hosts_settings(tmp_path, *names):
    from explorer.core.remote.hosts import Host
    from explorer.ui.shell.settings import AppSettings

    settings = AppSettings(tmp_path / "s.ini")
    settings.set_hosts([Host(name=name, target=f"me@{name}") for name in names])
    return settings


def test_the_run_on_host_is_chosen_again_after_a_restart(qtbot, tmp_path):
    from explorer.ui.launch.launcher import LauncherPanel
    from explorer.ui.shell.settings import AppSettings

    settings = _hosts_settings(tmp_path, "lab", "cluster")
    before = LauncherPanel(tmp_path / "runs", settings)
    qtbot.addWidget(before)
    assert before.run_on.host() is None   # nothing remembered yet: this machine
    before.run_on.combo.setCurrentIndex(before.run_on.combo.findText("cluster"))
    before.run_on.combo.activated.emit(before.run_on.combo.currentIndex())   # what a click in the list sends
    settings.sync()

    after = LauncherPanel(tmp_path / "runs", AppSettings(tmp_path / "s.ini"))   # the next start
    qtbot.addWidget(after)
    assert after.run_on.host().name == "cluster" and after.run_on.note == ""
    assert "no longer in the Hosts list" not in after.banner.whole_text()

    after.run_on.choose("This machine")   # and back: this machine is remembered too
    again = LauncherPanel(tmp_path / "runs", AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(again)
    assert again.run_on.host() is None


def test_a_remembered_host_gone_from_the_list_falls_back_to_this_machine_and_the_banner_says_so(qtbot, tmp_path):
    from explorer.ui.launch.hosts_dialog import THIS_MACHINE
    from explorer.ui.launch.launcher import LauncherPanel

    settings = _hosts_settings(tmp_path, "cluster")
    settings.set_run_on("lab")   # chosen in an earlier session, removed from the Hosts list since
    w = LauncherPanel(tmp_path / "runs", settings)
    qtbot.addWidget(w)
    assert w.run_on.host() is None and w.run_on.combo.currentText() == THIS_MACHINE
    said = "Run on is this machine: the host lab chosen last time is no longer in the Hosts list."
    assert w.run_on.note == said and said in w.banner.whole_text()
    assert not w.banner.hint.isVisibleTo(w)   # the note takes the first-visit hint's place

    w.run_on.choose("cluster")   # the next choice: the note goes, the choice is kept
    assert said not in w.banner.whole_text() and settings.run_on() == "cluster"



def test_new_run_puts_the_time_budget_and_run_on_back_to_their_defaults(queued_window, tmp_path):
    """The last run's Time budget and host stay in the form for a second run of the same data, but File → New run
    (Ctrl+N) starts a new one: the budget back to none, Run on to this machine (remembered so), the banner saying
    both."""
    from explorer.core.remote.hosts import Host

    window = queued_window
    window.settings.set_hosts([Host(name="cluster", target="me@cluster")])
    w = window.launcher
    w.run_on.refresh()
    w.set_config(TrainConfig(output_dir=str(tmp_path / "runs"), task="single", train=_table(tmp_path),
                             time_budget_minutes=5.0))
    w.editors["time_budget_minutes"].set(7.5)   # typed by the user for the last run
    w._field_changed("time_budget_minutes")
    w.run_on.choose("cluster")
    assert w.config().time_budget_minutes == 7.5 and w.run_on.host().name == "cluster"
    new_run = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "&New run")

    new_run.trigger()
    assert w.config().time_budget_minutes == TrainConfig().time_budget_minutes
    assert "time_budget_minutes" not in w.form.edited
    assert w.run_on.host() is None and window.settings.run_on() == ""
    said = w.banner.whole_text()
    assert "Time budget back to none (was 7.5 min)" in said and "Run on back to this machine (was cluster)" in said

    new_run.trigger()   # already a new run's defaults: nothing changes
    assert w.config().time_budget_minutes == TrainConfig().time_budget_minutes and w.run_on.host() is None


def test_new_run_after_a_form_filled_with_the_reviewed_rows_gives_the_defaults_form(queued_window, tmp_path):
    """Fine-tune on reviewed rows fills the whole form for one run (its combined file, its checkpoint, its banner);
    File → New run then gives the defaults' form, as on a fresh start, and the banner says so."""
    from explorer.ui.inspectors.predictions_view import fill_launcher
    from explorer.ui.launch.presets import offline_default

    window = queued_window
    w = window.launcher
    combined = _table(tmp_path)
    fill_launcher(w, {"train": combined, "task": "single", "model": str(tmp_path / "run" / "checkpoints" / "best"),
                      "dev": ""}, "Training file: the reviewed rows beside the first run's.")
    assert w.config().train == combined and "the reviewed rows" in w.banner.whole_text()
    new_run = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "&New run")

    new_run.trigger()
    fresh = offline_default(w.runs_dir)
    cfg = w.config()
    assert (cfg.train, cfg.task, cfg.model, cfg.dev) == (fresh.train, fresh.task, fresh.model, fresh.dev)
    said = w.banner.whole_text()
    assert "the reviewed rows" not in said and "New run: the form holds the defaults again" in said

    w.editors["train"].set(combined)   # a form the user fills keeps their values at the next New run
    new_run.trigger()
    assert w.config().train == combined
