"""The layering is a test: ui -> core <- worker and core/ in acyclic layers (every import-linter contract in
pyproject.toml), the kernel as the only flat modules of core/, and the main window starts without importing torch."""

import subprocess
import sys

import pytest
from helpers import REPO_ROOT, worker_env

try:
    import tomllib
except ModuleNotFoundError:   # Python 3.10
    tomllib = pytest.importorskip("tomli")


def _contracts() -> list[dict]:
    with open(REPO_ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["importlinter"]["contracts"]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT,
                          env=worker_env(QT_QPA_PLATFORM="offscreen"), timeout=300)


def test_import_linter_contracts_are_kept():
    pytest.importorskip("importlinter", reason="import-linter is in the test extra: pip install -e .[test]")
    proc = _python("import sys; from importlinter.cli import lint_imports; "
                   "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert f"{len(_contracts())} kept, 0 broken" in out   # every contract ran and held


def test_the_kernel_is_the_only_flat_module_of_core():
    """core/ is packages by capability; its flat modules are exactly the kernel: the layers below protocol of the
    "core in layers" contract, which also names every package of core/ in a layer above it."""
    layers = next(c for c in _contracts() if c["type"] == "layers" and c["containers"] == ["explorer.core"])["layers"]
    names = [[n.strip() for n in layer.replace(":", "|").split("|")] for layer in layers]
    kernel = {n for layer in names[[*map(tuple, names)].index(("protocol",)) + 1:] for n in layer}
    core = REPO_ROOT / "explorer" / "core"
    flat = {p.stem for p in core.glob("*.py") if p.stem != "__init__"}
    packages = {p.parent.name for p in core.glob("*/__init__.py")}
    assert flat == kernel
    assert packages == {n for layer in names for n in layer} - kernel


def test_inspector_page_models_import_without_qt():
    """The Qt-free models of the inspector pages (explorer.ui.inspectors.components) load no Qt at all, so their
    unit tests run without a QApplication."""
    import pkgutil

    import explorer.ui.inspectors.components as components

    names = [f"explorer.ui.inspectors.components.{m.name}" for m in pkgutil.iter_modules(components.__path__)]
    assert names
    proc = _python(f"import sys, importlib; [importlib.import_module(m) for m in {names!r}]; "
                   "qt = [m for m in ('PySide6', 'pyqtgraph', 'shiboken6') if m in sys.modules]; print(qt); "
                   "sys.exit(1 if qt else 0)")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_main_window_import_does_not_import_torch():
    proc = _python("import sys; import explorer.ui.shell.main_window; "
                   "heavy = [m for m in ('torch', 'transformers', 'datasets', 'accelerate', 'explorer.worker') "
                   "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_core_modules_used_by_the_gui_import_without_torch():
    """The facts the GUI reads at start-up (config, task facts, run status, runs, events, errors) and the predict
    modules the Predictions page and its dialog use (the header and column guess)."""
    proc = _python("import sys; import explorer.core.specs.train_config, explorer.core.specs.tasks, "
                   "explorer.core.runs.status, explorer.core.runs.store, explorer.core.runs.reading, "
                   "explorer.core.protocol.events, explorer.core.errors, "
                   "explorer.core.predict.review, explorer.core.predict.engine, explorer.core.predict.facts; "
                   "heavy = [m for m in ('torch', 'transformers', 'PySide6') if m in sys.modules]; print(heavy); "
                   "sys.exit(1 if heavy else 0)")
    assert proc.returncode == 0, proc.stdout + proc.stderr


GUI_PROBE = r'''
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication([])
import explorer.ui.shell.main_window  # noqa: F401 - the whole window's imports, as the app has them
from explorer.ui.inspectors import InspectorHub

hub = InspectorHub()
seen = {}

def probed(result):
    seen["answer"] = result.decoding.best_text
    seen["attention"] = result.attention is not None
    hub.dev_view.run(sys.argv[2], 0)

hub.result_changed.connect(probed)
hub.dev_view.study_ready.connect(lambda study: (seen.__setitem__("study", len(study)), app.quit()))
hub.message.connect(lambda text: seen.setdefault("messages", []).append(text))
hub.open_model(sys.argv[1])
hub.open_example("where was ada born?", "ada lovelace was born in london in 1815.")
QTimer.singleShot(240_000, app.quit)
app.exec()
heavy = [m for m in ("torch", "transformers", "datasets", "accelerate", "explorer.worker") if m in sys.modules]
print("child", hub.client.pid, "seen", seen, "heavy", heavy)
hub.client.stop()
sys.exit(0 if "study" in seen and not heavy else 1)
'''


def test_probe_and_dev_study_through_the_inspector_child_keep_torch_out_of_the_gui(tmp_path):
    """Loading a model, probing with attentions and the τ study, all through the inspector child: the GUI
    process never imports torch (nor transformers, datasets, accelerate)."""
    from helpers import save_tiny_model
    from test_ui_inspector_core import squad_v2_file

    folder = save_tiny_model(tmp_path / "tiny", "qa")
    dev = squad_v2_file(tmp_path / "dev.json")
    script = tmp_path / "gui_probe.py"
    script.write_text(GUI_PROBE, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script), str(folder), str(dev)], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=worker_env(QT_QPA_PLATFORM="offscreen",
                                                        EXPLORER_CACHE_DIR=str(tmp_path / "cache")), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "'study': 12" in proc.stdout and "'attention': True" in proc.stdout and "heavy []" in proc.stdout
