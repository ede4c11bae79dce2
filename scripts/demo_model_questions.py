"""What a head does, why the model abstains, what each layer knows: every tool on a fine-tuned SQuAD 2.0 checkpoint
and a classifier, from the command line.

    python scripts/demo_model_questions.py --squad SQUAD2_RUN/checkpoints/best --classifier SST2_RUN/checkpoints/best \\
        --data ../shared/data --out OUT_DIR [--only heads_qa,explain,...] [--results]

Runs ``bert-explorer heads mask`` / ``heads importance`` (one-shot and ``--iterative``) on both checkpoints,
``explain --target score_diff`` on two SQuAD questions, ``layer-probes`` base vs fine-tuned (the run's own
classes, and CoNLL entity tags) and ``eval --decode-rule run_qa`` on the SQuAD 2.0 dev part, keeps each JSON in
OUT_DIR and prints the headline figures; with ``--results`` they go to benchmarks/results/demo_model_questions.json
with the commands, the machine, the load and the commit. The dev figures of the checkpoints are read from their
runs' final evaluation (events.jsonl).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.benchmarks import add_results_argument, load_average, record  # noqa: E402

# an answerable and an unanswerable question on one passage of the SQuAD 2.0 dev part (Harvard_University)
PASSAGE = ("Harvard is a large, highly residential research university. The nominal cost of attendance is high, "
           "but the University's large endowment allows it to offer generous financial aid packages. It operates"
           " several arts, cultural, and scientific museums, alongside the Harvard Library, which is the world's"
           " largest academic and private library system, comprising 79 individual libraries with over 18 "
           "million volumes. Harvard's alumni include eight U.S. presidents, several foreign heads of state, 62 "
           "living billionaires, 335 Rhodes Scholars, and 242 Marshall Scholars. To date, some 150 Nobel "
           "laureates, 18 Fields Medalists and 13 Turing Award winners have been affiliated as students, "
           "faculty, or staff.")
QA_ANSWERABLE = ("How many volumes are contained in the library?", PASSAGE)
QA_UNANSWERABLE = ("How many public libraries are there in Cambridge?", PASSAGE)
SENTENCE = "the acting is superb , but the script is a mess ."


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "explorer.cli", *map(str, args)]


def steps(a) -> dict[str, list[str]]:
    """Each step's command line; its JSON goes to OUT/<step>.json."""
    out = Path(a.out)
    squad_dev = Path(a.data) / "squad_v2.0" / "dev-subset.json"
    sst2_dev = Path(a.data) / "glue_sst2" / "dev.tsv"
    conll = Path(a.data) / "conll2003" / "dev.txt"
    q, passage = QA_ANSWERABLE
    qa_rank_cap = a.qa_importance_cap or a.qa_cap
    return {
        "heads_mask_qa": cli("heads", "mask", "--model", a.squad, "--text", q, "--text-pair", passage,
                             "--mask-layer", a.qa_layer, "--dev", squad_dev, "--cap", a.qa_cap,
                             "--out", out / "heads_mask_qa.json"),
        "heads_importance_qa": cli("heads", "importance", "--model", a.squad, "--dev", squad_dev, "--cap", qa_rank_cap,
                                   "--steps", a.steps, "--out", out / "heads_importance_qa.json"),
        "heads_iterative_qa": cli("heads", "importance", "--model", a.squad, "--dev", squad_dev, "--cap", qa_rank_cap,
                                  "--steps", a.steps, "--iterative", "--out", out / "heads_iterative_qa.json"),
        "heads_mask_cls": cli("heads", "mask", "--model", a.classifier, "--text", SENTENCE, "--mask-layer",
                              a.cls_layer, "--dev", sst2_dev, "--cap", a.cls_cap, "--out", out / "heads_mask_cls.json"),
        "heads_importance_cls": cli("heads", "importance", "--model", a.classifier, "--dev", sst2_dev, "--cap",
                                    a.cls_cap, "--steps", a.steps, "--out", out / "heads_importance_cls.json"),
        "heads_iterative_cls": cli("heads", "importance", "--model", a.classifier, "--dev", sst2_dev, "--cap",
                                   a.cls_cap, "--steps", a.steps, "--iterative",
                                   "--out", out / "heads_iterative_cls.json"),
        "explain_answerable": cli("explain", "--model", a.squad, "--text", q, "--text-pair", passage,
                                  "--target", "score_diff", "--merge-words", "--out", out / "explain_answerable.json"),
        "explain_unanswerable": cli("explain", "--model", a.squad, "--text", a.unanswerable, "--text-pair",
                                    QA_UNANSWERABLE[1], "--target", "score_diff", "--merge-words",
                                    "--out", out / "explain_unanswerable.json"),
        "probes_cls_sentences": cli("layer-probes", "--model", a.classifier, "--labels", "sentences", "--seeds",
                                    a.seeds, "--cap", a.probe_cap, "--json", "--out", out / "probes_cls_sentences.json"),
        "probes_cls_tokens": cli("layer-probes", "--model", a.classifier, "--labels", "tokens", "--data", conll,
                                 "--seeds", a.seeds, "--json", "--out", out / "probes_cls_tokens.json"),
        "probes_qa_sentences": cli("layer-probes", "--model", a.squad, "--labels", "sentences", "--seeds", a.seeds,
                                   "--cap", a.probe_cap, "--max-seq-length", 256, "--json",
                                   "--out", out / "probes_qa_sentences.json"),
        "decode_rules": cli("eval", "--model", a.squad, "--data", squad_dev, "--decode-rule", "run_qa",
                            *(("--cap", a.eval_cap) if a.eval_cap else ()), "--out", out / "eval_run_qa", "--json"),
    }


def run_step(name: str, argv: list[str], out: Path) -> tuple[dict | None, float]:
    """Run one command (at this script's niceness); its JSON (the --out file, else stdout) and its wall seconds."""
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    target = out / f"{name}.json"
    if proc.returncode != 0:
        print(f"{name}: exit {proc.returncode}\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None, seconds
    if not target.is_file() or name == "decode_rules":
        target.write_text(proc.stdout, encoding="utf-8")
    if proc.stderr.strip():
        (out / f"{name}.stderr.txt").write_text(proc.stderr, encoding="utf-8")
    return json.loads(target.read_text(encoding="utf-8")), seconds


def _r(x, nd=4):
    return None if x is None else round(float(x), nd)


def figures_of(name: str, d: dict) -> dict:
    """The headline figures of one step's JSON."""
    if name.startswith("heads_mask"):
        dev = d.get("dev") or {}
        return {"masked heads": len(d["masked_heads"]), f"dev {dev.get('metric')} all heads": _r(dev.get("base")),
                f"dev {dev.get('metric')} heads off": _r(dev.get("masked")), "dev examples": dev.get("examples"),
                "input change": d.get("change")}
    if name.startswith("heads_"):
        curve = d["prune_curve"]
        return {"pruning": d.get("pruning"), "metric": d["importance"]["metric"],
                "dev examples": d["importance"]["examples"],
                "most important (layer.head from 1)": d["least_important_first_labels"][-5:][::-1],
                "curve (heads kept: metric)": {str(p["heads_kept"]): _r(p["value"]) for p in curve}}
    if name.startswith("explain"):
        det = d.get("details", {})
        total = sum(d["attributions"]) if d.get("attributions") else None
        return {"score_diff at input": _r(d.get("target_value")), "score_diff at baseline": _r(d.get("baseline_value")),
                "sum of attributions": _r(total), "completeness gap": _r(d.get("completeness_gap")),
                "relative gap": _r(d.get("relative_gap")), "integration points": d.get("steps"),
                "toward answering": det.get("toward_answer"), "toward no answer": det.get("toward_no_answer")}
    if name.startswith("probes"):
        curves = {c["name"]: [_r(m, 3) for m in c["mean"]] for c in d["curves"]}
        return {"what": d["what"], "rows": d["n_rows"], "majority": _r(d["majority"], 3), **curves,
                "change (fine-tuned - base)": [_r(c, 3) for c in d.get("change") or []]}
    if name == "decode_rules":
        rule = d.get("decode_rule", {})
        keys = ("exact_match", "f1", "HasAns_f1", "NoAns_f1", "best_f1", "best_f1_thresh", "total")
        metrics = d.get("metrics", {})
        return {"run_qa rule": {k: _r(metrics.get(k), 3) for k in keys if k in metrics},
                "questions": rule.get("n_questions"),
                "questions answered differently by the passage rule": len(rule.get("differences", [])),
                "differences": rule.get("differences", [])[:10]}
    return {}


def run_dev_figures(checkpoint: str) -> dict:
    """The checkpoint's run's final dev metrics (its events.jsonl "finished" event), its optimizer steps and
    training data, and, where the run started from another run's checkpoint, that run's the same way (``from``):
    a checkpoint fine-tuned in two runs counts the steps of both."""
    run = Path(checkpoint).resolve().parents[1]
    final, started, steps_done, dev_rows = {}, {}, 0, None
    for line in (run / "events.jsonl").read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        if e.get("event") == "finished":
            final = e.get("metrics", {})
        elif e.get("event") == "started":
            started = e.get("config", {})
        elif e.get("event") == "step":
            steps_done = max(steps_done, int(e.get("step", 0)))
        elif e.get("event") == "eval":
            dev_rows = e.get("dev_rows", dev_rows)
    keep = ("exact_match", "f1", "HasAns_f1", "NoAns_f1", "best_f1", "best_f1_thresh", "best_tau", "total",
            "accuracy", "matthews_corrcoef", "loss")
    figures = {"run": run.name, "train": Path(str(started.get("train", ""))).name, "steps": steps_done,
               "batch_size": started.get("batch_size"), "max_seq_length": started.get("max_seq_length"),
               "dev_cap": started.get("dev_cap"), "dev rows scored": dev_rows,
               **{k: _r(final[k], 3) for k in keep if isinstance(final.get(k), (int, float))}}
    parent = Path(str(started.get("model", "")))
    if (parent / "checkpoint.json").is_file() and (parent.resolve().parents[1] / "events.jsonl").is_file():
        figures["from"] = run_dev_figures(str(parent))
    return figures


def shown_command(argv: list[str], a) -> str:
    """A command line as recorded: the checkpoints, data and output folders by name (SQUAD2_RUN, SST2_RUN, DATA,
    OUT), not this machine's paths."""
    text = "bert-explorer " + shlex.join(str(x) for x in argv[3:])
    names = {str(Path(a.squad).resolve().parents[1]): "SQUAD2_RUN", str(Path(a.classifier).resolve().parents[1]):
             "SST2_RUN", str(Path(a.data).resolve()): "DATA", str(Path(a.out).resolve()): "OUT"}
    for path, name in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(path, name)
    for given, name in ((a.squad, "SQUAD2_RUN/checkpoints/best"), (a.classifier, "SST2_RUN/checkpoints/best"),
                        (a.data, "DATA"), (a.out, "OUT")):
        text = text.replace(str(given), name)
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--squad", required=True, help="a SQuAD 2.0 run's checkpoints/best")
    p.add_argument("--classifier", required=True, help="a single-sentence classifier run's checkpoints/best")
    p.add_argument("--data", required=True, help="the shared data folder (squad_v2.0, glue_sst2, conll2003)")
    p.add_argument("--out", required=True, help="a folder for the JSON files")
    p.add_argument("--only", default="", help="comma-separated steps (default: all)")
    p.add_argument("--reuse", action="store_true", help="read a step's JSON kept in OUT instead of running it again")
    p.add_argument("--qa-cap", type=int, default=150, help="SQuAD dev questions scored by heads mask")
    p.add_argument("--qa-importance-cap", type=int, default=0,
                   help="SQuAD dev questions of heads importance, one-shot and iterative (0: --qa-cap); each "
                        "pruning-curve point scores them again")
    p.add_argument("--eval-cap", type=int, default=0, help="decode_rules: the first N dev questions (0: all)")
    p.add_argument("--cls-cap", type=int, default=400)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--probe-cap", type=int, default=0, help="layer probes of sentence labels: texts read (0: default)")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--unanswerable", default=QA_UNANSWERABLE[0],
                   help="explain_unanswerable: an unanswerable question on the Harvard passage of the dev part "
                        "(pick one the checkpoint abstains on to show what pushed it toward no answer)")
    p.add_argument("--qa-layer", type=int, default=6, help="the layer switched off, counted from 1 (6: MiniLM's last)")
    p.add_argument("--cls-layer", type=int, default=6, help="the layer switched off, counted from 1 (6: MiniLM's last)")
    add_results_argument(p)
    a = p.parse_args(argv)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    load_start = load_average()
    chosen = [s for s in a.only.split(",") if s] or list(steps(a))
    figures: dict = {"SQuAD 2.0 checkpoint dev": run_dev_figures(a.squad),
                     "classifier dev": run_dev_figures(a.classifier)}
    commands = []
    every = steps(a)
    for name in [c for c in chosen if c in every]:   # in the order asked
        argv_ = every[name]
        print(f"== {name}: {shlex.join(argv_[2:])}", flush=True)
        kept = Path(a.out) / f"{name}.json"
        timing = Path(a.out) / f"{name}.seconds.txt"
        if a.reuse and kept.is_file() and kept.stat().st_size:
            d = json.loads(kept.read_text(encoding="utf-8"))
            seconds = float(timing.read_text(encoding="utf-8")) if timing.is_file() else None
        else:
            d, seconds = run_step(name, argv_, Path(a.out))
            timing.write_text(f"{seconds:.1f}\n", encoding="utf-8")
        commands.append(shown_command(argv_, a))
        if d is None:
            figures[name] = {"failed": True}
            continue
        figures[name] = {**figures_of(name, d), "seconds": None if seconds is None else round(seconds, 1)}
        print(json.dumps(figures[name], indent=1), flush=True)
    record(a, "demo_model_questions", figures=figures, case=", ".join(chosen), load_start=load_start,
           command="python scripts/demo_model_questions.py --squad SQUAD2_RUN/checkpoints/best --classifier "
                   f"SST2_RUN/checkpoints/best --data DATA --out OUT --only {','.join(chosen)} --qa-cap {a.qa_cap} "
                   f"--qa-importance-cap {a.qa_importance_cap} --eval-cap {a.eval_cap} --cls-cap {a.cls_cap} "
                   f"--steps {a.steps}"
                   + (f" --unanswerable {shlex.quote(a.unanswerable)}" if a.unanswerable != QA_UNANSWERABLE[0] else ""),
           notes="commands: " + " ; ".join(commands))
    return 0


if __name__ == "__main__":
    sys.exit(main())
