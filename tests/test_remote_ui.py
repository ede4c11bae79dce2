"""The Hosts dialog (also from the Run menu) and the launcher's "Run on" picker, against the real test sshd; and
a remote run driven by the main window end to end: launched from the launcher, listed in Runs with its curve,
followed again by a new window (an app restart)."""

import json

import pytest
from helpers import save_tiny_model, write_tiny_squad
from PySide6.QtWidgets import QPushButton

from explorer import __version__
from explorer.core.remote.hosts import Host
from explorer.ui.launch.hosts_dialog import THIS_MACHINE, HostsDialog, RunOnPicker
from explorer.ui.shell.settings import AppSettings

WAIT_MS = 180_000


def _fill(dialog, **values):
    for name, value in values.items():
        ed = dialog.fields[name]
        ed.setText(value)
        ed.textEdited.emit(value)


def test_hosts_dialog_adds_checks_and_saves_a_host(qtbot, sshd_server, tmp_path):
    settings = AppSettings(tmp_path / "s.ini")
    picker = RunOnPicker(settings)
    qtbot.addWidget(picker)
    assert [picker.combo.itemText(i) for i in range(picker.combo.count())] == [THIS_MACHINE]
    assert picker.host() is None and not picker.gpus.isEnabled()

    dialog = picker.edit_hosts()
    qtbot.addWidget(dialog)
    assert "explorer-test" in dialog.aliases.text()
    dialog.add_host()
    _fill(dialog, name="lab", target=sshd_server.alias, python=str(sshd_server.python), runs_dir=str(sshd_server.runs))
    assert dialog.list.currentItem().text() == "lab" and dialog.problem.text() == ""
    with qtbot.waitSignal(dialog.checked, timeout=60_000) as got:
        dialog.check_btn.click()
    assert got.args[0].ok
    found = got.args[0].gpu_count   # kept with the host
    assert "ready for runs" in dialog.result.text() and f"bert-explorer {__version__}" in dialog.result.text()

    dialog.add_host()
    _fill(dialog, name="wrong", target=f"{sshd_server.alias}-wrongkey", python=str(sshd_server.python))
    with qtbot.waitSignal(dialog.checked, timeout=60_000):
        dialog.check_btn.click()
    assert "wrong refused the key (Permission denied (publickey))" in dialog.result.text()
    dialog.remove_host()
    dialog.accept()

    assert [h.name for h in settings.hosts()] == ["lab"]
    assert "password" not in json.dumps([h.to_dict() for h in settings.hosts()]).lower()
    assert picker.combo.itemText(1) == "lab"
    picker.choose("lab")
    assert picker.host() == Host(name="lab", target=sshd_server.alias, python=str(sshd_server.python),
                                 runs_dir=str(sshd_server.runs), gpus_found=found)
    assert picker.gpus.isEnabled()


def test_hosts_dialog_refuses_a_host_without_target(qtbot, tmp_path):
    settings = AppSettings(tmp_path / "s.ini")
    dialog = HostsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.add_host()
    dialog.accept()
    assert "needs an SSH alias or user@host" in dialog.problem.text() and settings.hosts() == []


def test_the_gpus_box_offers_what_the_hosts_check_found(qtbot, tmp_path):
    """A host whose check in the Hosts dialog found no GPU reads "CPU" (0) and offers no GPU; one with two offers 1
    or 2; a host not checked yet keeps the whole range."""
    from explorer.core.remote.check import MAX_GPUS, HostCheck

    settings = AppSettings(tmp_path / "s.ini")
    hosts = [Host(name=name, target=f"user@{name}") for name in ("cpu-box", "two-gpus", "unchecked")]
    settings.set_hosts(hosts)
    picker = RunOnPicker(settings)
    qtbot.addWidget(picker)
    dialog = picker.edit_hosts()
    qtbot.addWidget(dialog)
    dialog._checked(HostCheck(host=hosts[0], python="3.11.4", explorer_version=__version__, gpus=[]))
    dialog._checked(HostCheck(host=hosts[1], python="3.11.4", explorer_version=__version__,
                              gpus=["NVIDIA H100, 81559 MiB", "NVIDIA H100, 81559 MiB"]))
    dialog._checked(HostCheck(host=hosts[2], problem="unchecked: ssh: connect to host refused"))

    picker.choose("cpu-box")
    assert picker.gpus.isEnabled()
    assert (picker.gpus.minimum(), picker.gpus.maximum(), picker.gpus.value()) == (0, 0, 0)
    assert picker.gpus.text() == "CPU"
    picker.choose("two-gpus")
    assert (picker.gpus.minimum(), picker.gpus.maximum()) == (1, 2) and picker.gpus.text() == "GPUs: 1"
    picker.gpus.setValue(5)
    assert picker.gpus.value() == 2
    picker.choose("unchecked")
    assert (picker.gpus.minimum(), picker.gpus.maximum()) == (1, MAX_GPUS) and picker.gpus.text().startswith("GPUs: ")


def test_the_gpus_a_check_found_are_kept_with_the_saved_host_across_a_restart_and_a_rename(qtbot, tmp_path):
    """A check that found no GPU is kept with the host's saved entry: a new picker on the same settings (the app
    started again) reads "CPU" for it, also once the host is renamed in the Hosts dialog; another SSH host is
    another machine, its count unknown until checked."""
    from explorer.core.remote.check import MAX_GPUS, HostCheck

    ini = tmp_path / "s.ini"
    AppSettings(ini).set_hosts([Host(name="gpubox", target="user@gpubox")])
    picker = RunOnPicker(AppSettings(ini))
    qtbot.addWidget(picker)
    dialog = picker.edit_hosts()
    qtbot.addWidget(dialog)
    dialog._checked(HostCheck(host=Host(name="gpubox", target="user@gpubox"), python="3.11.4",
                              explorer_version=__version__, gpus=[]))
    dialog.close()   # no OK: the count a check found is kept all the same

    again = RunOnPicker(AppSettings(ini))
    qtbot.addWidget(again)
    again.choose("gpubox")
    assert again.gpus.text() == "CPU" and (again.gpus.minimum(), again.gpus.maximum()) == (0, 0)

    dialog = again.edit_hosts()
    qtbot.addWidget(dialog)
    _fill(dialog, name="cpu-only box")
    dialog.accept()
    renamed = RunOnPicker(AppSettings(ini))
    qtbot.addWidget(renamed)
    renamed.choose("cpu-only box")
    assert renamed.gpus.text() == "CPU"

    dialog = renamed.edit_hosts()
    qtbot.addWidget(dialog)
    _fill(dialog, target="user@otherbox")
    dialog.accept()
    assert (renamed.gpus.minimum(), renamed.gpus.maximum()) == (1, MAX_GPUS)


@pytest.mark.slow   # two main windows and a real worker on the host: ~30 s on an idle machine
def test_a_remote_run_from_the_launcher_streams_into_runs_and_is_followed_after_a_restart(qtbot, sshd_server,
                                                                                          tmp_path, monkeypatch):
    from explorer.ui.shell import detach, main_window
    from explorer.ui.shell.main_window import MainWindow

    asked = []   # quitting names the remote runs followed (they go on on their host); the answer is "Quit"
    monkeypatch.setattr(main_window, "ask_quit", lambda _w, running, queued, remote=(), **_k: asked.append(
        (running, queued, list(remote))) or detach.CANCEL)

    settings = AppSettings(tmp_path / "s.ini")
    settings.set_hosts([Host(name="lab", target=sshd_server.alias, python=str(sshd_server.python),
                             runs_dir=str(sshd_server.runs))])
    model = save_tiny_model(tmp_path / "qa", "qa")
    data = write_tiny_squad(tmp_path / "sq.json", repeat=2)
    w = MainWindow(tmp_path / "runs", settings, probe_device=False)
    qtbot.addWidget(w)
    cfg = w.launcher.config()
    cfg.model, cfg.task, cfg.train, cfg.dev, cfg.dev_cap = str(model), "squad_v2", str(data), str(data), 4
    cfg.batch_size, cfg.max_steps, cfg.eval_every, cfg.log_every, cfg.run_id = 4, 100_000, 0, 1, "ui-remote"
    w.launcher.set_config(cfg)
    w.launcher.run_on.choose("lab")
    assert w.launcher.launch()
    state = w.store.get("ui-remote")
    assert state is not None and w.store.is_driven("ui-remote")
    qtbot.waitUntil(lambda: state.step >= 2 or not state.is_live, timeout=WAIT_MS)
    assert state.is_live, (state.status, state.error)
    assert "loss" in state.series and len(state.series["loss"]) >= 2
    assert [r.run_id for r in settings.remote_runs()] == ["ui-remote"]
    w.close()                                            # the run goes on training on the host
    assert asked == [([], [], [("ui-remote", "lab")])]

    w2 = MainWindow(tmp_path / "runs", settings, probe_device=False)   # the app restarts
    qtbot.addWidget(w2)
    state2 = w2.store.get("ui-remote")
    assert w2.store.is_driven("ui-remote") and state2.step >= 2
    seen = state2.step
    qtbot.waitUntil(lambda: state2.step > seen, timeout=WAIT_MS)
    with qtbot.waitSignal(w2.remote.ended, timeout=WAIT_MS):
        w2.store.cancel("ui-remote")
    assert state2.status == "cancelled"
    mirror = (tmp_path / "runs" / "ui-remote" / "events.jsonl").read_bytes()
    assert mirror == (sshd_server.runs / "ui-remote" / "events.jsonl").read_bytes()
    assert settings.remote_runs() == []                  # ended: no longer followed at the next start
    w2.close()


def test_a_remote_run_without_a_dev_file_draws_its_majority_class_baseline(qtbot, sshd_server, tmp_path):
    """A remote classifier holding training rows out as dev has its majority-class line in Curves although its
    dev_split.csv stays on the host: the worker sends the baseline in its started event."""
    from explorer.ui.shell.main_window import MainWindow

    settings = AppSettings(tmp_path / "s.ini")
    settings.set_hosts([Host(name="lab", target=sshd_server.alias, python=str(sshd_server.python),
                             runs_dir=str(sshd_server.runs))])
    model = save_tiny_model(tmp_path / "cls3", "classification", num_labels=3)
    data = tmp_path / "stance.tsv"
    data.write_text("Tweet\tStance\n" + "".join(f"tweet {i}\t{['AGAINST', 'AGAINST', 'FAVOR', 'NONE'][i % 4]}\n"
                                                for i in range(40)), encoding="utf-8")
    w = MainWindow(tmp_path / "runs", settings, probe_device=False)
    qtbot.addWidget(w)
    cfg = w.launcher.config()
    cfg.model, cfg.task, cfg.train, cfg.dev = str(model), "single", str(data), ""
    cfg.text_columns, cfg.label_column, cfg.new_head = ["Tweet"], "Stance", True
    cfg.batch_size, cfg.max_steps, cfg.eval_every, cfg.max_seq_length = 4, 2, 0, 16
    cfg.mixed_precision, cfg.save_checkpoints, cfg.run_id = "no", False, "ui-remote-split"
    w.launcher.set_config(cfg)
    w.launcher.run_on.choose("lab")
    assert w.launcher.launch()
    state = w.store.get("ui-remote-split")
    with qtbot.waitSignal(w.remote.ended, timeout=WAIT_MS):
        pass
    assert state.status == "finished", (state.status, state.error)
    assert (sshd_server.runs / "ui-remote-split" / "dev_split.csv").is_file()
    assert not (tmp_path / "runs" / "ui-remote-split" / "dev_split.csv").exists()   # it stays on the host
    base = state.baseline()
    assert base is not None and base.name == "majority class" and base.metrics["accuracy"] == 0.5
    w.curves.set_runs([state])
    (value, label, color), = w.curves.baselines_for("dev/accuracy")
    assert (value, color) == (50.0, "#666666") and label.startswith("majority class baseline (all ")
    w.close()


def test_the_run_menu_opens_the_hosts_dialog(qtbot, tmp_path):
    """The Hosts dialog is not only behind the launcher's "Hosts…" button: the Run menu has it too, with a
    shortcut."""
    from PySide6.QtGui import QKeySequence

    from explorer.ui.launch.hosts_dialog import HostsDialog
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    run_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Run")
    hosts = next(a for a in run_menu.actions() if a.text() == "&Hosts…")
    assert hosts.shortcut() == QKeySequence("Ctrl+Shift+H")
    hosts.trigger()
    dialog = w.launcher.run_on.dialog
    assert isinstance(dialog, HostsDialog) and dialog.isVisible()
    dialog.close()


def test_a_new_host_gets_a_grey_hint_until_its_ssh_host_is_typed_or_saved(qtbot, tmp_path):
    from explorer.ui.launch.hosts_dialog import NEW_HOST_HINT

    dialog = HostsDialog(AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(dialog)
    dialog.add_host()
    assert dialog.problem.text() == NEW_HOST_HINT and dialog.problem.objectName() == "hint"
    _fill(dialog, name="lab")
    assert dialog.problem.objectName() == "hint"
    _fill(dialog, target="x")
    _fill(dialog, target="")
    assert "needs an SSH alias or user@host" in dialog.problem.text() and dialog.problem.objectName() == "errorLabel"
    dialog.add_host()
    assert dialog.problem.objectName() == "hint"
    dialog.accept()
    assert "needs an SSH alias or user@host" in dialog.problem.text() and dialog.problem.objectName() == "errorLabel"


def test_add_selects_the_new_hosts_name_so_typing_replaces_it(qtbot, tmp_path):
    """"Add" fills the Name with "host 1" selected and focused: the name typed next replaces it ("gpubox", not
    "host 1gpubox"), in the list too."""
    dialog = HostsDialog(AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    add = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Add")
    add.click()
    name = dialog.fields["name"]
    assert name.text() == "host 1" and name.selectedText() == "host 1"
    qtbot.waitUntil(name.hasFocus, timeout=10_000)
    qtbot.keyClicks(name, "gpubox")
    assert name.text() == "gpubox" and dialog.list.currentItem().text() == "gpubox"
