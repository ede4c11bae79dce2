"""Time from `bert-explorer` to its first painted frame, in a real X server (Xvfb).

    python scripts/startup_time.py [--size 1280x800] [--runs N] [--timeout 120]

Starts Xvfb on a free display (``apt-get install -y xvfb`` if missing), then the app (``python -m explorer``
with a temporary runs folder and settings file, QT_QPA_PLATFORM=xcb) and looks at the screen every 20 ms
through libX11 (ctypes, in this process): the first frame whose grey levels are not uniform (the splash, or
the window) is the first paint; the main window counts once a viewable top-level window of class
"BERT Explorer" (WM_CLASS) at least 800 px wide is on screen and its own area is not one colour (painted, not
only mapped). ``--warmup`` untimed starts come first (default 1: byte code cached, as at a user's second
start; PYTHONDONTWRITEBYTECODE is removed from the app's environment). Prints one line per start and a JSON
line with the figures (seconds from the process start), this script's own CPU time while polling, and the
machine load (``os.getloadavg``), e.g.

    start 1: first frame 1.2 s, main window 2.6 s (CPU 0.3 s, 1.1 s)
    {"poll_cpu_s": 0.4, "first_frame_s": [1.2], "main_window_s": [2.6], "first_frame_cpu_s": [0.3],
     "main_window_cpu_s": [1.1], "load": [1.1, 0.8, 0.6], "cpus": 2, "size": "1280x800"}

The CPU figures are the app process's own CPU time (user + system, /proc/PID/stat) when each was seen:
on a loaded machine they compare two versions better than the wall clock, which holds other processes'
turns.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

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


class XScreen:
    """The X server's screen read through libX11 (ctypes): one ``XGetImage`` / ``XQueryTree`` request per
    look, in this process. (Spawning ImageMagick's ``import`` and ``xwininfo`` twice per poll, as this script
    did before, kept about one of the two cores busy and delayed the app it was timing.)"""

    class XImage(ctypes.Structure):
        _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
                    ("format", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_uint8)),
                    ("byte_order", ctypes.c_int), ("bitmap_unit", ctypes.c_int),
                    ("bitmap_bit_order", ctypes.c_int), ("bitmap_pad", ctypes.c_int), ("depth", ctypes.c_int),
                    ("bytes_per_line", ctypes.c_int), ("bits_per_pixel", ctypes.c_int)]

    class XWindowAttributes(ctypes.Structure):
        _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                    ("border_width", ctypes.c_int), ("depth", ctypes.c_int), ("visual", ctypes.c_void_p),
                    ("root", ctypes.c_ulong), ("class_", ctypes.c_int), ("bit_gravity", ctypes.c_int),
                    ("win_gravity", ctypes.c_int), ("backing_store", ctypes.c_int),
                    ("backing_planes", ctypes.c_ulong), ("backing_pixel", ctypes.c_ulong),
                    ("save_under", ctypes.c_int), ("colormap", ctypes.c_ulong), ("map_installed", ctypes.c_int),
                    ("map_state", ctypes.c_int), ("all_event_masks", ctypes.c_long),
                    ("your_event_mask", ctypes.c_long), ("do_not_propagate_mask", ctypes.c_long),
                    ("override_redirect", ctypes.c_int), ("screen", ctypes.c_void_p)]

    class XClassHint(ctypes.Structure):
        _fields_ = [("res_name", ctypes.c_void_p), ("res_class", ctypes.c_void_p)]

    IS_VIEWABLE = 2
    Z_PIXMAP = 2

    def __init__(self, display: str):
        lib = ctypes.util.find_library("X11")
        if not lib:
            raise SystemExit("libX11 is missing: apt-get install -y libx11-6")
        x = self.x = ctypes.CDLL(lib)
        x.XOpenDisplay.restype = ctypes.c_void_p
        x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x.XDefaultRootWindow.restype = ctypes.c_ulong
        x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        x.XGetImage.restype = ctypes.POINTER(self.XImage)
        x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        x.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                 ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                                 ctypes.POINTER(ctypes.c_uint)]
        x.XGetClassHint.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(self.XClassHint)]
        x.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(self.XWindowAttributes)]
        x.XFree.argtypes = [ctypes.c_void_p]
        x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.dpy = x.XOpenDisplay(display.encode())
        if not self.dpy:
            raise SystemExit(f"cannot open display {display}")
        self.root = x.XDefaultRootWindow(self.dpy)
        attrs = self._attributes(self.root)
        self.width, self.height = attrs.width, attrs.height

    def close(self) -> None:
        """Close the connection to the X server."""
        self.x.XCloseDisplay(self.dpy)

    def _attributes(self, window: int) -> "XScreen.XWindowAttributes":
        attrs = self.XWindowAttributes()
        self.x.XGetWindowAttributes(self.dpy, window, ctypes.byref(attrs))
        return attrs

    def pixels(self, x: int = 0, y: int = 0, width: int = 0, height: int = 0) -> np.ndarray:
        """(height, width) uint32 pixels (0x00RRGGBB) of a rectangle of the screen (default: all of it), read
        from the X server on this connection (none of the application's)."""
        width, height = width or self.width - x, height or self.height - y
        img = self.x.XGetImage(self.dpy, self.root, x, y, width, height, 0xFFFFFFFF, self.Z_PIXMAP)
        if not img:
            return np.zeros((0, 0), np.uint32)
        try:
            im = img.contents
            if im.bits_per_pixel != 32:
                raise SystemExit(f"the X screen has {im.bits_per_pixel} bits per pixel; start Xvfb with depth 24")
            raw = np.ctypeslib.as_array(im.data, shape=(im.height * im.bytes_per_line,))
            return raw.view(np.uint32).reshape(im.height, im.bytes_per_line // 4)[:, :im.width].copy()
        finally:
            self.x.XFree(img.contents.data)
            self.x.XFree(img)

    def grey_stddev(self, x: int = 0, y: int = 0, width: int = 0, height: int = 0, stride: int = 2) -> float:
        """Grey-level standard deviation (0..1) of a rectangle of the screen (default: all of it), every
        ``stride``-th pixel in each direction (0 = one colour)."""
        pix = self.pixels(x, y, width, height)[::stride, ::stride]
        if pix.size == 0:
            return 0.0
        grey = (0.299 * ((pix >> 16) & 255) + 0.587 * ((pix >> 8) & 255) + 0.114 * (pix & 255)) / 255.0
        return float(grey.std())

    def top_level_windows(self) -> list[tuple[str, int, int, int, int, bool]]:
        """(class, x, y, width, height, viewable) of the root window's children (no window manager: the
        applications' top-level windows). The class (WM_CLASS, "BERT Explorer" for the app's windows) is
        ASCII, where the title (WM_NAME) is compound text once it holds a dash."""
        root_ret, parent_ret = ctypes.c_ulong(), ctypes.c_ulong()
        children, n = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
        if not self.x.XQueryTree(self.dpy, self.root, ctypes.byref(root_ret), ctypes.byref(parent_ret),
                                 ctypes.byref(children), ctypes.byref(n)):
            return []
        found = []
        try:
            for k in range(n.value):
                w = children[k]
                hint = self.XClassHint()
                text = ""
                if self.x.XGetClassHint(self.dpy, w, ctypes.byref(hint)):
                    if hint.res_class:
                        text = ctypes.string_at(hint.res_class).decode("utf-8", "replace")
                    for ptr in (hint.res_name, hint.res_class):
                        if ptr:
                            self.x.XFree(ptr)
                a = self._attributes(w)
                found.append((text, a.x, a.y, a.width, a.height, a.map_state == self.IS_VIEWABLE))
        finally:
            if children:
                self.x.XFree(children)
        return found

    def main_window_painted(self) -> bool:
        """A viewable top-level window of class "BERT Explorer" at least 800 px wide is on screen and its
        area is not one colour (painted, not only mapped)."""
        for name, x, y, w, h, viewable in self.top_level_windows():
            if viewable and name == "BERT Explorer" and w >= 800:
                x0, y0 = max(0, x), max(0, y)
                w, h = min(w, self.width - x0), min(h, self.height - y0)
                if w > 0 and h > 0 and self.grey_stddev(x0, y0, w, h) > BLANK_STDDEV:
                    return True
        return False


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def one_start(screen: XScreen, display: str, timeout: float
              ) -> tuple[float | None, float | None, float | None, float | None]:
    """(seconds to the first non-uniform frame, seconds to the main window painted, the app's CPU seconds at
    each) of one start, None where not seen."""
    work = Path(tempfile.mkdtemp(prefix="startup-time-"))
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", HF_HUB_OFFLINE="1",
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # as on a user's machine: byte code cached after the first start
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "explorer", "--runs-dir", str(work / "runs"),
                             "--settings", str(work / "settings.ini")], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = window = first_cpu = window_cpu = None
    try:
        while time.perf_counter() - t0 < timeout and proc.poll() is None:
            now = time.perf_counter() - t0
            cpu = cpu_seconds(proc.pid)   # read before the checks: the CPU time at (or just before) the sight
            if first is None and screen.grey_stddev() > BLANK_STDDEV:
                first, first_cpu = now, cpu
            if first is not None and window is None and screen.main_window_painted():
                window, window_cpu = now, cpu
            if first is not None and window is not None:
                break
            time.sleep(0.02)
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
    p.add_argument("--warmup", type=int, default=1,
                   help="untimed starts first (byte code compiled and cached, files in the page cache), as for a "
                        "user's second start")
    sys.path.insert(0, str(REPO))
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(p)
    args = p.parse_args(argv)
    load0 = load_average()
    xvfb, display = start_xvfb(args.size)
    screen = XScreen(display)
    firsts, windows, first_cpus, window_cpus = [], [], [], []
    poll_cpu0 = time.process_time()
    try:
        for _ in range(args.warmup):
            one_start(screen, display, args.timeout)
        poll_cpu0 = time.process_time()
        for k in range(args.runs):
            first, window, first_cpu, window_cpu = one_start(screen, display, args.timeout)
            firsts.append(first)
            windows.append(window)
            first_cpus.append(first_cpu)
            window_cpus.append(window_cpu)
            fmt = lambda s: "not seen" if s is None else f"{s:.1f} s"   # noqa: E731
            print(f"start {k + 1}: first frame {fmt(first)}, main window {fmt(window)} "
                  f"(CPU {fmt(first_cpu)}, {fmt(window_cpu)})", flush=True)
    finally:
        screen.close()
        xvfb.terminate()
        xvfb.wait(10)
    print(json.dumps({"poll_cpu_s": round(time.process_time() - poll_cpu0, 2),
                      "first_frame_s": [None if s is None else round(s, 2) for s in firsts],
                      "main_window_s": [None if s is None else round(s, 2) for s in windows],
                      "first_frame_cpu_s": [None if s is None else round(s, 2) for s in first_cpus],
                      "main_window_cpu_s": [None if s is None else round(s, 2) for s in window_cpus],
                      "load": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(), "size": args.size}))
    seen = lambda xs: sorted(x for x in xs if x is not None)   # noqa: E731
    figures = {}
    for what, xs in (("first frame (s)", firsts), ("main window painted (s)", windows),
                     ("app CPU to the first frame (s)", first_cpus), ("app CPU to the main window (s)", window_cpus)):
        if seen(xs):
            figures[f"{what}, median"] = seen(xs)[len(seen(xs)) // 2]
            figures[f"{what}, slowest"] = seen(xs)[-1]
    if figures:
        record(args, "startup_time", case=f"{args.size}, {args.runs} start(s)", figures=figures, load_start=load0)
    return 0 if all(s is not None for s in firsts + windows) else 1


if __name__ == "__main__":
    sys.exit(main())
