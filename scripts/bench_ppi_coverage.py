"""Coverage of naive and prediction-powered class-share intervals, by simulation on the SemEval-2016 stance data.

The model is a cheap classifier (TF-IDF + logistic regression, 5-fold out-of-fold predictions of every tweet,
scikit-learn), so its errors are real ones. Each draw takes a uniform random sample of ``--reviewed`` tweets as
the reviewed rows (their gold stance known) and the rest as the predicted file; the target is each class's
share among all 2,814 tweets. The reference measured in the same run is the naive interval (predicted labels
counted as if right): the ratio is corrected coverage / naive coverage. Intervals: explorer.core.metrics.ppi
(ppi-python).

    python scripts/bench_ppi_coverage.py --data ../shared/data/stance_semeval2016/train.txt --draws 500 --results
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.benchmarks import add_results_argument, load_average, record  # noqa: E402

CLASSES = ["AGAINST", "FAVOR", "NONE"]


def read_stance(path: str | Path) -> tuple[list[str], list[str]]:
    """The stance file's (tweets prefixed by their target, stances): tab-separated, header, Windows-1252."""
    with open(path, encoding="cp1252", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    return [f"{r[1]} : {r[2]}" for r in rows], [r[3] for r in rows]


def out_of_fold_labels(texts: list[str], labels: list[str], seed: int = 0) -> list[str]:
    """Every tweet's label from a TF-IDF + logistic regression model that did not train on it (5 folds)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2),
                          LogisticRegression(C=2.0, max_iter=1000))
    return cross_val_predict(model, texts, labels, cv=StratifiedKFold(5, shuffle=True, random_state=seed)).tolist()


def coverage(path: str | Path, *, draws: int = 500, reviewed: int = 300, seed: int = 0, level: float = 0.95) -> dict:
    """Share of ``draws`` in which each kind of interval covers each class's true share, and their mean widths."""
    from explorer.core.metrics.ppi import class_shares

    texts, gold = read_stance(path)
    predicted = np.asarray(out_of_fold_labels(texts, gold, seed))
    gold = np.asarray(gold)
    truth = {c: float(np.mean(gold == c)) for c in CLASSES}
    rng = np.random.default_rng(seed)
    hits = {kind: {c: 0 for c in CLASSES} for kind in ("naive", "corrected", "gold")}
    widths = {kind: [] for kind in hits}
    start = time.perf_counter()
    for _ in range(draws):
        sample = rng.choice(len(gold), reviewed, replace=False)
        shown = np.full(len(gold), "", dtype=object)
        shown[sample] = gold[sample]
        report = class_shares(predicted.tolist(), shown.tolist(), CLASSES, level=level)
        for c in report.classes:
            for kind in hits:
                iv = getattr(c, kind)
                hits[kind][c.label] += iv.low <= truth[c.label] <= iv.high
                widths[kind].append(iv.width)
    out = {"accuracy": float(np.mean(predicted == gold)), "seconds": time.perf_counter() - start,
           "truth": truth, "predicted share": {c: float(np.mean(predicted == c)) for c in CLASSES}}
    for kind in hits:
        out[f"{kind} coverage"] = {c: hits[kind][c] / draws for c in CLASSES}
        out[f"{kind} mean width"] = float(np.mean(widths[kind]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="stance_semeval2016/train.txt")
    ap.add_argument("--draws", type=int, default=500)
    ap.add_argument("--reviewed", type=int, default=300, help="reviewed rows per draw")
    ap.add_argument("--seed", type=int, default=0)
    add_results_argument(ap)
    args = ap.parse_args(argv)
    load_start = load_average()
    r = coverage(args.data, draws=args.draws, reviewed=args.reviewed, seed=args.seed)
    print(f"model accuracy {r['accuracy']:.3f}; {args.draws} draws of {args.reviewed} reviewed rows; {r['seconds']:.1f} s")
    for c in CLASSES:
        print(f"{c:<8} true {r['truth'][c]:.3f}, predicted {r['predicted share'][c]:.3f}: coverage naive "
              f"{r['naive coverage'][c]:.3f}, reviewed rows alone {r['gold coverage'][c]:.3f}, "
              f"prediction-powered {r['corrected coverage'][c]:.3f}")
    print(f"mean widths: naive {r['naive mean width']:.4f}, reviewed rows alone {r['gold mean width']:.4f}, "
          f"prediction-powered {r['corrected mean width']:.4f}")
    worst = min(r["corrected coverage"].values())
    naive_worst = min(r["naive coverage"].values())
    figures = {"model accuracy": r["accuracy"], "seconds": r["seconds"],
               "mean width, reviewed rows alone": r["gold mean width"],
               "mean width, prediction-powered": r["corrected mean width"],
               **{f"coverage {kind} {c}": r[f"{kind} coverage"][c] for kind in ("naive", "gold", "corrected")
                  for c in CLASSES}}
    record(args, "bench_ppi_coverage", load_start=load_start,
           case=f"stance_semeval2016, {args.draws} draws of {args.reviewed} reviewed rows, seed {args.seed}, 95% intervals",
           ratios={"worst corrected coverage / worst naive coverage": worst / max(naive_worst, 1e-9),
                   "prediction-powered width / reviewed-rows-alone width":
                       r["corrected mean width"] / r["gold mean width"]},
           figures=figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
