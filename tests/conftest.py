"""Shared fixtures: offscreen Qt, no network, tiny random models, the real-data folder."""

import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from isolation import WriteGuard, protected_locations, sandbox_locations

from explorer.core.specs.heads import heads as spec_heads   # torch-free: the heads every_head runs over

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Every location the product or its libraries write to points into one temporary folder for the whole
# run, set here (at import, before any test module imports transformers or huggingface_hub, which read
# their cache variables once) and checked by the session fixture below (tests/isolation.py).
_PROTECTED = protected_locations()
SANDBOX = Path(tempfile.mkdtemp(prefix="bert-explorer-tests-"))
SANDBOX_LOCATIONS = sandbox_locations(SANDBOX)
_GUARD = WriteGuard(_PROTECTED)


@pytest.fixture(scope="session", autouse=True)
def _user_files_untouched():
    """The whole session runs with HOME, XDG_*, the runs folder, the settings, the caches and HF_HOME in a
    temporary folder (SANDBOX); QSettings' own paths too. Fails the session if anything was written into
    the user's real locations (an audit hook records every write-like call there)."""
    try:
        from PySide6.QtCore import QSettings

        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
                QSettings.setPath(fmt, scope, SANDBOX_LOCATIONS["XDG_CONFIG_HOME"])
    except ImportError:
        pass
    if not _GUARD.active:
        _GUARD.install()
    yield _GUARD
    _GUARD.active = False
    shutil.rmtree(SANDBOX, ignore_errors=True)
    if _GUARD.violations:
        shown = "\n  ".join(sorted(set(_GUARD.violations))[:20])
        pytest.fail(f"tests wrote into the user's own files (use tmp_path):\n  {shown}", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def _no_cyclic_collection():
    """No cyclic garbage collection in the test session. A collection on another thread (the inspector double's
    lane thread) freed Qt objects of earlier tests there and Qt aborted; one on the main thread, between tests,
    freeing the wrappers of widgets pytest-qt had just deleted, crashed the same way (segfault in
    "Garbage-collecting"). The app collects on a GUI-thread timer (explorer.ui.app.collect_on_the_gui_thread);
    the tests free by reference counting only, and end without the interpreter's final collection
    (pytest_unconfigure below)."""
    gc.disable()
    try:   # the app's GUI-thread collector: windows built by tests (explorer.ui.app.make_window) start one
        from pyqtgraph.util.garbage_collector import GarbageCollector

        GarbageCollector.check = lambda self: None
    except ImportError:
        pass
    yield


_EXIT_STATUS: list[int] = []


def pytest_sessionfinish(session, exitstatus):
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """End the process with pytest's exit status once everything is reported, skipping the interpreter's
    final cyclic collection of the whole session's Qt wrappers (see _no_cyclic_collection)."""
    if _EXIT_STATUS and not hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])


def pytest_collection_modifyitems(config, items):
    """Every test on the real data (the ``real_data`` fixture or marker) is also ``slow``: ``-m "not slow"``
    runs the fast set alone (README, Tests)."""
    for item in items:
        if "real_data" in getattr(item, "fixturenames", ()) or item.get_closest_marker("real_data"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def tiny_qa():
    """A tiny random BERT QA model + fast tokenizer (2 layers, 4 heads, hidden 32)."""
    from helpers import tiny_loaded_model

    return tiny_loaded_model("qa")


def _head_id(head) -> str:
    return head.name


@pytest.fixture(params=spec_heads(), ids=_head_id)
def every_head(request):
    """Each head of explorer.core.specs.heads in turn (a HeadSpec): a rule written once is tested on every head,
    and a head added to the spec is tested by every such test. helpers.tiny_head_model(head) builds its model."""
    return request.param


@pytest.fixture(scope="session")
def _head_checkpoints(tmp_path_factory) -> dict:
    return {}


@pytest.fixture
def every_head_checkpoint(every_head, _head_checkpoints, tmp_path_factory) -> Path:
    """A saved tiny checkpoint of each head in turn (helpers.save_tiny_head_model), written once per session:
    tests read it and write elsewhere."""
    from helpers import save_tiny_head_model

    if every_head.name not in _head_checkpoints:
        folder = tmp_path_factory.mktemp(f"head-{every_head.name}")
        _head_checkpoints[every_head.name] = save_tiny_head_model(folder, every_head)
    return _head_checkpoints[every_head.name]


@pytest.fixture(scope="session")
def real_data() -> Path:
    """The folder named by EXPLORER_REAL_DATA; skips the test when it is unset or missing."""
    value = os.environ.get("EXPLORER_REAL_DATA")
    if not value:
        pytest.skip("EXPLORER_REAL_DATA is not set (the folder of real SQuAD / GLUE files; see the README)")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"EXPLORER_REAL_DATA={value} is not a folder")
    return path


@pytest.fixture(autouse=True)
def _inspector_child_in_a_thread(request):
    """The inspector views talk to the real server on a thread of this process (tests/inspect_double.py),
    so that tests may hand in-memory tiny models over; tests marked ``real_inspect_process`` start the real
    child process instead. Each test gets a fresh shared client."""
    from explorer.ui.inspectors import client

    if request.node.get_closest_marker("real_inspect_process"):
        old = client.set_transport_factory(client.ProcessTransport)
    else:
        from inspect_double import ThreadTransport

        old = client.set_transport_factory(ThreadTransport)
    yield
    client.reset_shared_client()
    client.set_transport_factory(old)


@pytest.fixture(autouse=True)
def _no_tooltip_filter_left():
    """Take the app-wide tooltip event filter off after each test. explorer.ui.app.create_window installs it
    on the QApplication, which outlives the test: every later test's widgets then sent each event through
    Python (a main window's build and first paint measured 50 % slower with it). Tests that need it
    install it themselves (create_window, install_tooltip_wrapper)."""
    yield
    widgets = sys.modules.get("PySide6.QtWidgets")
    app = widgets.QApplication.instance() if widgets is not None else None
    wrapper = getattr(app, "_tooltip_wrapper", None) if app is not None else None
    if wrapper is not None:
        app.removeEventFilter(wrapper)
        del app._tooltip_wrapper
        wrapper.deleteLater()
    shell_settings = sys.modules.get("explorer.ui.shell.settings")
    if shell_settings is not None:   # a main window names its settings for the process: not the next test's
        shell_settings.set_current_settings(None)


@pytest.fixture
def queued_window(qtbot, tmp_path):
    """The main window over an empty runs folder in tmp_path whose runner starts nothing (runs stay queued), its
    runs list read; cancelled and closed after the test."""
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    runs = tmp_path / "runs"
    runs.mkdir()
    w = MainWindow(runs, AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0                     # queued, never started
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    qtbot.waitUntil(lambda: not w.runs.loading, timeout=10_000)
    return w


@pytest.fixture(scope="session")
def sshd_server(tmp_path_factory):
    """A real OpenSSH server on 127.0.0.1 with a generated key (tests/sshd.py), for the whole session;
    $EXPLORER_SSH_CONFIG names its ssh_config (alias ``explorer-test``). Skips, loudly, when sshd is not
    installed or cannot start here."""
    import warnings

    from sshd import SshdUnavailable, start_sshd

    try:
        server = start_sshd(tmp_path_factory.mktemp("sshd"))
    except SshdUnavailable as exc:
        warnings.warn(f"REMOTE-HOST TESTS SKIPPED: {exc}", stacklevel=1)
        pytest.skip(f"REMOTE-HOST TESTS SKIPPED: the test sshd cannot start: {exc}")
    old = os.environ.get("EXPLORER_SSH_CONFIG")
    os.environ["EXPLORER_SSH_CONFIG"] = str(server.ssh_config)
    yield server
    if old is None:
        os.environ.pop("EXPLORER_SSH_CONFIG", None)
    else:
        os.environ["EXPLORER_SSH_CONFIG"] = old
    server.stop()


@pytest.fixture(autouse=True)
def _no_remote_worker_left(request):
    """After a test that used the test sshd, no worker it launched on the "host" keeps training: a test that
    failed mid-run would leave one going (its own session, up to 100,000 steps), slowing every later test."""
    yield
    if "sshd_server" in request.fixturenames:
        from sshd import kill_left_workers

        kill_left_workers(request.getfixturevalue("sshd_server").runs)
