"""Suspected label errors against known flips: SST-2 training labels, 5% flipped at random, checked by cleanlab.

The out-of-fold probabilities come from a cheap model (TF-IDF word 1-2-grams + logistic regression, 5 stratified
folds, scikit-learn) so the whole training set is checked on a CPU; the flagging is the app's
(explorer.core.studies.label_issues.find_suspects). Precision: the share of flagged rows that were flipped;
recall: the share of flips flagged. The reference measured in the same run is flagging the same number of rows
at random, whose precision is the flip rate: the ratio is precision / flip rate (the lift over chance).

    python scripts/bench_label_issues.py --data ../shared/data/glue_sst2/train.tsv            # all 67,349 rows
    python scripts/bench_label_issues.py --data ... --rows 2000 --results                      # a slice, recorded
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


def read_sst2(path: str | Path) -> tuple[list[str], np.ndarray]:
    """SST-2's ``sentence<TAB>label`` rows (header line; no quoting) as (texts, labels 0/1)."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    return [r[0] for r in rows], np.asarray([int(r[1]) for r in rows])


def out_of_fold_probabilities(texts: list[str], labels: np.ndarray, seed: int = 0, folds: int = 5) -> np.ndarray:
    """(n, 2) out-of-fold probabilities of TF-IDF + logistic regression (sklearn cross_val_predict)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                          LogisticRegression(C=4.0, max_iter=1000))
    return cross_val_predict(model, texts, labels, cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
                             method="predict_proba")


def flipped_sst2_check(path: str | Path, *, n: int = 0, seed: int = 0, rate: float = 0.05) -> dict:
    """Flip ``rate`` of the labels of ``n`` random SST-2 rows (0: all) with ``seed``, flag suspects from
    out-of-fold probabilities, and compare: rows, flipped, flagged, precision, recall, the precision of the
    as-many-as-flipped most suspect rows (the ranking), random precision (the same number of rows flagged at
    random, same seed), seconds."""
    from explorer.core.studies.label_issues import find_suspects

    texts, labels = read_sst2(path)
    rng = np.random.default_rng(seed)
    if n and n < len(labels):
        keep = np.sort(rng.permutation(len(labels))[:n])
        texts, labels = [texts[i] for i in keep], labels[keep]
    flips = rng.random(len(labels)) < rate
    given = np.where(flips, 1 - labels, labels)
    start = time.perf_counter()
    probs = out_of_fold_probabilities(texts, given, seed)
    issues = find_suspects(given, probs, ["0", "1"])
    seconds = time.perf_counter() - start
    flagged = np.zeros(len(labels), bool)
    flagged[issues.rows] = True
    at_random = np.zeros(len(labels), bool)
    at_random[rng.permutation(len(labels))[:flagged.sum()]] = True
    hit = int((flagged & flips).sum())
    top = issues.rows[:int(flips.sum())]          # the ranking: as many top suspects as there are flips
    return {"rows": len(labels), "flipped": int(flips.sum()), "flagged": int(flagged.sum()),
            "precision": hit / max(int(flagged.sum()), 1), "recall": hit / max(int(flips.sum()), 1),
            "precision of the top-ranked (as many as flips)": float(flips[top].mean()) if top else 0.0,
            "random precision": float((at_random & flips).sum() / max(int(at_random.sum()), 1)),
            "seconds": seconds}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="SST-2 train.tsv (sentence<TAB>label, header line)")
    ap.add_argument("--rows", type=int, default=0, help="a random slice of this many rows (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rate", type=float, default=0.05, help="share of labels flipped")
    add_results_argument(ap)
    args = ap.parse_args(argv)
    load_start = load_average()
    r = flipped_sst2_check(args.data, n=args.rows, seed=args.seed, rate=args.rate)
    print(f"{r['rows']} rows, {r['flipped']} flipped, {r['flagged']} flagged: precision {r['precision']:.3f}, "
          f"recall {r['recall']:.3f}, top-ranked precision "
          f"{r['precision of the top-ranked (as many as flips)']:.3f}; random flagging precision {r['random precision']:.3f} "
          f"(lift {r['precision'] / args.rate:.1f}x over the flip rate); {r['seconds']:.1f} s")
    record(args, "bench_label_issues", case=f"SST-2 train, {r['rows']} rows, {args.rate:.0%} flipped, seed {args.seed}, "
           "TF-IDF + logistic regression 5-fold out-of-fold", load_start=load_start,
           ratios={"precision / flip rate": r["precision"] / args.rate,
                   "precision / random flagging precision": r["precision"] / max(r["random precision"], 1e-9)},
           figures={k: v for k, v in r.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
