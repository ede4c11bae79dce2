"""Benchmark dev-set scoring (Classify: dev set; explorer.core.training.dev_scoring.dev_logits) against the bare
forward on the same rows.

    python scripts/bench_dev_scoring.py --rows 872                 # SST-2's dev set, bundled MiniLM
    python scripts/bench_dev_scoring.py --rows 872 --results       # also record the figures

Both run the same model over the same featurized dev rows in the same length-sorted batches, in the precision
dev scoring runs in (core.training.precision.evaluation_forward_precision: fp32): the bare forward is ``model(**batch)`` under inference_mode with
the batches padded beforehand; dev scoring collates, pads, forwards and gathers the logits as the page does.
After a warm-up pass over every batch shape they alternate (bare, scoring, bare); the bare figure is their mean. Also shown: the file-order fixed batches
dev scoring ran before (each batch padded to its longest row). Prints rows/s and the ratios, with the load;
asserts nothing about speed. Needs EXPLORER_REAL_DATA (the shared data folder) for SST-2's dev file.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bundled:minilm")
    parser.add_argument("--data", default="", help="a dev table (default: SST-2's dev.tsv in EXPLORER_REAL_DATA)")
    parser.add_argument("--rows", type=int, default=872)
    parser.add_argument("--batch-size", type=int, default=32)
    from explorer.benchmarks import add_results_argument, load_average, write_result

    add_results_argument(parser)
    args = parser.parse_args(argv)
    import torch

    from explorer.core.models.batched_forward import length_order
    from explorer.core.models.loading import load_model
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.dev_scoring import dev_logits
    from explorer.core.training.precision import evaluation_forward_precision
    from explorer.core.training.tasks import get_task

    data = args.data or str(Path(os.environ.get("EXPLORER_REAL_DATA", "")) / "glue_sst2" / "dev.tsv")
    load_start = load_average()
    task = get_task("single")
    config = TrainConfig(task="single", dev=data, dev_cap=args.rows, max_seq_length=128)
    loaded = load_model(args.model, "classification", num_labels=2)
    model = loaded.model.eval()
    feats = task.featurize(task.load(config, "dev"), loaded.tokenizer, config, train=False)
    bf16 = evaluation_forward_precision() == "bf16"   # the precision dev scoring runs in
    sorted_batches = [task.model_inputs(feats.collate(idx)) for idx in length_order(feats.lengths, args.batch_size)]
    file_batches = [task.model_inputs(feats.collate(list(range(i, min(i + args.batch_size, len(feats))))))
                    for i in range(0, len(feats), args.batch_size)]

    def bare(batches) -> float:
        t0 = time.perf_counter()
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            for b in batches:
                model(**b)
        return len(feats) / (time.perf_counter() - t0)

    bare(sorted_batches)   # warm-up: bf16 kernels are chosen per batch shape on their first use
    first = bare(sorted_batches)
    t0 = time.perf_counter()
    dev_logits(model, task, feats, args.batch_size)
    scoring = len(feats) / (time.perf_counter() - t0)
    reference = (first + bare(sorted_batches)) / 2
    file_order = bare(file_batches)
    figures = {"rows": len(feats), "bf16": bf16, "bare_rows_per_s": reference, "scoring_rows_per_s": scoring,
               "file_order_bare_rows_per_s": file_order}
    ratios = {"scoring_vs_bare": scoring / reference, "file_order_vs_length_sorted": file_order / reference}
    print(f"{len(feats)} rows, batch {args.batch_size}, bf16 {bf16}, load {load_start} -> {load_average()}")
    print(f"bare forward (length-sorted): {reference:,.1f} rows/s")
    print(f"dev scoring:                  {scoring:,.1f} rows/s  ({ratios['scoring_vs_bare']:.2f} x bare)")
    print(f"file-order fixed batches:     {file_order:,.1f} rows/s  ({ratios['file_order_vs_length_sorted']:.2f} x)")
    if args.results is not None:
        path = write_result("bench_dev_scoring", folder=args.results, figures=figures, ratios=ratios,
                            case=f"{Path(data).name} x {len(feats)}, {args.model}", load_start=load_start,
                            about="Classify: dev set scoring rows/s against the bare forward on the same rows")
        print(f"recorded in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
