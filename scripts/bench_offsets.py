"""What offset snapping (explorer.core.qa.windows.snap_offsets) costs in feature creation: prepare_qa_features
on SQuAD questions with snapping as shipped and with it switched off, for a tokenizer; prints figures.

    python scripts/bench_offsets.py [--model bundled:minilm] [--data $EXPLORER_REAL_DATA/squad_v1.1/dev-part1.json]
        [--cap 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled:minilm", help="model source whose tokenizer is used")
    default_data = Path(os.environ.get("EXPLORER_REAL_DATA", "")) / "squad_v1.1" / "dev-part1.json"
    parser.add_argument("--data", default=str(default_data), help="SQuAD-format JSON")
    parser.add_argument("--cap", type=int, default=2000, help="questions used")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each variant (best is printed)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(parser)
    args = parser.parse_args(argv)
    load0 = load_average()
    if not Path(args.data).is_file():
        print(f"no SQuAD file at {args.data}; give --data or set EXPLORER_REAL_DATA", file=sys.stderr)
        return 2

    from transformers import AutoTokenizer

    from explorer.core.qa import windows as features
    from explorer.core.data.squad import load_squad
    from explorer.core.models.sources import resolve_source

    tok = AutoTokenizer.from_pretrained(resolve_source(args.model))
    data, _ = load_squad(args.data)
    data = data.select(range(min(args.cap, len(data))))
    qs, cs, answers = list(data["question"]), list(data["context"]), list(data["answers"])

    def run() -> tuple[float, int]:
        t0 = time.perf_counter()
        feats = features.prepare_qa_features(qs, cs, tok, answers=answers)
        return time.perf_counter() - t0, len(feats)

    shipped = features.snap_offsets
    best_on, n = min(run() for _ in range(args.repeat))
    features.snap_offsets = lambda offs, *a, **k: offs
    try:
        best_off, _ = min(run() for _ in range(args.repeat))
    finally:
        features.snap_offsets = shipped
    print(f"tokenizer {type(tok).__name__} of {args.model}; {len(qs)} questions -> {n} windows")
    print(f"prepare_qa_features with snapping:    {best_on:.3f} s ({len(qs) / best_on:,.0f} questions/s)")
    print(f"prepare_qa_features without snapping: {best_off:.3f} s ({len(qs) / best_off:,.0f} questions/s)")
    print(f"snapping costs {100 * (best_on - best_off) / best_off:+.1f}% (best of {args.repeat})")
    record(args, "bench_offsets", case=f"{args.model}, {len(qs):,} questions", ratios={"with / without snapping": best_on / best_off},
           figures={"with snapping (questions/s)": len(qs) / best_on, "without snapping (questions/s)": len(qs) / best_off},
           load_start=load0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
