"""Screenshots of the Predictions page, offscreen, into /tmp/shots/ (never into the repository).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_predictions.py [--out /tmp/shots]

A tiny random classifier (tests/helpers.py) labels 2,000 short texts with a gold and a person's label column;
two rows are corrected and one marked reviewed, then the page and the Predict dialog are grabbed to PNG.
With ``--checkpoint CKPT --data FILE`` a real classifier labels a real file instead (e.g. an SST-2 run's best
checkpoint on the SST-2 dev file), for the user guide's picture.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/shots")
    ap.add_argument("--checkpoint", default="", help="a classifier checkpoint to label --data with (default: a "
                    "tiny random classifier on made-up texts)")
    ap.add_argument("--data", default="", help="the file --checkpoint labels")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from helpers import save_tiny_model
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="shots_predictions_"))
    ckpt = save_tiny_model(tmp / "runs" / "run1" / "checkpoints" / "best", "classification", num_labels=3, seed=3)
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["id2label"] = {"0": "AGAINST", "1": "FAVOR", "2": "NONE"}
    cfg["label2id"] = {v: int(k) for k, v in cfg["id2label"].items()}
    (ckpt / "config.json").write_text(json.dumps(cfg))
    import numpy as np

    rng = np.random.default_rng(0)
    words = "the a good bad fine worst city river model answer year first name of in".split()
    data = tmp / "tweets.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["ID", "Tweet", "Stance", "annotator"])
        for i in range(2000):
            names = ["AGAINST", "FAVOR", "NONE"]
            w.writerow([1000 + i, " ".join(rng.choice(words, size=int(rng.integers(3, 14)))),
                        names[int(rng.integers(0, 3))], names[int(rng.integers(0, 3))]])
    from explorer.core.predict.engine import predict_file
    from explorer.ui.inspectors.predictions_view import PredictDialog, PredictionsView

    corrections = ((0, "AGAINST"), (1, "NONE"))
    if args.checkpoint:
        ckpt, data = Path(args.checkpoint), Path(args.data)
        names = list(json.loads((ckpt / "config.json").read_text())["id2label"].values())
        corrections = ((0, names[-1]), (1, names[0]))
    (tmp / "labelled").mkdir()      # apart from the QA file below, whose name may be the same
    summary = predict_file(str(ckpt), str(data), str(tmp / "labelled" / f"{data.stem}.predictions.csv")).to_dict()
    page = PredictionsView()
    page.resize(1400, 760)
    page.open(summary["out"], summary)
    if not args.checkpoint:
        page.person.setCurrentText("annotator")
    for row, label in corrections:
        page.view.selectRow(row)
        page.set_label(page.current_row(), label)
    page.view.selectRow(2)
    page.mark_reviewed(page.current_row())
    page.view.selectRow(1)
    page.show()
    app.processEvents()
    page.grab().save(str(out / "predictions_page.png"))
    page.filter.setCurrentText(corrections[1][1])
    app.processEvents()
    page.grab().save(str(out / "predictions_filtered.png"))
    dialog = PredictDialog(str(ckpt), client=object())
    dialog.set_data(str(data))
    dialog.resize(640, 420)
    import time

    dialog._t0 = time.perf_counter() - 3.0     # as if started 3 s ago
    dialog._progress(1200, 2000)
    dialog.show()
    app.processEvents()
    dialog.grab().save(str(out / "predict_dialog.png"))
    from helpers import write_tiny_squad

    qa = save_tiny_model(tmp / "qa", "qa", seed=1)
    squad = write_tiny_squad(tmp / "dev.json", repeat=3)
    qa_summary = predict_file(str(qa), str(squad), str(tmp / "dev.predictions.csv"), tau=0.5).to_dict()
    qa_page = PredictionsView()
    qa_page.resize(1400, 600)
    qa_page.open(qa_summary["out"], qa_summary)
    qa_page.show()
    app.processEvents()
    qa_page.grab().save(str(out / "predictions_qa.png"))
    names = ("predictions_page.png", "predictions_filtered.png", "predict_dialog.png", "predictions_qa.png")
    print("\n".join(str(out / n) for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
