"""Time from `bert-explorer` to its first painted frame, in a real X server (Xvfb), issue 25 finding 9.

    python scripts/startup_time.py [--size 1280x800] [--runs N] [--timeout 120]

Starts Xvfb on a free display (``apt-get install -y xvfb x11-utils imagemagick`` if missing), then the app
(``python -m explorer`` with a temporary runs folder and settings file, QT_QPA_PLATFORM=xcb) and polls
the screen: ``import -window root`` (ImageMagick) gives the screen's grey-level standard deviation, and
the first frame that is not uniform (the splash, or the window) is the first paint; ``xwininfo -root
-tree`` tells when the main window (a top-level "BERT Explorer" window at least 800 px wide) is mapped.
Prints one line per start and a JSON line with the figures (seconds from the process start) and the
machine load (``os.getloadavg``), e.g.

    start 1: first frame 1.9 s, main window 14.2 s (CPU 0.6 s, 3.1 s)
    {"first_frame_s": [1.9], "main_window_s": [14.2], "first_frame_cpu_s": [0.6], "main_window_cpu_s": [3.1],
     "load": [5.1, 4.8, 4.0], "cpus": 2}

The CPU figures are the app process's own CPU time (user + system, /proc/PID/stat) when each was seen:
on a loaded machine they compare two versions better than the wall clock, which holds other processes'
turns.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BLANK_STDDEV = 0.002   # grey-level standard deviation (0..1) under which the screen counts as uniform


def need(tool: str) -> str:
    path = shutil.which(tool)
    if not path:
        raise SystemExit(f"{tool} is missing: apt-get install -y xvfb x11-utils imagemagick")
    return path


def start_xvfb(size: str) -> tuple[subprocess.Popen, str]:
    """Xvfb on a free display number (it writes the number to the pipe given by -displayfd)."""
    r, w = os.pipe()
    proc = subprocess.Popen([need("Xvfb"), "-displayfd", str(w), "-screen", "0", f"{size}x24", "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    with os.fdopen(r) as fh:
        number = fh.readline().strip()
    if not number:
        proc.kill()
        raise SystemExit("Xvfb did not start")
    return proc, f":{number}"


def screen_stddev(display: str) -> float:
    """Grey-level standard deviation of the whole screen (0 = one colour)."""
    out = subprocess.run([need("import"), "-display", display, "-window", "root", "-colorspace", "gray",
                          "-format", "%[fx:standard_deviation]", "info:"], capture_output=True, text=True)
    try:
        return float(out.stdout.strip() or 0)
    except ValueError:
        return 0.0


def main_window_mapped(display: str) -> bool:
    """A top-level window named "... BERT Explorer" at least 800 px wide is on screen."""
    out = subprocess.run([need("xwininfo"), "-display", display, "-root", "-tree"], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        m = re.search(r'"([^"]*BERT Explorer[^"]*)".*?\s(\d+)x(\d+)\+', line)
        if m and int(m.group(2)) >= 800:
            return True
    return False


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def one_start(display: str, timeout: float) -> tuple[float | None, float | None, float | None, float | None]:
    """(seconds to the first non-uniform frame, seconds to the main window, the app's CPU seconds at each)
    of one start, None where not seen."""
    work = Path(tempfile.mkdtemp(prefix="startup-time-"))
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", HF_HUB_OFFLINE="1",
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "explorer", "--runs-dir", str(work / "runs"),
                             "--settings", str(work / "settings.ini")], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = window = first_cpu = window_cpu = None
    try:
        while time.perf_counter() - t0 < timeout and proc.poll() is None:
            now = time.perf_counter() - t0
            cpu = cpu_seconds(proc.pid)   # read before the checks: the CPU time at (or just before) the sight
            if first is None and screen_stddev(display) > BLANK_STDDEV:
                first, first_cpu = now, cpu
            if window is None and main_window_mapped(display):
                window, window_cpu = now, cpu
            if first is not None and window is not None:
                break
            time.sleep(0.05)
        if proc.poll() is not None:
            print(f"the app exited ({proc.returncode}): {proc.stderr.read()[-1500:]}", file=sys.stderr)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)
    return first, window, first_cpu, window_cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="1280x800", help="screen size of the X server")
    p.add_argument("--runs", type=int, default=1, help="starts to time")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for each start")
    args = p.parse_args(argv)
    xvfb, display = start_xvfb(args.size)
    firsts, windows, first_cpus, window_cpus = [], [], [], []
    try:
        for k in range(args.runs):
            first, window, first_cpu, window_cpu = one_start(display, args.timeout)
            firsts.append(first)
            windows.append(window)
            first_cpus.append(first_cpu)
            window_cpus.append(window_cpu)
            fmt = lambda s: "not seen" if s is None else f"{s:.1f} s"   # noqa: E731
            print(f"start {k + 1}: first frame {fmt(first)}, main window {fmt(window)} "
                  f"(CPU {fmt(first_cpu)}, {fmt(window_cpu)})", flush=True)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    print(json.dumps({"first_frame_s": [None if s is None else round(s, 2) for s in firsts],
                      "main_window_s": [None if s is None else round(s, 2) for s in windows],
                      "first_frame_cpu_s": [None if s is None else round(s, 2) for s in first_cpus],
                      "main_window_cpu_s": [None if s is None else round(s, 2) for s in window_cpus],
                      "load": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(), "size": args.size}))
    return 0 if all(s is not None for s in firsts + windows) else 1


if __name__ == "__main__":
    sys.exit(main())
