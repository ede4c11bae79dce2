"""The layering is a test: ui -> core <- worker (import-linter contracts in pyproject.toml), and the
main window starts without importing torch."""

import subprocess
import sys

import pytest
from helpers import REPO_ROOT, worker_env


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT,
                          env=worker_env(QT_QPA_PLATFORM="offscreen"), timeout=300)


def test_import_linter_contracts_are_kept():
    pytest.importorskip("importlinter", reason="import-linter is in the test extra: pip install -e .[test]")
    proc = _python("import sys; from importlinter.cli import lint_imports; "
                   "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "3 kept, 0 broken" in out


def test_main_window_import_does_not_import_torch():
    proc = _python("import sys; import explorer.ui.main_window; "
                   "heavy = [m for m in ('torch', 'transformers', 'datasets', 'accelerate', 'explorer.worker') "
                   "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_core_modules_used_by_the_gui_import_without_torch():
    """The facts the GUI reads at start-up (config, task facts, run status, runs, events, errors)."""
    proc = _python("import sys; import explorer.core.training.config, explorer.core.task_facts, "
                   "explorer.core.run_status, explorer.core.runs, explorer.core.events, explorer.core.errors; "
                   "heavy = [m for m in ('torch', 'transformers', 'PySide6') if m in sys.modules]; print(heavy); "
                   "sys.exit(1 if heavy else 0)")
    assert proc.returncode == 0, proc.stdout + proc.stderr
