"""The window's repaints reach a real X server's screen: a prewarm of the inspector hub (showing the Attention page
once, unseen) that turns the whole window's updates off and on leaves, on an X server without a window manager,
the window's later repaints off the screen: the launcher's "Reading ..." and "device: probing..." stay for
minutes after their answers, and after a restart the window looks frozen until it is moved. Offscreen rendering
cannot show it (widget.grab() renders the
widget itself), so this test starts Xvfb and the app's own start in a child (tests/x11_repaint_child.py), and
reads the screen on a connection of its own. Skipped where Xvfb or Qt's xcb libraries are missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


@pytest.mark.slow
def test_the_window_repaints_on_a_real_x_server_after_the_attention_prewarm(tmp_path):
    from explorer.ui.shell.preflight import missing_xcb_libraries

    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install -y xvfb)")
    if missing_xcb_libraries():
        pytest.skip(f"Qt's xcb libraries are missing: {', '.join(missing_xcb_libraries())}")
    from startup_time import start_xvfb

    xvfb, display = start_xvfb("1280x800")
    try:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", HOME=str(tmp_path / "home"),
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        res = subprocess.run([sys.executable, str(ROOT / "tests" / "x11_repaint_child.py"), str(tmp_path / "runs"),
                              str(tmp_path / "settings.ini")], env=env, capture_output=True, text=True, timeout=600)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    lines = [ln for ln in res.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"the child said nothing (exit {res.returncode}): {res.stderr[-2000:]}"
    result = json.loads(lines[-1])
    assert result["before"], "a label's new text never reached the screen, even before the prewarm"
    assert result["prewarmed"], "the hub never prewarmed its Attention page"
    assert result["after"], "after the Attention page's prewarm the window's repaints no longer reach the screen"
