"""Benchmark `bert-explorer predict` against the app's dev-set evaluation of the same model on the same rows.

    python scripts/bench_predict_vs_eval.py                       # 2,000 rows of SST-2 dev, bundled MiniLM
    python scripts/bench_predict_vs_eval.py --tiny --rows 500     # the tests' tiny random BERT
    python scripts/bench_predict_vs_eval.py --results             # also record the figures

Both run the same loaded model (fp32, batch 32, max_seq_length 128) over the same rows in this process:
predict is explorer.core.predict.engine.predict_file (read, tokenize, batches, softmax, write the output file),
the evaluation is explorer.core.training.dev_scoring.dev_logits over the rows featurized as training's dev set
(length-sorted batches over all rows). The rows: SST-2's dev sentences (872) repeated in file order up to
``--rows``. The two alternate (predict, evaluation, predict, evaluation, ...) so that a shared machine's load
changes both alike; each figure is the best of its runs, and the ratio is predict rows/s over evaluation rows/s.
A forward hook counts the tokens each forwards (padding included) per row, the figure padding changes.
Prints figures with the load average; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def sst2_rows(rows: int) -> list[tuple[str, str]]:
    """SST-2 dev's (sentence, label) pairs, repeated in file order up to ``rows``."""
    root = Path(os.environ.get("EXPLORER_REAL_DATA") or "/work/shared/data")
    lines = (root / "glue_sst2" / "dev.tsv").read_text(encoding="utf-8").splitlines()[1:]
    pairs = [tuple(line.split("\t")[:2]) for line in lines if line.strip()]
    return [pairs[i % len(pairs)] for i in range(rows)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--model", default=None, help="a classification checkpoint (default: bundled:minilm + new head)")
    ap.add_argument("--tiny", action="store_true", help="the tests' tiny random BERT (2 layers, hidden 32)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--notes", default="", help="a note recorded with the figures")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()
    tmp = Path(tempfile.mkdtemp(prefix="bench_predict_vs_eval_"))
    data = tmp / "sst2_dev.tsv"
    with open(data, "w", encoding="utf-8") as fh:
        fh.write("sentence\tlabel\n")
        fh.writelines(f"{s}\t{label}\n" for s, label in sst2_rows(args.rows))
    from explorer.core.models.loading import load_model

    if args.tiny:
        sys.path.insert(0, str(ROOT / "tests"))
        from helpers import save_tiny_model

        model, name = str(save_tiny_model(tmp / "ckpt", "classification", num_labels=2)), "tiny random BERT"
    elif args.model:
        model, name = args.model, args.model
    else:
        fresh = load_model("bundled:minilm", task="classification", num_labels=2)
        fresh.model.save_pretrained(tmp / "ckpt")
        fresh.tokenizer.save_pretrained(tmp / "ckpt")
        model, name = str(tmp / "ckpt"), "bundled:minilm + new 2-class head"
    from explorer.core.predict.engine import predict_file
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.dev_scoring import dev_logits
    from explorer.core.training.tasks import get_task

    loaded = load_model(model, task="classification")
    tokens = {"n": 0}
    loaded.model.register_forward_pre_hook(
        lambda _m, _a, kw: tokens.__setitem__("n", tokens["n"] + int(kw["input_ids"].numel())), with_kwargs=True)
    task = get_task("single")
    config = TrainConfig(task="single", dev=str(data), dev_cap=0, max_seq_length=128)
    feats = task.featurize(task.load(config, "dev"), loaded.tokenizer, config, train=False)

    def run_predict() -> tuple[float, float]:
        tokens["n"] = 0
        summary = predict_file(model, str(data), str(tmp / "out.csv"), loaded=loaded, batch_size=args.batch_size,
                               max_seq_length=128)
        return summary.new_rows / (summary.seconds - summary.load_seconds), tokens["n"] / summary.new_rows

    def run_eval() -> tuple[float, float]:
        tokens["n"] = 0
        t0 = time.perf_counter()
        dev_logits(loaded.model, task, feats, args.batch_size)
        return len(feats) / (time.perf_counter() - t0), tokens["n"] / len(feats)

    predict_rates, eval_rates = [], []
    for _ in range(max(1, args.repeats)):
        rate, predict_tokens = run_predict()
        predict_rates.append(rate)
        rate, eval_tokens = run_eval()
        eval_rates.append(rate)
    real = sum(feats.lengths) / len(feats)
    best_predict, best_eval = max(predict_rates), max(eval_rates)
    load = os.getloadavg()
    print(f"{args.rows} rows of SST-2 dev; {name}; batch {args.batch_size}, max_seq_length 128; "
          f"{os.cpu_count()} CPUs, load average {load0} -> {load[0]:.1f}")
    print(f"predict:    {best_predict:,.1f} rows/s (runs: {', '.join(f'{r:.1f}' for r in predict_rates)}); "
          f"{predict_tokens:.1f} tokens forwarded a row")
    print(f"evaluation: {best_eval:,.1f} rows/s (runs: {', '.join(f'{r:.1f}' for r in eval_rates)}); "
          f"{eval_tokens:.1f} tokens forwarded a row ({real:.1f} without padding)")
    print(f"ratio predict / evaluation (rows/s): {best_predict / best_eval:.3f}")
    record(args, "bench_predict_vs_eval", case=f"SST-2 dev x {args.rows} rows, {name}",
           ratios={"predict / evaluation (rows/s)": best_predict / best_eval},
           figures={"predict rows/s": best_predict, "evaluation rows/s": best_eval,
                    "predict tokens forwarded per row": predict_tokens,
                    "evaluation tokens forwarded per row": eval_tokens, "tokens per row without padding": real},
           load_start=load0, notes=args.notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
