"""Runs on a remote host against a real OpenSSH server on 127.0.0.1 (tests/sshd.py).

The "host" is this machine through sshd, with this interpreter behind another path. Check host (and its
four one-sentence failures), launch with copy-once data, follow to the end, stop early, cancel, a killed
ssh connection and an app restart mid-run (no event lost or doubled: the mirror equals the remote file).
"""

import json
import os
import platform
import shutil
import signal
import threading
from pathlib import Path

import pytest
from helpers import save_tiny_model, write_tiny_squad

from explorer import __version__
from explorer.core.errors import RemoteHostError
from explorer.core.protocol.events import read_events
from explorer.core.remote import check, hostside, launch, ssh
from explorer.core.remote.fetch import fetch_folder
from explorer.core.remote.follow import RemoteFollower
from explorer.core.remote.hosts import Host, RemoteRun, ssh_aliases
from explorer.core.specs.train_config import TrainConfig

WAIT = 180   # seconds: the most any gate below waits (a loaded CI machine), never a synchronisation


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("remote-files")
    return {"model": str(save_tiny_model(d / "qa", "qa")), "data": str(write_tiny_squad(d / "sq2.json", repeat=2))}


@pytest.fixture
def host(sshd_server):
    return Host(name="lab", target=sshd_server.alias, python=str(sshd_server.python), runs_dir=str(sshd_server.runs))


def _config(files, run_id, out):
    return TrainConfig(model=files["model"], task="squad_v2", train=files["data"], dev=files["data"], dev_cap=4,
                       batch_size=4, learning_rate=1e-3, max_steps=100_000, log_every=1, eval_every=0,
                       run_id=run_id, output_dir=str(out))


class Collector:
    """on_event / on_status callbacks with gates: ``wait_steps(n)``, ``wait_connections(n)``."""

    def __init__(self):
        self.events, self.status = [], []
        self.cond = threading.Condition()

    def on_event(self, ev):
        with self.cond:
            self.events.append(ev)
            self.cond.notify_all()

    def on_status(self, text):
        with self.cond:
            self.status.append(text)
            self.cond.notify_all()

    def steps(self):
        return [e for e in self.events if e["event"] == "step"]

    def wait_for(self, pred, what):
        with self.cond:
            assert self.cond.wait_for(pred, WAIT), f"gave up waiting for {what}: {self.events[-3:]} {self.status}"


def test_aliases_and_command_lines(sshd_server, tmp_path):
    assert ssh_aliases() == ["explorer-test", "explorer-test-wrongkey", "explorer-test-down"]
    h = Host(target="me@gpu.example.org", port=2222, key=str(tmp_path / "id"), python="~/venv/bin/python")
    argv = ssh.ssh_argv(h, [h.python, "-m", "x", "a b"])
    assert argv[:1] == ["ssh"] and "BatchMode=yes" in argv and argv[argv.index("-p") + 1] == "2222"
    assert argv[-3:] == ["me@gpu.example.org", "--", "~/venv/bin/python -m x 'a b'"]
    assert ssh.scp_argv(h, ["f"], "~/r/")[-2:] == ["f", "me@gpu.example.org:~/r/"]
    assert "password" not in json.dumps(h.to_dict()).lower()
    assert hostside.worker_argv("py", "/r/c.json", 4) == [
        "py", "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "4", "-m", "explorer", "train",
        "--config", "/r/c.json"]
    assert hostside.worker_argv("py", "/r/c.json") == ["py", "-m", "explorer", "train", "--config", "/r/c.json"]


def test_check_host_says_what_is_there(host):
    res = check.check_host(host)
    assert res.ok, res.problem
    assert res.python == platform.python_version() and res.explorer_version == __version__
    assert isinstance(res.gpus, list) and res.free_bytes > 0 and res.runs_dir == host.runs_dir
    assert any(line.startswith("GPUs: ") for line in res.lines())


def test_check_host_failures_are_one_sentence(sshd_server, host):
    refused = check.check_host(Host(name="lab", target=f"{sshd_server.alias}-wrongkey", python=host.python))
    assert refused.problem.startswith("lab refused the key (Permission denied (publickey))")
    down = check.check_host(Host(name="lab", target=f"{sshd_server.alias}-down", python=host.python))
    assert down.problem.startswith("lab cannot be reached (") and "Connection refused" in down.problem
    bare = check.check_host(Host(name="lab", target=sshd_server.alias, python=str(sshd_server.bare_python),
                                 runs_dir=host.runs_dir))
    assert bare.explorer_version is None and bare.python == platform.python_version()
    assert bare.install_command == f"{sshd_server.bare_python} -m pip install 'bert-explorer=={__version__}'"
    assert bare.problem.endswith(bare.install_command)
    nopy = check.check_host(Host(name="lab", target=sshd_server.alias, python="/nonexistent/python3"))
    assert nopy.problem.startswith("lab: there is no Python at /nonexistent/python3 on the host")
    full = check.check_host(host, min_free_bytes=10**18)
    assert full.problem.startswith(f"the disk on lab that holds {host.runs_dir} is full (")
    assert "No space left on device" in ssh.explain(host, "scp: write: No space left on device\n", 1)
    assert ssh.explain(host, "scp: write: No space left on device\n", 1).startswith("the disk on lab")


def test_launch_follow_drop_restart_stop_early_and_cancel(sshd_server, host, files, tmp_path):
    # copy-once starts from an empty store: other modules' tests may have sent the same tiny files to this
    # session's sshd (then nothing would be copied and the first assert would fail by test order alone)
    shutil.rmtree(Path(sshd_server.runs) / ".blobs", ignore_errors=True)
    local = tmp_path / "runs"
    run_a, up_a = launch.launch_run(host, _config(files, "remote-a", local), local / "remote-a")
    assert sorted(up_a.copied) == sorted({launch.content_hash(files["model"])[:40],
                                          launch.content_hash(files["data"])[:40]})
    renamed = tmp_path / "renamed.json"
    renamed.write_bytes(Path(files["data"]).read_bytes())
    cfg_b = _config(files, "remote-b", local)
    cfg_b.dev = str(renamed)
    run_b, up_b = launch.launch_run(host, cfg_b, local / "remote-b")
    assert up_b.copied == [] and up_b.remote_paths["train"] == up_a.remote_paths["train"]   # copied once, reused
    assert up_b.remote_paths["dev"].endswith("/renamed.json") and Path(up_b.remote_paths["dev"]).read_bytes() == \
        renamed.read_bytes()                                     # the same bytes under a new name: not sent again
    remote_cfg = json.loads((sshd_server.runs / ".launch" / "remote-a.json").read_text())
    assert remote_cfg["train"] == up_a.remote_paths["train"] and remote_cfg["output_dir"] == str(sshd_server.runs)
    assert json.loads((local / "remote-a" / "config.json").read_text())["train"] == files["data"]
    with pytest.raises(RemoteHostError, match="a run named remote-a already exists in"):
        launch.launch_run(host, _config(files, "remote-a", tmp_path / "other"), tmp_path / "other" / "remote-a")

    a, b = Collector(), Collector()
    fa = RemoteFollower(run_a, a.on_event, a.on_status, reconnect_seconds=(0.2,)).start()
    fb = RemoteFollower(run_b, b.on_event, b.on_status, reconnect_seconds=(0.2,)).start()
    b.wait_for(lambda: b.steps(), "a step of run b")
    assert "cancel sent to worker" in launch.request_remote(run_b, "cancel")
    assert fb.done.wait(WAIT)

    a.wait_for(lambda: len(a.steps()) >= 2, "two steps of run a")
    fa.stop()                                                # the app quits mid-run; the run goes on
    remembered = RemoteRun.from_dict(json.loads(json.dumps(run_a.to_dict())))
    a2 = Collector()
    fa2 = RemoteFollower(remembered, a2.on_event, a2.on_status, reconnect_seconds=(0.2,)).start()
    a2.wait_for(lambda: a2.steps(), "a step after the restart")
    seen = a2.steps()[-1]["step"]
    pid = fa2.ssh_pid()
    assert pid is not None and pid > 0
    os.kill(pid, signal.SIGKILL)                             # the connection drops mid-run
    a2.wait_for(lambda: fa2.connections >= 2 and any(s["step"] > seen + 1 for s in a2.steps()),
                "steps after the reconnect")
    assert "Asked remote-a to stop early" in launch.request_remote(run_a, "stop")
    assert fa2.done.wait(WAIT)

    for run, parts, last in ((run_a, a.events + a2.events, "finished"), (run_b, b.events, "cancelled")):
        remote_file = sshd_server.runs / run.run_id / "events.jsonl"
        assert (local / run.run_id / "events.jsonl").read_bytes() == remote_file.read_bytes()
        assert parts == read_events(remote_file)                 # every event once, in order
        assert [e["seq"] for e in parts] == list(range(1, len(parts) + 1))
        assert parts[-1]["event"] == last
    assert a2.events[-1]["stopped_early"] is True
    assert fa.out_of_sequence == fa2.out_of_sequence == fb.out_of_sequence == []
    steps = [e["step"] for e in a.events + a2.events if e["event"] == "step"]
    assert steps == list(range(1, len(steps) + 1))
    assert any("lost" in s for s in a2.status)

    best = next(e["path"] for e in reversed(a2.events) if e["event"] == "checkpoint" and e["kind"] == "best")
    assert best.startswith(run_a.remote_dir + "/")
    seen_progress = []
    local_best = fetch_folder(run_a, best, lambda d, t: seen_progress.append((d, t)))
    assert local_best == local / "remote-a" / "checkpoints" / "best"
    remote_files = {p.relative_to(best).as_posix(): p.read_bytes() for p in Path(best).rglob("*") if p.is_file()}
    assert {p.relative_to(local_best).as_posix(): p.read_bytes() for p in local_best.rglob("*") if p.is_file()} \
        == remote_files
    assert seen_progress[-1][0] == seen_progress[-1][1] == sum(len(b) for b in remote_files.values())


def test_a_worker_left_on_the_host_is_killed_after_the_test(tmp_path):
    import socket
    import subprocess

    from sshd import kill_left_workers

    proc = subprocess.Popen(["sleep", "600"], start_new_session=True)   # a worker's own session, as hostside starts it
    try:
        (tmp_path / "r1").mkdir()
        (tmp_path / "r1" / "worker.pid").write_text(json.dumps({"pid": proc.pid, "host": socket.gethostname(), "time": 0}))
        (tmp_path / "r2").mkdir()
        (tmp_path / "r2" / "worker.pid").write_text("{torn")                # a half-written file is passed over
        assert kill_left_workers(tmp_path) == [proc.pid]
        assert proc.wait(WAIT) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
