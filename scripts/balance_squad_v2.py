"""Write a SQuAD 2.0 training file in which unanswerable questions are a chosen share of the questions.

A SQuAD 2.0 subset with few unanswerable questions (a few percent) teaches a model to find answers but hardly
ever to abstain: its [CLS] "no answer" score stays far below its best span, and on a dev set that is half
unanswerable it answers nearly everything. This script repeats each unanswerable question (each copy with its own
id, ``<id>_nN``, since SQuAD ids must be unique) and keeps a seeded sample of the answerable ones, so that about
``--no-answer-share`` of the written questions are unanswerable. Passages are kept; a paragraph left without
questions is dropped. The input file is never changed.

    python scripts/balance_squad_v2.py --train ../shared/data/squad_v2.0/train-subset.json \\
        --out OUT/train-balanced.json [--no-answer-share 0.45] [--repeat 3] [--seed 0]

Prints the counts written (questions, unanswerable, share) as one JSON line.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from pathlib import Path


def _is_unanswerable(qa: dict) -> bool:
    return bool(qa.get("is_impossible")) or not qa.get("answers")


def balance(squad: dict, *, no_answer_share: float, repeat: int, seed: int) -> dict:
    """Return a copy of ``squad`` (official SQuAD JSON: {"version", "data": [{"paragraphs": [{"qas": ...}]}]})
    whose unanswerable questions are each written ``repeat`` times (ids ``<id>_n0``.. after the first) and whose
    answerable questions are a seeded sample sized so that unanswerable questions make ``no_answer_share`` of the
    total (all answerable ones are kept when there are too few). Raises ValueError on a share outside (0, 1), a
    repeat below 1, or data without unanswerable questions."""
    if not 0.0 < no_answer_share < 1.0:
        raise ValueError(f"--no-answer-share must be between 0 and 1 (exclusive), got {no_answer_share}")
    if repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {repeat}")
    refs = [((a, p, q), _is_unanswerable(qa)) for a, art in enumerate(squad["data"])
            for p, par in enumerate(art["paragraphs"]) for q, qa in enumerate(par["qas"])]
    no_ans = [ref for ref, unanswerable in refs if unanswerable]
    has_ans = [ref for ref, unanswerable in refs if not unanswerable]
    if not no_ans:
        raise ValueError("the training file holds no unanswerable question (is_impossible true / no answers)")
    n_no = len(no_ans) * repeat
    n_has = min(len(has_ans), round(n_no * (1.0 - no_answer_share) / no_answer_share))
    keep_has = set(random.Random(seed).sample(has_ans, n_has))
    out = {"version": squad.get("version", "v2.0"), "data": []}
    for a, art in enumerate(squad["data"]):
        new_art = {k: v for k, v in art.items() if k != "paragraphs"}
        new_art["paragraphs"] = []
        for p, par in enumerate(art["paragraphs"]):
            qas = []
            for q, qa in enumerate(par["qas"]):
                if _is_unanswerable(qa):
                    qas.append(qa)
                    for n in range(repeat - 1):
                        dup = copy.deepcopy(qa)
                        dup["id"] = f"{qa['id']}_n{n}"
                        qas.append(dup)
                elif (a, p, q) in keep_has:
                    qas.append(qa)
            if qas:
                new_art["paragraphs"].append({**par, "qas": qas})
        if new_art["paragraphs"]:
            out["data"].append(new_art)
    return out


def counts(squad: dict) -> dict:
    """Questions, unanswerable questions and their share in an official-format SQuAD dict."""
    qas = [qa for art in squad["data"] for par in art["paragraphs"] for qa in par["qas"]]
    no = sum(_is_unanswerable(qa) for qa in qas)
    return {"questions": len(qas), "unanswerable": no, "share": round(no / max(1, len(qas)), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True, help="an official-format SQuAD 2.0 JSON file")
    ap.add_argument("--out", required=True, help="the file to write (outside the repository)")
    ap.add_argument("--no-answer-share", type=float, default=0.45)
    ap.add_argument("--repeat", type=int, default=3, help="copies of each unanswerable question")
    ap.add_argument("--seed", type=int, default=0, help="seed of the answerable sample")
    args = ap.parse_args(argv)
    with open(args.train, encoding="utf-8") as f:
        squad = json.load(f)
    try:
        out = balance(squad, no_answer_share=args.no_answer_share, repeat=args.repeat, seed=args.seed)
    except ValueError as exc:
        print(f"{args.train}: {exc}", file=sys.stderr)
        return 2
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f)
    print(json.dumps({"input": counts(squad), "written": counts(out), "out": args.out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
