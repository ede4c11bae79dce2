"""Runs on a SLURM cluster against a real single-node SLURM (tests/slurm_cluster.py:
munged + slurmctld + slurmd of Debian's slurm-wlm) reached through the test sshd (tests/sshd.py).

Pure tests of the job script and of reading squeue / scontrol / sacct; then, on the real cluster: a tiny run
submitted with sbatch and followed to its end, a run group as one job array of 2, a queued job shown as
"queued (SLURM job N ...)" in the Runs dock and cancelled with scancel, an unknown partition and a job that
fails before writing events (each one sentence).
"""

import json
import threading
import warnings
from pathlib import Path

import pytest
from helpers import save_tiny_model, write_tiny_squad

from explorer.core.errors import RemoteHostError
from explorer.core.protocol.events import read_events
from explorer.core.remote import slurm, ssh
from explorer.core.remote.launch import HOSTSIDE
from explorer.core.remote.hosts import Host, RemoteRun, SlurmOptions
from explorer.core.specs.train_config import TrainConfig

WAIT = 180   # seconds: the most any gate below waits (a loaded CI machine), never a synchronisation


# ---- pure: the script, the options, the tools' output ----------------------------------------------
def _slurm_host(**opts):
    return Host(name="cluster", target="me@login.example.org", python="~/venv/bin/python",
                runs_dir="~/runs", slurm=SlurmOptions(**opts))


def test_script_for_one_run_and_for_an_array():
    one = slurm.sbatch_script(_slurm_host(partition="gpu", gpus=1, time_limit="02:30:00",
                                          extra="--account=lab\n\n#SBATCH --mem=16G"), ["sq-01"])
    lines = one.splitlines()
    assert lines[0] == "#!/bin/bash"
    for want in ("#SBATCH --job-name=bert-explorer-sq-01", "#SBATCH --partition=gpu", "#SBATCH --gres=gpu:1",
                 "#SBATCH --time=02:30:00", "#SBATCH --output=sq-01/slurm.out", "#SBATCH --error=sq-01/slurm.err",
                 "#SBATCH --account=lab", "#SBATCH --mem=16G", "RUN_ID=sq-01",
                 'exec ~/venv/bin/python -m explorer train --config ".launch/$RUN_ID.json"'):
        assert want in lines, (want, one)
    assert "--array" not in one
    # every #SBATCH line comes before the first command (sbatch stops reading options there)
    first_cmd = next(i for i, ln in enumerate(lines) if ln and not ln.startswith("#"))
    assert all(i < first_cmd for i, ln in enumerate(lines) if ln.startswith("#SBATCH"))

    arr = slurm.sbatch_script(_slurm_host(partition="", gpus=2, time_limit=""), ["g-01", "g-02", "g-03"]).splitlines()
    assert "#SBATCH --array=0-2" in arr and "RUN_IDS=(g-01 g-02 g-03)" in arr
    assert 'RUN_ID="${RUN_IDS[$SLURM_ARRAY_TASK_ID]}"' in arr
    assert "#SBATCH --output=.slurm/%x-%A_%a.out" in arr and "#SBATCH --gres=gpu:2" in arr
    assert not any(ln.startswith(("#SBATCH --partition", "#SBATCH --time")) for ln in arr)
    assert arr[-1] == ('exec ~/venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 '
                       '-m explorer train --config ".launch/$RUN_ID.json"')
    cpu = slurm.sbatch_script(_slurm_host(gpus=0), ["c"])
    assert "--gres" not in cpu
    with pytest.raises(ValueError, match="not marked as a SLURM login node"):
        slurm.sbatch_script(Host(name="plain", target="x"), ["a"])


def test_options_are_checked_and_kept_with_the_host():
    assert SlurmOptions().problem() == ""
    assert "contains a space" in SlurmOptions(partition="gpu a").problem()
    assert SlurmOptions(time_limit="90").problem() == SlurmOptions(time_limit="1-12:00:00").problem() == ""
    assert "is not one sbatch reads" in SlurmOptions(time_limit="2 hours").problem()
    assert "extra sbatch line 2 ('rm -rf x') is not an sbatch option" in SlurmOptions(extra="--qos=low\nrm -rf x").problem()
    host = _slurm_host(partition="gpu", gpus=4, time_limit="10", extra="--qos=low")
    again = Host.from_dict(json.loads(json.dumps(host.to_dict())))
    assert again == host and isinstance(again.slurm, SlurmOptions) and again.slurm.gpus == 4
    assert Host.from_dict({"target": "x"}).slurm is None
    assert _slurm_host(time_limit="soon").problem().startswith("the time limit 'soon'")
    run = RemoteRun(run_id="r", host=host, remote_dir="/r/r", local_dir="/l/r", slurm_job="12_1")
    assert RemoteRun.from_dict(json.loads(json.dumps(run.to_dict()))) == run
    assert RemoteRun.from_dict({"run_id": "r", "host": {"target": "x"}, "remote_dir": "/a", "local_dir": "/b"}) \
        .slurm_job == ""


def test_states_read_from_squeue_scontrol_and_sacct():
    sq = slurm.parse_squeue("7_[0-2]|PENDING|Priority\n8|RUNNING|None\n\n9_4|COMPLETING|None\n")
    assert sorted(sq) == ["7_0", "7_1", "7_2", "8", "9_4"]
    assert sq["7_1"].waiting and sq["7_1"].label() == "PENDING: Priority" and sq["8"].label() == "RUNNING"
    assert not sq["8"].waiting and not sq["8"].ended and not sq["9_4"].ended
    sc = slurm.parse_scontrol(
        "JobId=12 ArrayJobId=11 ArrayTaskId=1 JobName=x JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0\n"
        "JobId=13 JobName=y JobState=CANCELLED Reason=None ExitCode=0:15\n"
        "JobId=11 ArrayJobId=11 ArrayTaskId=2-3%1 JobState=PENDING Reason=JobArrayTaskLimit ExitCode=0:0\n")
    assert sc["11_1"].ended and sc["11_1"].label() == "FAILED: NonZeroExitCode (exit 1:0)"
    assert sc["13"].state == "CANCELLED" and sc["11_3"].reason == "JobArrayTaskLimit" and "11" not in sc
    sa = slurm.parse_sacct("5|CANCELLED by 0|0:15|None\n5.batch|CANCELLED|0:15|\n6_0|TIMEOUT|0:0|TimeLimit\n")
    assert sa["5"].state == "CANCELLED" and sa["6_0"].label() == "TIMEOUT: TimeLimit" and "5.batch" not in sa
    gone = slurm.JobState.from_dict(slurm.JobState(job="3", state="UNKNOWN").to_dict())
    assert gone.ended and gone.job == "3"
    assert slurm.sbatch_refusal("sbatch: error: invalid partition specified: nope\n"
                                "sbatch: error: Batch job submission failed: Invalid partition name specified\n") == \
        "invalid partition specified: nope; Batch job submission failed: Invalid partition name specified"


def test_a_host_without_sbatch_is_one_sentence_and_nothing_is_written(monkeypatch, tmp_path):
    monkeypatch.setattr(slurm.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as err:
        slurm.submit_here(str(tmp_path), {"script": "#!/bin/bash\n", "configs": [{"run_id": "a"}]})
    assert str(err.value).startswith("there is no sbatch on this host's PATH (is it a SLURM login node?")
    assert list(tmp_path.iterdir()) == []


# ---- the real cluster ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster(sshd_server, tmp_path_factory):
    """munged + slurmctld + slurmd on this machine for this module; skips loudly when they cannot start."""
    from slurm_cluster import SlurmUnavailable, start_cluster

    try:
        c = start_cluster(tmp_path_factory.mktemp("slurm"))
    except SlurmUnavailable as exc:
        warnings.warn(f"SLURM TESTS SKIPPED: {exc}", stacklevel=1)
        pytest.skip(f"SLURM TESTS SKIPPED: the test SLURM cluster cannot start: {exc}")
    yield c
    c.stop()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("slurm-files")
    return {"model": str(save_tiny_model(d / "qa", "qa")), "data": str(write_tiny_squad(d / "sq2.json", v2=False))}


@pytest.fixture(scope="module")
def login(sshd_server, cluster, tmp_path_factory):
    """The login node as a Host (partition debug, no GPU, 10 minutes) and its runs folder."""
    from slurm_cluster import PARTITION, login_python

    runs = tmp_path_factory.mktemp("slurm-runs")
    py = login_python(cluster.root, sshd_server.python, cluster.conf)
    return Host(name="cluster", target=sshd_server.alias, python=str(py), runs_dir=str(runs),
                slurm=SlurmOptions(partition=PARTITION, gpus=0, time_limit="10"))


def _config(files, run_id, out, seed=1):
    return TrainConfig(model=files["model"], task="squad_v1", train=files["data"], dev=files["data"], dev_cap=2,
                       batch_size=4, learning_rate=1e-3, max_steps=1, log_every=1, eval_every=0, seed=seed,
                       run_id=run_id, output_dir=str(out))


class Events:
    """on_event / on_job callbacks with a gate."""

    def __init__(self):
        self.events, self.jobs = [], []
        self.cond = threading.Condition()

    def on_event(self, ev):
        with self.cond:
            self.events.append(ev)
            self.cond.notify_all()

    def on_job(self, state):
        with self.cond:
            self.jobs.append(state)
            self.cond.notify_all()

    def wait_for(self, pred, what):
        with self.cond:
            assert self.cond.wait_for(pred, WAIT), f"gave up waiting for {what}: {self.events[-3:]} {self.jobs}"


def _follow(run):
    col = Events()
    follower = slurm.SlurmFollower(run, on_job=col.on_job, on_event=col.on_event, poll_seconds=0.3,
                                   reconnect_seconds=(0.2,)).start()
    return col, follower


def test_a_job_array_followed_to_the_end_a_bad_partition_and_a_job_failing_before_its_events(
        login, files, cluster, sshd_server, tmp_path):
    from dataclasses import replace

    from slurm_cluster import login_python

    local = tmp_path / "runs"
    group = [_config(files, f"sl-grid-{i}", local, seed=10 + i) for i in range(2)]
    script = slurm.sbatch_script(login, [c.run_id for c in group])
    arr = slurm.submit(login, group, script, [local / c.run_id for c in group])
    job_id = arr[0].slurm_job.split("_")[0]
    assert [r.slurm_job for r in arr] == [f"{job_id}_0", f"{job_id}_1"]   # ONE job array for the group
    assert arr[0].remote_dir == f"{login.runs_dir}/sl-grid-0"
    from explorer.core.remote.hosts import read_remote_run

    # each mirror records where it runs (remote.json), so it is known as remote after it ended and a restart
    assert [read_remote_run(local / r.run_id).slurm_job for r in arr] == [r.slurm_job for r in arr]
    followed = [(run, *_follow(run)) for run in arr]
    # the app quits while task 1 is queued or starting, and a new one follows it from the remembered RemoteRun
    first_col, first = followed[1][1], followed[1][2]
    first_col.wait_for(lambda: first_col.jobs, "the state of task 1")
    first.stop()
    remembered = RemoteRun.from_dict(json.loads(json.dumps(arr[1].to_dict())))
    assert remembered.slurm_job == arr[1].slurm_job
    followed[1] = (remembered, *_follow(remembered))

    # a compute node without the venv: the job fails before the worker writes any event
    broken = replace(login, python=str(login_python(cluster.root, sshd_server.python, cluster.conf, True)))
    cfg = _config(files, "sl-broken", local)
    (dead,) = slurm.submit(broken, [cfg], slurm.sbatch_script(broken, [cfg.run_id]), [local / cfg.run_id])
    assert dead.slurm_job.isdigit()
    dead_col, dead_follower = _follow(dead)

    # an unknown partition: sbatch's own message, and no run folder left on the host (the host-side step of
    # slurm.submit, whose copy and prepare steps the submissions above went through)
    bad = replace(login, slurm=replace(login.slurm, partition="nosuchpart"))
    request = {"script": slurm.sbatch_script(bad, ["sl-bad"]), "configs": [cfg.to_dict() | {"run_id": "sl-bad"}]}
    with pytest.raises(RemoteHostError) as err:
        ssh.run_checked(bad, [bad.python, "-m", HOSTSIDE, "submit", bad.runs_dir], stdin=json.dumps(request).encode())
    assert str(err.value) == ("cluster: sbatch refused the job: invalid partition specified: nosuchpart; "
                              "Batch job submission failed: Invalid partition name specified")
    assert not (Path(login.runs_dir) / "sl-bad").exists()

    assert dead_follower.done.wait(WAIT)
    last = dead_col.events[-1]
    assert last["event"] == "failed" and last["source"] == "slurm" and len(dead_col.events) == 1
    assert last["error"] == (f"SLURM job {dead.slurm_job} ended FAILED: NonZeroExitCode (exit 1:0) before the "
                             "worker reported a result; its error file ends: python: the venv is not mounted on "
                             "this node")

    for run, col, follower in followed:
        assert follower.done.wait(WAIT), (run.run_id, col.events[-3:], slurm.error_tail(run.remote_dir))
        remote_file = f"{run.remote_dir}/events.jsonl"
        assert (local / run.run_id / "events.jsonl").read_text() == open(remote_file).read()
        seen = first_col.events + col.events if run is remembered else col.events
        assert seen == read_events(remote_file) and seen[-1]["event"] == "finished"   # nothing lost or doubled
        if not (run is remembered and first_col.events):
            assert col.jobs and col.jobs[0].source in ("squeue", "scontrol"), col.jobs   # its state was read first
        assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))
        assert {e["run_id"] for e in seen} == {run.run_id}          # each array task trained its own config
        assert slurm.job_state(run).state in ("RUNNING", "COMPLETING", "COMPLETED")
        assert (Path(run.remote_dir) / "slurm.out").exists()         # the task's output is in its run folder
    for run, cfg_ in zip(arr, group):
        started = next(e for e in read_events(f"{run.remote_dir}/events.jsonl") if e["event"] == "started")
        assert started["config"]["seed"] == cfg_.seed
    assert (Path(login.runs_dir) / ".slurm" / f"{slurm.job_name([group[0].run_id])}.sbatch").read_text() == script


# ---- the window: Hosts dialog, the script before submitting, "queued (SLURM job N)", scancel -----------
def test_hosts_dialog_marks_a_login_node(qtbot, tmp_path):
    from explorer.ui.launch.hosts_dialog import HostsDialog, RunOnPicker
    from explorer.ui.shell.settings import AppSettings

    settings = AppSettings(tmp_path / "s.ini")
    dialog = HostsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.add_host()
    for name, value in (("name", "cluster"), ("target", "me@login")):
        dialog.fields[name].setText(value)
        dialog.fields[name].textEdited.emit(value)
    assert not dialog.partition.isEnabled() and dialog.current().slurm is None
    dialog.slurm.setChecked(True)
    assert dialog.partition.isEnabled() and dialog.current().slurm == SlurmOptions()
    dialog.partition.setText("gpu")
    dialog.partition.textEdited.emit("gpu")
    dialog.slurm_gpus.setValue(2)
    dialog.time_limit.setText("2 hours")
    dialog.time_limit.textEdited.emit("2 hours")
    assert dialog.problem.text().startswith("the time limit '2 hours' is not one sbatch reads")
    dialog.time_limit.setText("1-00:00:00")
    dialog.time_limit.textEdited.emit("1-00:00:00")
    dialog.extra.setPlainText("--account=lab")
    assert dialog.problem.text() == ""
    dialog.accept()
    (saved,) = settings.hosts()
    assert saved.slurm == SlurmOptions(partition="gpu", gpus=2, time_limit="1-00:00:00", extra="--account=lab")
    picker = RunOnPicker(settings)
    qtbot.addWidget(picker)
    picker.choose("cluster")
    assert picker.host() == saved and not picker.gpus.isEnabled()   # GPUs per job come from the host
    again = HostsDialog(settings)
    qtbot.addWidget(again)
    assert again.slurm.isChecked() and again.partition.text() == "gpu" and again.slurm_gpus.value() == 2


def test_a_launch_on_a_login_node_shows_the_script_is_listed_queued_and_scancel_ends_it(qtbot, login, files, tmp_path):
    from dataclasses import replace

    from explorer.ui.runs.dock import RunsModel
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    held = replace(login, slurm=replace(login.slurm, extra="--begin=now+3600"))   # stays in the queue
    settings = AppSettings(tmp_path / "s.ini")
    settings.set_hosts([held])
    w = MainWindow(tmp_path / "runs", settings, probe_device=False)
    qtbot.addWidget(w)
    w.remote.slurm_poll_seconds = 0.3
    cfg = replace(_config(files, "", tmp_path / "runs"), run_id="ui-slurm")
    w.launcher.set_config(cfg)
    w.launcher.run_on.choose("cluster")
    assert w.launcher.launch()
    dlg = w.sbatch_dialog
    assert dlg is not None and dlg.isVisible() and w.store.get("ui-slurm") is None   # nothing sent before Submit
    script = dlg.text.toPlainText()
    assert "#SBATCH --begin=now+3600" in script and "#SBATCH --partition=debug" in script
    assert script == slurm.sbatch_script(held, ["ui-slurm"])
    dlg.submit_btn.click()
    state = w.store.get("ui-slurm")
    assert state is not None and state.status == "queued"
    qtbot.waitUntil(lambda: state.queue_note.endswith(": BeginTime") or not state.is_live, timeout=WAIT * 1000)
    run = w.remote.runs["ui-slurm"]
    assert state.queue_note == f"SLURM job {run.slurm_job}: BeginTime"
    assert RunsModel.status_text(state) == f"queued (SLURM job {run.slurm_job}: BeginTime)"
    assert [r.slurm_job for r in settings.remote_runs()] == [run.slurm_job]   # remembered for a restart
    with qtbot.waitSignal(w.remote.ended, timeout=WAIT * 1000):
        w.store.cancel("ui-slurm")                                           # scancel
    assert state.status == "cancelled" and RunsModel.status_text(state) == "cancelled (queued)"
    events = read_events(f"{run.remote_dir}/events.jsonl")
    assert [e["event"] for e in events] == ["cancelled"] and events[0]["source"] == "slurm"
    assert slurm.job_state(run).state == "CANCELLED"
    assert settings.remote_runs() == []
    w.close()
