"""The GPU path in one prepared script, for a machine with an NVIDIA GPU.

Here (with internet), once: ``python scripts/gpu_bundle.py .gpu`` writes what the GPU machine's image lacks
(wheels of datasets, seqeval, captum, openpyxl...), the SQuAD v1.1 data parts and the bundled encoder in fp16 into
``.gpu`` (ignored by git; about 55 MB). There (the device tool runs in the repository root, ``.gpu`` carried)::

    python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
    PYTHONUNBUFFERED=1 python3 scripts/gpu_check.py --bundle .gpu --out $OUT

The parts, each in its own child process so that one failure does not stop the others (``--parts`` chooses):

1. ``env``: torch, CUDA, the GPU's name and whether it has bf16.
2. ``tests``: the test suite's GPU-marked tests (``pytest -m gpu``).
3. ``precision``: the same ``--steps`` (200) step fine-tune of the bundled encoder on SQuAD v1.1 windows in fp32,
   fp16 (accelerate's gradient scaler) and bf16, dropout 0 and one seed, so that the three see the same batches;
   their loss curves must agree within the tolerance below (:func:`compare_losses`), and each one's windows/s.
4. ``trainer``: ``scripts/bench_train.py`` on the GPU: our loop against the Hugging Face Trainer, same model,
   data and recipe (windows/s and the ratio), fp32 and bf16, on BERT-base (random weights: speed does not depend
   on them; the bundled tokenizer has BERT-base's vocabulary).
5. ``probe``: ``scripts/bench_probe.py --device cuda``: the probe with attentions against the bare forward.
6. ``eval``: ``bert-explorer eval --device cuda`` on the v1.1 dev part: questions/s, fp32 and bf16 autocast.

Writes ``report.md`` and ``summary.json`` in ``--out`` (and one log per part). ``--allow-cpu`` runs the same on
a machine without CUDA (a dry run of the script itself: small steps, on the CPU). Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PARTS = ("env", "tests", "precision", "trainer", "probe", "eval")
# Loss curves of the same batches in fp32 and in 16-bit mixed precision: after the first steps, the smoothed
# curves stay within this relative difference of fp32's, and the last steps' mean loss within LAST_TOLERANCE.
CURVE_TOLERANCE = 0.10
LAST_TOLERANCE = 0.05


def smooth(values: list[float], weight: float = 0.9) -> list[float]:
    """TensorBoard's debiased exponential moving average of ``values`` (the Curves page's smoothing)."""
    out, avg = [], 0.0
    for k, v in enumerate(values, start=1):
        avg = weight * avg + (1 - weight) * v
        out.append(avg / (1 - weight ** k))
    return out


def compare_losses(reference: list[float], other: list[float], skip: int = 20, last: int = 50) -> dict:
    """How far ``other``'s loss curve is from ``reference``'s (same steps): the largest relative difference of
    the smoothed curves after the first ``skip`` steps, the relative difference of the mean of the ``last`` raw
    losses, and whether both are within the tolerances (CURVE_TOLERANCE, LAST_TOLERANCE).

    Raises:
        ValueError: curves of different lengths, or too short to skip ``skip`` steps.
    """
    if len(reference) != len(other) or len(reference) <= skip:
        raise ValueError(f"loss curves of {len(reference)} and {len(other)} steps; need the same number, > {skip}")
    a, b = smooth(reference)[skip:], smooth(other)[skip:]
    curve = max(abs(x - y) / max(abs(x), 1e-8) for x, y in zip(a, b))
    n = min(last, len(reference))
    mean_a, mean_b = sum(reference[-n:]) / n, sum(other[-n:]) / n
    last_diff = abs(mean_a - mean_b) / max(abs(mean_a), 1e-8)
    return {"max_smoothed_rel_diff": round(curve, 4), "last_mean_rel_diff": round(last_diff, 4),
            "last_mean": round(mean_b, 4), "reference_last_mean": round(mean_a, 4),
            "agree": curve <= CURVE_TOLERANCE and last_diff <= LAST_TOLERANCE}


def run(cmd: list, log: Path, timeout: float) -> tuple[int, str, float]:
    """Run ``cmd`` in the repository root, its stdout and stderr into ``log``; (exit code, stdout + stderr,
    seconds). The last stdout is kept in ``run.stdout`` (a command's JSON answer)."""
    t0 = time.perf_counter()
    try:
        res = subprocess.run([str(c) for c in cmd], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        rc, out, err = res.returncode, res.stdout, res.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = 124, "", f"timed out after {timeout:.0f} s"
    run.stdout = out
    log.write_text(f"$ {' '.join(str(c) for c in cmd)}\n{out}{err}", encoding="utf-8")
    return rc, out + err, time.perf_counter() - t0


def part_env(args, out: Path) -> dict:
    import torch

    info = {"torch": torch.__version__, "cuda": torch.version.cuda, "cuda_available": torch.cuda.is_available(),
            "python": sys.version.split()[0]}
    if torch.cuda.is_available():
        info.update(gpu=torch.cuda.get_device_name(0), capability=".".join(map(str, torch.cuda.get_device_capability(0))),
                    bf16=torch.cuda.is_bf16_supported(), gpus=torch.cuda.device_count())
    return info


def part_tests(args, out: Path) -> dict:
    rc, text, seconds = run([sys.executable, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider", "tests"],
                            out / "tests.log", timeout=args.part_timeout)
    return {"exit": rc, "summary": text.strip().splitlines()[-1] if text.strip() else "", "seconds": round(seconds, 1)}


def _train_losses(args, out: Path, precision: str) -> dict:
    """One fine-tune through the CLI; its per-step losses and median windows/s."""
    run_id = f"precision-{precision}"
    cmd = [sys.executable, "-m", "explorer", "train", "--model", args.model, "--task", "squad_v1",
           "--train", args.train, "--max-steps", args.steps, "--batch-size", 32, "--max-seq-length", 384,
           "--learning-rate", 5e-5, "--dropout", 0, "--seed", 42, "--mixed-precision", precision,
           "--log-every", 1, "--no-save-checkpoints", "--output-dir", out / "runs", "--run-name", run_id]
    rc, _, seconds = run(cmd, out / f"{run_id}.log", timeout=args.part_timeout)
    events = out / "runs" / run_id / "events.jsonl"
    steps = [json.loads(line) for line in events.read_text().splitlines() if '"event":"step"' in line] \
        if events.is_file() else []
    speeds = sorted(e["samples_per_second"] for e in steps[1:]) or [0.0]
    return {"exit": rc, "losses": [e["loss"] for e in steps], "windows_per_second": round(speeds[len(speeds) // 2], 2),
            "seconds": round(seconds, 1)}


def part_precision(args, out: Path) -> dict:
    import torch

    kinds = ["no", "bf16"] + (["fp16"] if torch.cuda.is_available() else [])
    runs = {p: _train_losses(args, out, p) for p in kinds}
    result = {p: {k: v for k, v in r.items() if k != "losses"} for p, r in runs.items()}
    ref = runs["no"]["losses"]
    for p in kinds[1:]:
        try:
            result[p].update(compare_losses(ref, runs[p]["losses"], skip=min(20, len(ref) // 4),
                                            last=min(50, len(ref) // 2)))
        except ValueError as exc:
            result[p]["compare"] = str(exc)
    return result


def part_trainer(args, out: Path) -> dict:
    variants = "ours-fp32,trainer-dynamic-fp32,ours-bf16,trainer-dynamic-bf16"
    cmd = [sys.executable, "scripts/bench_train.py", "--model", args.base_model or args.model, "--data", args.train,
           "--variants", variants, "--steps", max(10, args.steps // 4), "--questions", 2000]
    rc, text, seconds = run(cmd, out / "trainer.log", timeout=args.part_timeout)
    return {"exit": rc, "tail": text.strip().splitlines()[-12:], "seconds": round(seconds, 1)}


def part_probe(args, out: Path) -> dict:
    device = "cuda" if not args.allow_cpu else "auto"
    rc, text, seconds = run([sys.executable, "scripts/bench_probe.py", "--model", args.model, "--device", device,
                             "--runs", 50 if not args.allow_cpu else 3], out / "probe.log", timeout=args.part_timeout)
    return {"exit": rc, "tail": text.strip().splitlines()[-6:], "seconds": round(seconds, 1)}


def part_eval(args, out: Path) -> dict:
    result = {}
    for name, extra in (("fp32", []), ("bf16", ["--bf16"])):
        cmd = [sys.executable, "-m", "explorer", "eval", "--model", args.model, "--data", args.dev, "--device",
               "cuda" if not args.allow_cpu else "auto", "--out", out / f"eval-{name}", "--json", *extra]
        if args.allow_cpu:
            cmd += ["--cap", 20]
        rc, _, seconds = run(cmd, out / f"eval-{name}.log", timeout=args.part_timeout)
        try:
            body = json.loads(run.stdout) if rc == 0 else {}
        except json.JSONDecodeError:
            body = {}
        result[name] = {"exit": rc, "speed": body.get("speed"), "f1": (body.get("metrics") or {}).get("f1"),
                        "seconds": round(seconds, 1)}
    return result


def write_report(out: Path, summary: dict) -> None:
    """report.md: one section per part, the JSON of its figures."""
    lines = ["# GPU check", ""]
    for part, figures in summary.items():
        lines += [f"## {part}", "", "```json", json.dumps(figures, indent=1), "```", ""]
    (out / "report.md").write_text("\n".join(lines), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for report.md, summary.json and the logs")
    p.add_argument("--bundle", default=".gpu", help="what scripts/gpu_bundle.py wrote (data/, minilm/)")
    p.add_argument("--model", default="", help="default: BUNDLE/minilm, else bundled:minilm")
    p.add_argument("--base-model", default="", help="bench_train's model (default: a BERT-base of random weights)")
    p.add_argument("--train", default="", help="SQuAD v1.1 training file (default: BUNDLE/data/train.json)")
    p.add_argument("--dev", default="", help="SQuAD v1.1 dev file (default: BUNDLE/data/dev.json)")
    p.add_argument("--steps", type=int, default=200, help="steps of each precision run (200)")
    p.add_argument("--parts", default=",".join(PARTS), help=f"which parts, of {', '.join(PARTS)}")
    p.add_argument("--part-timeout", type=float, default=900.0, help="seconds each child may take")
    p.add_argument("--allow-cpu", action="store_true", help="run without CUDA (a dry run of this script)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(p)
    args = p.parse_args(argv)
    load0 = load_average()
    import torch

    if not torch.cuda.is_available() and not args.allow_cpu:
        print(f"no CUDA GPU here (torch {torch.__version__}); --allow-cpu for a dry run on the CPU", file=sys.stderr)
        return 2
    bundle = Path(args.bundle)
    args.model = args.model or (str(bundle / "minilm") if (bundle / "minilm").is_dir() else "bundled:minilm")
    args.train = args.train or str(bundle / "data" / "train.json")
    args.dev = args.dev or str(bundle / "data" / "dev.json")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if "trainer" in args.parts and not args.base_model and not args.allow_cpu:
        args.base_model = str(random_bert_base(args.model, out / "bert-base-random"))
    summary = {}
    for part in [x for x in args.parts.split(",") if x]:
        t0 = time.perf_counter()
        try:
            summary[part] = globals()[f"part_{part}"](args, out)
        except Exception as exc:  # noqa: BLE001 - a failed part is reported; the others still run
            summary[part] = {"error": f"{type(exc).__name__}: {exc}"}
        print(f"{part} ({time.perf_counter() - t0:.0f} s): {json.dumps(summary[part])[:600]}", flush=True)
        write_report(out, summary)

    def numbers(value, name=""):   # the summary's numbers, named by their path ("train: fp32: windows_per_second")
        if isinstance(value, dict):
            for k, v in value.items():
                yield from numbers(v, f"{name}: {k}" if name else str(k))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield name, value
    figures = dict(numbers(summary))
    if figures:
        record(args, "gpu_check", case=f"{args.steps} steps, parts {args.parts}" + (" (CPU dry run)" if args.allow_cpu else ""),
               ratios={k: v for k, v in figures.items() if "ratio" in k or "rel_diff" in k},
               figures={k: v for k, v in figures.items() if "ratio" not in k and "rel_diff" not in k}, load_start=load0)
    return 0


def random_bert_base(tokenizer_source: str, folder: Path) -> Path:
    """A BERT-base (12 layers, hidden 768) of random weights with a QA head, and ``tokenizer_source``'s
    tokenizer (the bundled encoder's is BERT-base's uncased vocabulary), saved to ``folder``."""
    from transformers import BertConfig, BertForQuestionAnswering

    from explorer.core.models.loading import load_model

    tok = load_model(tokenizer_source, task="qa").tokenizer
    model = BertForQuestionAnswering(BertConfig(vocab_size=len(tok)))
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


if __name__ == "__main__":
    sys.exit(main())
