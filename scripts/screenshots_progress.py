"""Screenshots of every long GUI job mid-progress (offscreen, 1280x800): the shared progress row with its count,
the time left at the measured rate and Cancel.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_progress.py OUT_DIR [--seconds 1.5]

Each page is built on its own and given a slow fake job: a client that answers no request and sends the progress
reports of a 2,478-row dev set (or a 24,783-row file, a 1.6 GB download, five fold runs) over ``--seconds``, so
the rate is measured as in a real job and the picture shows the estimate, not "estimating …". The pages
are the product's; only the job is fake. Writes OUT_DIR/<page>_progress.png and prints each path.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class SlowClient:
    """The inspector child's side, answering nothing: the script sends each request's progress by hand."""

    def __init__(self):
        self.requests: list = []
        self.cancelled: list = []

    def request(self, op, data, on_done=None, on_error=None, on_progress=None):
        self.requests.append((op, on_progress))
        return len(self.requests)

    def cancel(self, rid):
        self.cancelled.append(rid)

    def progress(self):
        return self.requests[-1][1]


def feed(app, report, total: int, upto: float, seconds: float, steps: int = 6) -> None:
    """Report ``total`` x (0 .. ``upto``) in ``steps`` reports spread over ``seconds`` of real time."""
    for k in range(steps + 1):
        report(int(total * upto * k / steps), total)
        end = time.monotonic() + seconds / steps
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)


def grab(app, widget, out: Path, name: str) -> None:
    widget.resize(1280, 800)
    widget.show()
    for _ in range(3):
        app.processEvents()
    path = out / f"{name}_progress.png"
    widget.grab().save(str(path))
    print(path, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="folder for the PNGs")
    p.add_argument("--seconds", type=float, default=1.5, help="real time each fake job reports over")
    a = p.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    from PySide6.QtWidgets import QApplication

    from explorer.core.runs.store import RunStore
    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.inspectors.classify_dev_view import ClassifyDevView
    from explorer.ui.inspectors.dev_view import DevTauView
    from explorer.ui.inspectors.embeddings_view import EmbeddingsView
    from explorer.ui.inspectors.explain_view import ExplainView
    from explorer.ui.inspectors.layer_probes_view import LayerProbesView
    from explorer.ui.inspectors.predictions_view import PredictDialog
    from explorer.ui.inspectors.tag_view import tag_tabs
    from explorer.ui.runs.bridge import StoreBridge
    from explorer.ui.runs.state import RunState

    app = QApplication.instance() or QApplication([])
    loaded = type("Loaded", (), {"slot": "classify", "source": "runs/tweets/checkpoints/best", "path": "",
                                 "model": None})()

    client = SlowClient()
    page = ClassifyDevView(lambda: loaded, lambda: "single", client=client)
    page.path.setText("data/tweets/dev.csv")
    page.run()
    feed(app, client.progress(), 2478, 0.26, a.seconds)
    grab(app, page, out, "classify_dev")

    client = SlowClient()
    (_, tag), (_, tag_dev) = tag_tabs()
    tag.client = client
    tag.loaded = loaded
    tag_dev._job.client = client
    tag_dev.path.setText("data/conll2003/dev.txt")
    tag_dev.run()
    feed(app, client.progress(), 3453, 0.4, a.seconds)
    grab(app, tag_dev, out, "tag_dev")

    client = SlowClient()
    tau = DevTauView(client=client)
    tau.loaded = type("Loaded", (), {"slot": "qa", "source": "runs/squad2/checkpoints/best", "path": ""})()
    dev_json = out / "dev-v2.0.json"
    dev_json.write_text('{"data": []}', encoding="utf-8")
    tau.run(str(dev_json))
    feed(app, client.progress(), 12232, 0.3, a.seconds)
    grab(app, tau, out, "tau_dev")
    dev_json.unlink()

    client = SlowClient()
    emb = EmbeddingsView(client=client)
    emb.corpus.setText("data/tweets/train.csv")
    emb.word.setText("bank")
    emb.embed()
    feed(app, client.progress(), 2000, 0.55, a.seconds)
    grab(app, emb, out, "embeddings")

    client = SlowClient()
    predict = PredictDialog("runs/tweets/checkpoints/best", client=client)
    predict.data_edit.setText("data/tweets/new.csv")
    predict.out_edit.setText("data/tweets/new.predictions.csv")
    predict.start()
    feed(app, client.progress(), 24783, 0.2, a.seconds)
    grab(app, predict, out, "predict")

    store = RunStore(None)
    bridge = StoreBridge(store)
    ids = [f"cv-tweets-fold{k}" for k in range(5)]
    for run_id in ids:
        store.add(RunState(run_id=run_id, status="queued", steps_total=400))
    groups = GroupsTab(out / "runs")
    groups.follow_group("cv-tweets", ids, bridge)
    store.get(ids[0]).status = "running"
    for k in range(7):   # the first fold trains, a step event at a time
        store.get(ids[0]).step = 40 * k
        store.changed(ids[0])
        feed(app, lambda *_: None, 1, 0, a.seconds / 7, steps=1)
    grab(app, groups, out, "group")

    groups.oof_client = client = SlowClient()   # the fold runs are in: their held-out folds are predicted
    groups._predict_folds(type("Group", (), {"kind": "cv", "name": "cv-tweets"})(),
                          [type("Member", (), {"status": "finished"})()] * 5, None)
    feed(app, client.progress(), 24783, 0.35, a.seconds)
    grab(app, groups, out, "group_folds")

    client = SlowClient()
    probes = LayerProbesView(client=client)
    probes.model.setText("runs/sst2/checkpoints/best")
    probes.run_probes()
    feed(app, client.progress(), 78, 0.3, a.seconds)
    grab(app, probes, out, "layer_probes")

    client = SlowClient()
    explain = ExplainView(client=client)
    explain.loaded = type("Loaded", (), {"source": "runs/sst2/checkpoints/best", "head_initialised": False})()
    explain.text_a.setText("a gripping, beautifully shot film")
    explain.explain()
    feed(app, client.progress(), 10, 0.5, a.seconds)
    grab(app, explain, out, "explain")
    return 0


if __name__ == "__main__":
    sys.exit(main())
