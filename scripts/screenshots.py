"""Screenshots of the real app, offscreen, from a short run it makes itself (for the user guide).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py OUT_DIR [--steps 30] [--eval-every 10]

Starts the main window offscreen (temp runs folder, settings and cache), fills the launcher with
launcher.png as the first start shows it, then the SQuAD 2.0 sample (squad_v2_sample_train.json, dev
squad_v2_sample_dev.json, fast-CPU settings; --sample v1: the answerable sample and task squad_v1, as the
offline default) capped at --steps optimizer steps, clicks Launch (the
real worker process), waits for it to finish, then clicks "Open best checkpoint in inspectors",
probes an example of resources/examples/probe_examples.json, and runs the τ sweep on the v2 sample dev
file. Writes OUT_DIR/launcher.png, curves.png, attention.png, spans.png, tau.png (whole window,
each PNG scaled down until it is under --max-kb) and prints what it did with timings.

``AppDriver`` (below) is the same driving code scripts/demo_end_to_end.py uses.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TAB_LAUNCH, TAB_CURVES, TAB_ATTENTION, TAB_SPANS, TAB_TAU = "Launch", "Curves", "Attention", "Spans && τ", \
    "τ on dev set"


class DriverError(RuntimeError):
    """Something the driver waited for did not happen (the message says what, and the app's state)."""


class AppDriver:
    """Drives the real main window as a user would: the form's editors, its buttons, the Runs list.

    Everything is asynchronous in the app, so each action is followed by :meth:`wait_until`, which
    spins the Qt event loop until a condition holds (DriverError after ``timeout`` seconds).
    """

    def __init__(self, runs_dir: str | Path, settings_path: str | Path, size: tuple[int, int] = (1500, 940)):
        from explorer.ui.app import create_window

        self.app, self.win = create_window(str(runs_dir), str(settings_path))
        self.win.resize(*size)
        self.win.show()
        self.runs_dir = Path(runs_dir)

    # ---- event loop ----------------------------------------------------------------------
    def wait(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.005)

    def wait_until(self, predicate, timeout: float, what: str, tick=None) -> float:
        """Spin until predicate() is true; returns the seconds waited. ``tick()`` runs ~every 0.2 s."""
        t0 = time.monotonic()
        while not predicate():
            if time.monotonic() - t0 > timeout:
                raise DriverError(f"timed out after {timeout:.0f} s waiting for {what} "
                                  f"(status bar: {self.win.statusBar().currentMessage()!r})")
            self.wait(0.2)
            if tick is not None:
                tick()
        return time.monotonic() - t0

    # ---- launcher ------------------------------------------------------------------------
    def show_tab(self, title: str) -> None:
        tabs = self.win.tabs
        for i in range(tabs.count()):
            if tabs.tabText(i) == title:
                tabs.setCurrentIndex(i)
                self.wait(0.3)
                return
        raise DriverError(f"no tab {title!r}; tabs: {[tabs.tabText(i) for i in range(tabs.count())]}")

    def fill_form(self, **values) -> None:
        """Set launcher fields through their editors (as typing would); watch= sets the watch table."""
        launcher = self.win.launcher
        for name, value in values.items():
            if name == "watch":
                launcher.watch.set(value)
            elif name in launcher.editors:
                launcher.editors[name].set(value)
            else:
                raise DriverError(f"the launcher has no field {name!r}")
        self.app.processEvents()

    def wait_previews(self, timeout: float = 120) -> None:
        launcher = self.win.launcher
        launcher.refresh_previews()
        self.wait_until(lambda: launcher.train_preview.result is not None
                        and (not launcher.config().dev or launcher.dev_preview.result is not None),
                        timeout, "the launcher's data previews")

    def click(self, button) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        if not button.isEnabled():
            raise DriverError(f"button {button.text()!r} is disabled "
                              f"(launcher says: {self.win.launcher.problem.text()!r})")
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        self.app.processEvents()

    def launch(self) -> str:
        """Click Launch; returns the new run id."""
        before = set(self.win.manager.states)
        self.click(self.win.launcher.launch_btn)
        new = [r for r in self.win.manager.states if r not in before]
        if not new:
            raise DriverError(f"Launch started nothing: {self.win.launcher.problem.text()!r}")
        return new[0]

    def state(self, run_id: str):
        return self.win.manager.states[run_id]

    def wait_run_done(self, run_id: str, timeout: float, tick=None) -> float:
        state = self.state(run_id)
        return self.wait_until(lambda: not state.is_live, timeout, f"run {run_id} to end", tick=tick)

    def stop_early(self, run_id: str) -> None:
        """Select the run in the Runs list and click "Stop early"."""
        self.win.runs.select([run_id])
        self.app.processEvents()
        self.click(self.win.runs.stop_btn)

    # ---- inspectors ----------------------------------------------------------------------
    def open_best_checkpoint(self, run_id: str, timeout: float = 300) -> str:
        """Select the run, click "Open best checkpoint in inspectors", wait until it is loaded."""
        runs = self.win.runs
        runs.select([run_id])
        self.app.processEvents()
        path = runs.state(run_id).best_checkpoint_path()
        self.click(runs.inspect_btn)
        hub = self.win.hub
        self.wait_until(lambda: hub.loaded is not None and hub.loaded.source == path, timeout,
                        f"the inspectors to load {path}")
        return path

    def probe(self, question: str, passage: str, timeout: float = 300):
        """Probe (question, passage) with the inspectors' model; returns the ProbeResult shown."""
        hub = self.win.hub
        source = hub.loaded.source if hub.loaded is not None else None
        hub.open_example(question, passage)
        self.wait_until(lambda: hub.result is not None and hub.result.question == question
                        and hub.result.passage == passage and (source is None or hub.result.source == source)
                        and not hub.probes._outstanding, timeout, "the probe result")
        self.wait(0.5)   # views repaint
        return hub.result

    def tau_study(self, path: str, cap: int = 0, timeout: float = 900):
        """Run the τ-on-dev-set sweep through its panel; returns (TauStudy, StudyFigures)."""
        view = self.win.hub.dev_view
        view.study = None
        view.cap.setValue(int(cap))
        view.path.setText(str(path))
        self.click(view.run_button)
        self.wait_until(lambda: view.study is not None or (view.run_button.isEnabled()
                                                           and view.status.styleSheet() != ""),
                        timeout, "the τ sweep")
        if view.study is None:
            raise DriverError(f"the τ sweep failed: {view.status.text()}")
        self.wait(0.5)
        return view.study, view.figures

    # ---- screenshots ---------------------------------------------------------------------
    def grab(self, path: str | Path, max_kb: int = 300) -> tuple[int, int, int]:
        """Save the whole window as PNG, scaled down until under max_kb; returns (w, h, bytes)."""
        from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt

        self.app.processEvents()
        pixmap = self.win.grab()
        scale = 1.0
        while True:
            img = pixmap if scale == 1.0 else pixmap.scaledToWidth(int(pixmap.width() * scale),
                                                                   Qt.TransformationMode.SmoothTransformation)
            data = QByteArray()
            buf = QBuffer(data)
            buf.open(QIODevice.OpenModeFlag.WriteOnly)
            img.save(buf, "PNG")
            buf.close()
            if data.size() <= max_kb * 1024 or scale < 0.4:
                break
            scale *= 0.9
        Path(path).write_bytes(bytes(data.data()))
        return img.width(), img.height(), int(data.size())

    def close(self) -> None:
        from PySide6.QtCore import QCoreApplication, QEvent

        if self.win.manager.active():
            self.win.manager.cancel_all(wait_ms=10_000)
        self.win.close()
        self.win.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def probe_example(index: int) -> dict:
    examples = json.loads((REPO / "resources" / "examples" / "probe_examples.json").read_text(encoding="utf-8"))
    return examples[index]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="folder for launcher.png, curves.png, attention.png, spans.png, tau.png")
    ap.add_argument("--steps", type=int, default=30, help="optimizer steps of the run (default 30)")
    ap.add_argument("--eval-every", type=int, default=10, help="steps between dev evaluations (default 10)")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--example", type=int, default=1,
                    help="index into resources/examples/probe_examples.json (default 1)")
    ap.add_argument("--max-kb", type=int, default=300, help="largest PNG size; bigger grabs are scaled down")
    ap.add_argument("--timeout", type=float, default=900, help="seconds to wait for the run")
    ap.add_argument("--classify-checkpoint", default="", help="a classifier / SWAG checkpoint: also write "
                    "classify.png, classify_dev.png, classify_opened.png (scripts/screenshots_classify.py)")
    ap.add_argument("--classify-dev", default="", help="the dev file for classify_dev.png")
    ap.add_argument("--launcher-only", action="store_true", help="only the launcher image (no run)")
    ap.add_argument("--sample", choices=["v1", "v2"], default="v2",
                    help="the bundled SQuAD sample the run trains on: v2 (a third unanswerable, task squad_v2; "
                         "default) or v1 (answerable only, task squad_v1, as the offline default); the τ sweep "
                         "always uses the v2 dev sample")
    a = ap.parse_args(argv)

    from explorer.ui.launch.presets import sample_paths

    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="explorer_shots_"))
    os.environ.setdefault("EXPLORER_CACHE_DIR", str(tmp / "cache"))
    t_all = time.monotonic()
    drv = AppDriver(tmp / "runs", tmp / "settings.ini")
    win = drv.win
    try:
        train, dev = sample_paths(a.sample)
        tau_dev = sample_paths("v2")[1]
        drv.show_tab(TAB_LAUNCH)
        drv.wait_previews()     # the launcher as a first start shows it (the README image)
        drv.wait(0.5)
        shot = drv.grab(out / "launcher.png", a.max_kb)
        print(f"launcher.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
        if a.launcher_only:
            return 0
        drv.fill_form(max_steps=a.steps, eval_every=a.eval_every, batch_size=a.batch_size, train=train, dev=dev,
                      task="squad_v1" if a.sample == "v1" else "squad_v2")
        drv.wait_previews()

        t0 = time.monotonic()
        run_id = drv.launch()
        state = drv.state(run_id)
        print(f"launched {run_id}: {win.launcher.command.toPlainText()}", flush=True)
        drv.wait_run_done(run_id, a.timeout)
        t_run = time.monotonic() - t0
        if state.status not in ("finished", "stopped"):
            raise DriverError(f"run {run_id} ended {state.status}: {state.error}")
        best = state.best_metric()
        print(f"run {state.status} in {t_run:.0f} s: {state.step} steps, {len(state.evals)} evaluations, "
              f"device {state.device} {state.mixed_precision}"
              + (f", best dev {best[0]} {best[1]:.2f} at step {best[2]}" if best else ""), flush=True)
        drv.show_tab(TAB_CURVES)
        win.curves.redraw_now()
        drv.wait(1.0)
        shot = drv.grab(out / "curves.png", a.max_kb)
        print(f"curves.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)

        t0 = time.monotonic()
        ckpt = drv.open_best_checkpoint(run_id)
        ex = probe_example(a.example)
        result = drv.probe(ex["question"], ex["passage"])
        d = result.decision()
        print(f"probe of {Path(ckpt).name} checkpoint ({time.monotonic() - t0:.1f} s incl. load): "
              f"{ex['question']!r} -> {d.answer_text or 'no answer'!r} ({d.inequality})", flush=True)
        drv.show_tab(TAB_ATTENTION)
        drv.wait(1.0)
        shot = drv.grab(out / "attention.png", a.max_kb)
        print(f"attention.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
        drv.show_tab(TAB_SPANS)
        drv.wait(1.0)
        shot = drv.grab(out / "spans.png", a.max_kb)
        print(f"spans.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)

        t0 = time.monotonic()
        drv.show_tab(TAB_TAU)
        study, fig = drv.tau_study(tau_dev)
        print(f"τ sweep on {Path(tau_dev).name}: {len(study)} questions in {time.monotonic() - t0:.1f} s, best τ "
              f"{fig.grid.best_tau:+.2f} (F1 {fig.grid.best_f1:.2f})"
              + (f", honest F1 {fig.honest['honest_f1']:.2f}" if fig.honest else ""),
              flush=True)
        shot = drv.grab(out / "tau.png", a.max_kb)
        print(f"tau.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
        if a.classify_checkpoint:
            from screenshots_classify import shoot_classify

            shoot_classify(drv, out, a.classify_checkpoint, a.classify_dev,
                           "a gripping, beautifully acted film that never lets go .", max_kb=a.max_kb)
    finally:
        drv.close()
    print(f"done in {time.monotonic() - t_all:.0f} s; screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
