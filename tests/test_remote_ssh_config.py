"""Which ssh_config the app's ssh reads, and the host-key sentences, against the real
test sshd (tests/sshd.py): an alias only in $HOME/.ssh/config (not the passwd home's file ssh reads) is
unreachable with a one-line explanation until the Hosts dialog's "Use it", then reachable; an unknown and a
changed host key are told apart, each with the exact ssh command (config, port, key) the app runs."""

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from explorer.core.errors import RemoteHostError
from explorer.core.remote import hosts, ssh
from explorer.core.remote.hosts import SSH_CONFIG_ENV, Host
from explorer.ui.launch.hosts_dialog import HostsDialog
from explorer.ui.shell.settings import AppSettings

SHOTS = Path("/tmp/hostsfix_shots")


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture
def plain_ssh(monkeypatch):
    """No $EXPLORER_SSH_CONFIG (the sshd fixture sets one) and no "Use it" choice: ssh reads its own file."""
    monkeypatch.delenv(SSH_CONFIG_ENV, raising=False)
    monkeypatch.setattr(hosts, "_chosen_config", None)


def _fill(dialog, **values):
    for name, value in values.items():
        dialog.fields[name].setText(value)
        dialog.fields[name].textEdited.emit(value)


def _check(qtbot, dialog) -> str:
    with qtbot.waitSignal(dialog.checked, timeout=60_000):
        dialog.check_btn.click()
    return dialog.result.text()


def test_an_alias_only_in_homes_ssh_config_is_reachable_after_use_it(qtbot, sshd_server, plain_ssh, monkeypatch,
                                                                      tmp_path):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    if hosts.login_home().resolve() == home.resolve():
        pytest.skip("the passwd home is the temporary HOME: nothing to tell apart")
    config = home / ".ssh" / "config"
    config.write_text("\n".join([
        "Host myserver", "  HostName 127.0.0.1", f"  Port {sshd_server.port}", f"  User {_user()}",
        f"  IdentityFile {sshd_server.root / 'client_key'}", "  IdentitiesOnly yes",
        f"  UserKnownHostsFile {sshd_server.root / 'known_hosts'}", "  StrictHostKeyChecking yes", ""]),
        encoding="utf-8")
    settings = AppSettings(tmp_path / "s.ini")
    dialog = HostsDialog(settings)
    qtbot.addWidget(dialog)
    note = dialog.config_note.text()
    assert not dialog.config_note.isHidden() and dialog.use_config.text() == "Use it"
    assert note == (f"Your HOME's SSH config ({config}) is not the one ssh reads "
                    f"({hosts.login_home() / '.ssh' / 'config'}: the account's home).")
    assert "myserver" not in dialog.aliases.text()
    dialog.add_host()
    _fill(dialog, name="myserver", target="myserver", python=str(sshd_server.python), runs_dir=str(sshd_server.runs))
    before = _check(qtbot, dialog)
    assert "not ready" in before and "Could not resolve hostname myserver" in before and note in before

    dialog.resize(1000, 640)
    dialog.show()
    qtbot.waitExposed(dialog)
    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "hosts_home_config_before.png"))

    dialog.use_config.click()
    assert settings.ssh_config() == str(config)
    assert dialog.use_config.text() == "Stop using it" and str(config) in dialog.config_note.text()
    assert "myserver" in dialog.aliases.text()
    assert ssh.ssh_argv(Host(target="myserver"), ["true"])[:3] == ["ssh", "-F", str(config)]
    after = _check(qtbot, dialog)
    assert "ready for runs" in after and "not ready" not in after
    dialog.grab().save(str(SHOTS / "hosts_home_config_after.png"))
    dialog.accept()

    monkeypatch.setattr(hosts, "_chosen_config", None)   # a restart: the remembered choice applies again
    again = HostsDialog(AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(again)
    assert "myserver" in again.aliases.text() and hosts.ssh_config_override() == config
    other = tmp_path / "env_config"
    other.write_text("Host envhost\n  HostName 127.0.0.1\n", encoding="utf-8")
    monkeypatch.setenv(SSH_CONFIG_ENV, str(other))   # the environment variable wins over the choice
    assert ssh.ssh_argv(Host(target="myserver"), ["true"])[:3] == ["ssh", "-F", str(other)]
    assert ssh.scp_argv(Host(target="myserver"), ["a"], "~/b")[:3] == ["scp", "-F", str(other)]


def _host_key_case(sshd_server, tmp_path, monkeypatch, known: str) -> tuple[Host, Path]:
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(known, encoding="utf-8")
    config = tmp_path / "ssh_config"
    config.write_text(f"Host 127.0.0.1\n  UserKnownHostsFile {known_hosts}\n  StrictHostKeyChecking yes\n",
                      encoding="utf-8")
    monkeypatch.setenv(SSH_CONFIG_ENV, str(config))
    host = Host(name="lab", target=f"{_user()}@127.0.0.1", port=sshd_server.port,
                key=str(sshd_server.root / "client_key"))
    return host, config


def _expected_command(host: Host, config: Path) -> str:
    return (f"ssh -F {config} -p {host.port} -i {host.key} -o IdentitiesOnly=yes {host.target}")


def test_an_unknown_host_key_says_first_connection_with_the_exact_command(sshd_server, tmp_path, monkeypatch):
    host, config = _host_key_case(sshd_server, tmp_path, monkeypatch, "")
    with pytest.raises(RemoteHostError) as err:
        ssh.run_checked(host, ["true"])
    text = str(err.value)
    assert text.startswith(f"lab: unknown host key (the first connection: {tmp_path / 'known_hosts'}, the "
                           "known_hosts file ssh reads, has no key for it)")   # which file
    assert "CHANGED" not in text and text.endswith(": " + _expected_command(host, config))
    # the command is the one the app runs: with the key accepted it logs in
    host_pub = " ".join((sshd_server.root / "host_key.pub").read_text(encoding="utf-8").split()[:2])
    (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{sshd_server.port} {host_pub}\n", encoding="utf-8")
    res = subprocess.run([*shlex.split(ssh.connect_command(host)), "true"], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, res.stderr


def test_a_changed_host_key_says_changed_with_the_exact_command(sshd_server, tmp_path, monkeypatch):
    other_pub = " ".join((sshd_server.root / "wrong_key.pub").read_text(encoding="utf-8").split()[:2])
    host, config = _host_key_case(sshd_server, tmp_path, monkeypatch, f"[127.0.0.1]:{sshd_server.port} {other_pub}\n")
    with pytest.raises(RemoteHostError) as err:
        ssh.run_checked(host, ["true"])
    text = str(err.value)
    assert text.startswith("lab: the host key CHANGED") and "REMOTE HOST IDENTIFICATION HAS CHANGED" in text
    assert "unknown host key" not in text and text.endswith(": " + _expected_command(host, config))
    assert f"remove line 1 of {tmp_path / 'known_hosts'}," in text


def test_an_unknown_host_key_names_the_known_hosts_file_and_one_in_home_that_ssh_does_not_read(tmp_path, monkeypatch):
    """A key accepted into $HOME/.ssh/known_hosts, which ssh does not read (it reads the account's home), is
    pointed out, and the message says which known_hosts file is used."""
    import shutil

    if shutil.which("ssh") is None:
        pytest.skip("no ssh client")
    used = tmp_path / "account" / "known_hosts"
    config = tmp_path / "ssh_config"
    config.write_text(f"Host gpubox\n  HostName 10.0.0.7\n  UserKnownHostsFile {used}\n", encoding="utf-8")
    monkeypatch.setenv(SSH_CONFIG_ENV, str(config))
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "known_hosts").write_text("gpubox ssh-ed25519 AAAA\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    text = ssh.explain(Host(name="gpubox", target="gpubox"), "Host key verification failed.\n", 255)
    assert f"(the first connection: {used}, the known_hosts file ssh reads, has no key for it)" in text
    assert (f"has no key for it). A key in your HOME's {home / '.ssh' / 'known_hosts'} is not read: ssh reads the "
            "account's home, not $HOME (or name that file with UserKnownHostsFile in the SSH config). To check its "
            "fingerprint and accept it, connect once in a terminal with: ssh ") in text


def test_the_ssh_config_is_the_one_ssh_reads_and_its_port_is_shown(qtbot, tmp_path, monkeypatch):
    """The Hosts dialog reads the ssh config ssh reads (the passwd home's, not $HOME/.ssh/config), and its Port
    field says the port that config sets (2222), not "22"."""
    import pwd
    import shutil

    from explorer.core.remote import hosts
    from explorer.core.remote.hosts import SSH_CONFIG_ENV, Host, configured_port, ssh_config_path, ssh_resolved
    from explorer.ui.launch.hosts_dialog import HostsDialog
    from explorer.ui.shell.settings import AppSettings

    monkeypatch.delenv(SSH_CONFIG_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "not-the-login-home"))
    assert ssh_config_path() == Path(pwd.getpwuid(os.getuid()).pw_dir) / ".ssh" / "config"   # never $HOME's
    config = tmp_path / "ssh_config"
    config.write_text("Host box\n    HostName 127.0.0.1\n    Port 2222\n    User ada\n"
                      "Host *.lab !gate.lab\n    Port 2200\nHost *\n    Port 2020\n", encoding="utf-8")
    monkeypatch.setenv(SSH_CONFIG_ENV, str(config))
    if shutil.which("ssh"):
        resolved = ssh_resolved("box")   # (and the known_hosts file ssh reads, for the host-key messages)
        assert {k: resolved[k] for k in ("hostname", "user", "port")} == {"hostname": "127.0.0.1", "user": "ada",
                                                                          "port": "2222"}
    else:
        print("ssh is not installed here: only the file reading of the ssh config is tested")
    assert configured_port("box") == 2222
    monkeypatch.setattr(hosts, "ssh_resolved", lambda target, timeout=5.0: None)   # no ssh: the file itself
    assert configured_port("me@box") == 2222 and configured_port("node.lab") == 2200
    assert configured_port("gate.lab") == 2020 and configured_port("elsewhere") == 2020
    monkeypatch.undo()
    monkeypatch.setenv(SSH_CONFIG_ENV, str(config))
    settings = AppSettings(tmp_path / "s.ini")
    settings.set_hosts([Host(name="box", target="box")])
    dialog = HostsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.list.setCurrentRow(0)
    qtbot.waitUntil(lambda: dialog.port.specialValueText() == "from the SSH config (2222)", timeout=10_000)
    assert dialog.port.value() == 0 and dialog.port.text() == "from the SSH config (2222)"


def test_a_host_without_sftp_gets_the_legacy_scp_protocol(monkeypatch, tmp_path):
    """scp >= 9 copies over SFTP; an sshd without an sftp subsystem answers "Connection closed" although ssh
    itself works (Check host said ready). The copy is tried again once with ``scp -O``; another failure is not."""
    import io

    calls = []

    class FakeScp:
        def __init__(self, argv, **_kw):
            calls.append(argv)
            self.returncode = 0 if "-O" in argv else 255
            self.stderr = io.BytesIO(b"" if self.returncode == 0 else b"scp: Connection closed\n")

        def wait(self, timeout=None):
            return self.returncode

        def poll(self):
            return self.returncode

    monkeypatch.setattr(ssh.subprocess, "Popen", FakeScp)
    host = Host(name="gpuserver", target="gpuserver")
    ssh.copy_from(host, "/runs/r/dev_split.csv", tmp_path / "dev_split.csv")
    assert len(calls) == 2 and "-O" not in calls[0] and calls[1][:2] == ["scp", "-O"]
    calls.clear()

    class Refused(FakeScp):
        def __init__(self, argv, **_kw):
            super().__init__(argv)
            self.returncode, self.stderr = 255, io.BytesIO(b"Permission denied (publickey).\n")

    monkeypatch.setattr(ssh.subprocess, "Popen", Refused)
    with pytest.raises(RemoteHostError, match="refused the key"):
        ssh.copy_from(host, "/runs/r/x", tmp_path / "x")
    assert len(calls) == 1


def test_a_copy_over_legacy_scp_keeps_a_path_with_a_space_whole(tmp_path, monkeypatch):
    """A real sshd without an SFTP subsystem: scp falls back to ``scp -O``, whose remote path the host's shell
    parses; a run named "conll remote" must still be fetched and uploaded (quoted for that mode only)."""
    from sshd import SshdUnavailable, start_sshd

    try:
        server = start_sshd(tmp_path / "sshd", sftp=False)
    except SshdUnavailable as exc:
        pytest.skip(f"REMOTE-HOST TESTS SKIPPED: the test sshd cannot start: {exc}")
    try:
        monkeypatch.setenv("EXPLORER_SSH_CONFIG", str(server.ssh_config))
        host = Host(name="local ssh", target=server.alias)
        best = tmp_path / "remote-runs" / "conll remote" / "checkpoints" / "best"
        best.mkdir(parents=True)
        (best / "checkpoint.json").write_text('{"step": 3}', encoding="utf-8")
        ssh.copy_from(host, str(best / "checkpoint.json"), tmp_path / "got.json")
        assert (tmp_path / "got.json").read_text(encoding="utf-8") == '{"step": 3}'
        (tmp_path / "up.txt").write_text("up", encoding="utf-8")
        ssh.copy_to(host, [tmp_path / "up.txt"], str(best) + "/")
        assert (best / "up.txt").read_text(encoding="utf-8") == "up"
    finally:
        server.stop()


def test_a_new_hosts_python_and_runs_folder_are_placeholders_that_typing_replaces(qtbot, tmp_path):
    """After Add, Python and Runs folder are empty with the default as the grey placeholder (real text that
    looked grey got typed onto: "python3/opt/venv/bin/python"); empty means the default."""
    settings = AppSettings(tmp_path / "s.ini")
    dialog = HostsDialog(settings)
    qtbot.addWidget(dialog)
    host = dialog.add_host()
    python, runs = dialog.fields["python"], dialog.fields["runs_dir"]
    assert python.text() == "" and "python3" in python.placeholderText()
    assert runs.text() == "" and "~/bert-explorer-runs" in runs.placeholderText()
    assert (host.python, host.runs_dir) == ("python3", "~/bert-explorer-runs")   # empty: the default is used
    qtbot.keyClicks(python, "/opt/venv/bin/python")
    qtbot.keyClicks(runs, "/scratch/runs")
    assert (host.python, host.runs_dir) == ("/opt/venv/bin/python", "/scratch/runs")
    python.selectAll()
    qtbot.keyClick(python, "\b")   # Backspace: the field emptied by the user means the default again
    assert python.text() == "" and host.python == "python3"


def test_the_ssh_host_completions_never_eat_a_click_and_a_clicked_one_is_taken(qtbot, tmp_path, monkeypatch):
    """After typing in SSH host its completion list is open and holds the mouse: the press the window system gives
    it on the "SLURM login node" box (outside the list) hides the list and reaches the box at once (QCompleter ate
    it: the first click did nothing); a completion clicked in the list becomes the host's SSH host (the field showed
    it, the host kept the typed "my")."""
    from PySide6.QtCore import QEvent, QPoint, Qt
    from PySide6.QtGui import QFocusEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    monkeypatch.setattr("explorer.ui.launch.hosts_dialog.ssh_aliases", lambda: ["myserver", "mybox", "other"])
    dialog = HostsDialog(AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.add_host()
    field, box = dialog.fields["target"], dialog.slurm
    # the field gets the focus-in a click gives it (QLineEdit ties its completer to it then); the offscreen
    # platform in a test session activates no window to give it
    QApplication.sendEvent(field, QFocusEvent(QEvent.Type.FocusIn, Qt.FocusReason.MouseFocusReason))
    qtbot.keyClicks(field, "my")
    popup = field.completer().popup()
    qtbot.waitUntil(popup.isVisible)
    QTest.mouseClick(popup.viewport(), Qt.MouseButton.LeftButton,
                     pos=popup.visualRect(popup.model().index(1, 0)).center())
    assert field.text() == "mybox" and dialog.current().target == "mybox"
    qtbot.keyClick(field, Qt.Key.Key_Backspace)      # still in the field: "mybo" opens the list again
    qtbot.waitUntil(popup.isVisible)
    on_box = QPoint(8, box.height() // 2)
    QTest.mousePress(popup, Qt.MouseButton.LeftButton, pos=popup.mapFromGlobal(box.mapToGlobal(on_box)))
    QTest.mouseRelease(box, Qt.MouseButton.LeftButton, pos=on_box)
    assert not popup.isVisible() and box.isChecked() and dialog.current().slurm is not None


def test_a_click_on_the_next_field_while_completions_are_open_moves_the_typing_there(qtbot, tmp_path, monkeypatch):
    """Typing in SSH host opens its completion list; a click on "Python on the host" (the press the window
    system gives the open list) puts the keyboard focus in that field, so what is typed next goes there, not on
    after the SSH host ("trialhost/opt/venv/bin/python" when the handed-on press moved no focus)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QFocusEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    monkeypatch.setattr("explorer.ui.launch.hosts_dialog.ssh_aliases", lambda: ["trialhost", "trialbox"])
    dialog = HostsDialog(AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.add_host()
    field, python = dialog.fields["target"], dialog.fields["python"]
    field.setFocus()
    QApplication.sendEvent(field, QFocusEvent(QEvent.Type.FocusIn, Qt.FocusReason.MouseFocusReason))
    qtbot.keyClicks(field, "trialh")
    popup = field.completer().popup()
    qtbot.waitUntil(popup.isVisible)
    centre = python.rect().center()
    QTest.mousePress(popup, Qt.MouseButton.LeftButton, pos=popup.mapFromGlobal(python.mapToGlobal(centre)))
    assert not popup.isVisible() and dialog.focusWidget() is python
    qtbot.keyClicks(dialog.focusWidget(), "/opt/venv/bin/python")
    host = dialog.current()
    assert (field.text(), python.text()) == ("trialh", "/opt/venv/bin/python")
    assert (host.target, host.python) == ("trialh", "/opt/venv/bin/python")


def test_the_port_shown_is_the_latest_reads_when_an_earlier_read_ends_after_it(qtbot, tmp_path, monkeypatch):
    """The Port field's "from the SSH config (N)" is read on a worker thread: a read begun under ssh's own file
    (22) that ends after the read begun after "Use it" (2261) never replaces it."""
    reads = []
    monkeypatch.setattr("explorer.ui.launch.hosts_dialog.start_worker",
                        lambda fn, *args, on_done=None, **_kw: reads.append(on_done))
    dialog = HostsDialog(AppSettings(tmp_path / "s.ini"))
    qtbot.addWidget(dialog)
    dialog.add_host(Host(name="trialhost", target="trialhost"))
    dialog._read_port()   # as "Use it" does once the chosen config is applied
    first, latest = reads[-2], reads[-1]
    latest(2261)
    first(22)
    assert dialog.port.text() == "from the SSH config (2261)"
