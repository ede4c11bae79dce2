"""Screenshots of the Embeddings page on the bundled encoder with the shared SQuAD passages.

    EXPLORER_REAL_DATA=../shared/data QT_QPA_PLATFORM=offscreen python scripts/screenshots_embeddings.py \
        [--word capital] [--out /tmp/emb_shots] [--model bundled:minilm] [--size 1280x800]

Writes ``squad_passages.tsv`` (every passage of the SQuAD files under $EXPLORER_REAL_DATA once, with its
article title) into ``--out``, opens the page with the real inspector child, embeds every occurrence of
``--word``, and saves PNGs: the last layer coloured by article title (a point hovered), layer 0 and a middle
layer in the same shared PCA frame, k-means clusters with a point's nearest neighbours, and t-SNE.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

SQUAD_FILES = ("squad_v1.1/train-subset.json", "squad_v1.1/dev-part1.json", "squad_v2.0/train-subset.json",
               "squad_v2.0/dev-subset.json")


def write_passages(real: Path, out: Path) -> Path:
    """Every SQuAD passage once (text, title) as a TSV; returns its path."""
    from explorer.core.embeddings.corpus import read_corpus

    seen, rows = set(), []
    for name in SQUAD_FILES:
        if (real / name).is_file():
            corpus = read_corpus(real / name)
            for text, title in zip(corpus.texts, corpus.columns["title"]):
                if text not in seen:
                    seen.add(text)
                    rows.append((" ".join(text.split()), title))
    path = out / "squad_passages.tsv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["text", "title"])
        w.writerows(rows)
    return path


def wait(signal, timeout_s: float = 900.0):
    """Run the event loop until ``signal`` fires (returns its arguments) or the timeout (raises)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop, got = QEventLoop(), []
    signal.connect(lambda *a: (got.append(a), loop.quit()))
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    loop.exec()
    if not got:
        raise TimeoutError(f"no {signal} within {timeout_s} s")
    return got[0]


def shoot_word(view, app, args, corpus, wait, grab) -> None:
    """The word-in-context shots (see the module docstring)."""
    from explorer.ui.inspectors.embeddings_view import KMEANS

    out = Path(args.out)
    view.corpus.setText(str(corpus))
    view.word.setText(args.word)
    view.cap.setValue(0)
    view.embed()
    summary = wait(view.space_ready)[0]
    wait(view.drawn)
    print(f"'{args.word}': {summary.n_points} occurrences ({summary.total} found) in {corpus}; {summary.notes}")
    view.colour.setCurrentText("title")
    app.processEvents()
    titles = summary.columns["title"]
    finance = next((i for i, t in enumerate(titles) if "Financial" in t), 0)
    view.show_point(finance)
    app.processEvents()
    grab(f"{args.word}_last_layer_by_title")
    for layer in (0, len(summary.layers) // 2):
        view.layer.setValue(layer)
        wait(view.drawn)
        view.show_point(finance)
        grab(f"{args.word}_layer{layer}_by_title")
    view.layer.setValue(len(summary.layers) - 1)
    app.processEvents()
    view.colour.setCurrentText(KMEANS)
    wait(view.drawn)
    view.select(finance)
    wait(view.neighbours_ready)
    grab(f"{args.word}_last_layer_kmeans_neighbours")
    view.colour.setCurrentText("title")
    view.method.setCurrentIndex(view.method.findData("tsne"))
    wait(view.drawn)
    view.show_point(finance)
    grab(f"{args.word}_last_layer_tsne_by_title")
    view.save_image(str(out / f"embeddings_{args.word}_plot.svg"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--word", default="capital")
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--out", default="/tmp/emb_shots")
    ap.add_argument("--size", default="1280x800")
    ap.add_argument("--classifier", default="",
                    help="a fine-tuned SST-2 checkpoint: also shoot the SST-2 dev set's [CLS] vectors of --model "
                         "vs this checkpoint in one aligned map")
    args = ap.parse_args()
    real = Path(os.environ.get("EXPLORER_REAL_DATA", ""))
    if not real.is_dir():
        print("set EXPLORER_REAL_DATA to the shared data folder", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    corpus = write_passages(real, out)

    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    from explorer.ui.inspectors.embeddings_view import EmbeddingsView

    width, height = (int(v) for v in args.size.split("x"))
    view = EmbeddingsView()
    view.resize(width, height)
    view.show()
    view.model.setText(args.model)
    shots = []

    def grab(name: str) -> None:
        app.processEvents()
        path = out / f"embeddings_{name}.png"
        view.grab().save(str(path))
        shots.append(path)

    if args.word:
        shoot_word(view, app, args, corpus, wait, grab)
    if args.classifier:
        view.method.setCurrentIndex(view.method.findData("pca"))
        view.mode.setCurrentText("sentences")
        view.pooling.setCurrentText("cls")
        view.model_b.setText(args.classifier)
        view.corpus.setText(str(real / "glue_sst2" / "dev.tsv"))
        view.text_column.setText("sentence")
        view.embed()
        summary = wait(view.space_ready)[0]
        wait(view.drawn)
        print(f"SST-2 dev: {summary.n_points} points; {summary.notes}")
        for by in ("model", "label", "predicted"):
            if view.colour.findText(by) >= 0:
                view.colour.setCurrentText(by)
                app.processEvents()
                wait(view.drawn) if view.projection is None else None
                view.show_point(summary.n_points - 1)
                grab(f"sst2_dev_cls_before_after_by_{by}")
    for path in shots:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
