"""Preview of a training / dev data source for the launcher (Qt-free).

``preview_data(source, task)`` loads the source with the core loaders (explorer.core.data.squad /
classification) and returns a small JSON-ready dict: counts, the loader's problems, the first
records. The launcher runs it as ``python -m explorer.ui.launch.data_preview`` in a child process from a
QThreadPool worker, so neither the JSON parsing of a 40 MB file nor the ``datasets`` import ever
holds the GUI's GIL.

Result keys: ok (bool), kind ("squad" | "classification"), summary (one line), counts (dict),
problems (list of str, each names the record), records (list of dicts), error (str, when not ok);
SQuAD also answer_check: what the answer check does to this data ("3 answers repaired, 1 dropped"; training
data is loaded exactly as the run will load it: misaligned answers repaired or dropped).
"""

from __future__ import annotations

import argparse
import json
import sys

from explorer.core.task_facts import find_task_facts, is_qa_task


def _clip(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def preview_data(source: str, task: str, *, n_records: int = 8, split: str = "train",
                 text_columns: list[str] | None = None, label_column: str = "") -> dict:
    """Load ``source`` for ``task`` and summarise it. Never raises for bad data: ok=False + error.

    A local file is first recognised (explorer.core.data.sniff): one that cannot feed ``task`` (a TSV
    given to a SQuAD task, SQuAD JSON given to classification) is rejected with what the file is and
    which tasks it fits, instead of the parser's first complaint."""
    kind = "squad" if is_qa_task(task) else "classification"
    try:
        mismatch = _kind_mismatch(source, task)
        if mismatch:
            return {"ok": False, "kind": kind, "summary": "",
                    "counts": {}, "problems": [], "records": [], "error": mismatch}
        reader = _READERS[getattr(find_task_facts(task), "data_kind", "table")]
        return reader(source, task, n_records, split, text_columns, label_column)
    except Exception as exc:  # noqa: BLE001 - the message is what the user must see
        return {"ok": False, "kind": kind, "summary": "",
                "counts": {}, "problems": [], "records": [], "error": str(exc) or type(exc).__name__}


def _kind_mismatch(source: str, task: str) -> str:
    """'<file>: this is a tab-separated file with columns ...; it fits ...; it does not fit the squad_v2
    task' for a local file of the wrong kind, else '' (hub ids and unreadable paths: the loader says)."""
    from pathlib import Path

    from explorer.core.data.sniff import sniff_data_file

    path = Path(source).expanduser()
    if not path.is_file():
        return ""
    try:
        message = sniff_data_file(path).mismatch(task)
    except OSError:
        return ""
    return f"{path}: {message}" if message else ""


def _preview_squad(source: str, task: str, n: int, split: str, _text_columns=None, _label_column="") -> dict:
    from explorer.core.data.squad import load_squad

    train = split == "train"  # the training run repairs / drops misaligned answers (load_training_squad)
    ds, report = load_squad(source, split=split, strict=False, repair=train, drop_unfound=train)
    rows = ds.select(range(min(n, len(ds)))).to_list() if len(ds) else []
    records = []
    for r in rows:
        texts = list(r["answers"]["text"])
        records.append({"question": _clip(r["question"], 120),
                        "answer": _clip(texts[0], 60) if texts else "(no answer)",
                        "context": _clip(r["context"], 200)})
    counts = {"articles": report.n_articles, "questions": report.n_questions,
              "unanswerable": report.n_impossible, "gold answers": report.n_answers,
              "skipped": report.n_skipped, "repaired": report.repaired, "dropped": report.dropped}
    summary = (f"SQuAD {report.version}: {report.n_articles:,} articles, {report.n_questions:,} questions "
               f"({report.n_impossible:,} unanswerable)")
    problems = list(report.problems)
    version = find_task_facts(task).squad_version
    if version == "v2.0" and report.version != "v2.0":
        problems.insert(0, "note: no unanswerable questions, so this is SQuAD v1.1 data; "
                           "SQuAD v2.0 training still works but the model never learns to abstain")
    if version == "v1.1" and report.n_impossible:
        problems.insert(0, f"note: {report.n_impossible} unanswerable questions (SQuAD v2.0 data); "
                           "choose the SQuAD v2.0 task to train the no-answer decision")
    return {"ok": True, "kind": "squad", "summary": summary, "answer_check": report.answer_check(),
            "answers_changed": bool(report.n_misaligned), "counts": counts, "problems": problems[:50],
            "n_problems": len(problems), "records": records, "error": ""}


def _preview_swag(source: str, _task: str, n: int, _split: str = "", _text_columns=None, _label_column="") -> dict:
    from explorer.core.data.swag import load_swag

    data = load_swag(source)
    records = [{"context": _clip(data.contexts[i], 120),
                "ending (right)": _clip(data.choice_pair(i, data.labels[i])[1], 80),
                "label": str(data.labels[i])} for i in range(min(n, len(data)))]
    counts = {"examples": len(data), "choices": 4}
    return {"ok": True, "kind": "swag", "summary": f"SWAG CSV: {len(data):,} examples, 4 endings each",
            "counts": counts, "problems": [], "n_problems": 0, "records": records, "error": ""}


def _preview_classification(source: str, task: str, n: int, split: str, text_columns, label_column) -> dict:
    from explorer.core.data.classification import load_classification

    data = load_classification(source, pair=getattr(find_task_facts(task), "pair", False), text_columns=text_columns or None,
                               label_column=label_column, split=split)
    labels = {}
    for y in data.labels:
        labels[str(y)] = labels.get(str(y), 0) + 1
    records = []
    for i in range(min(n, len(data))):
        rec = {"text": _clip(data.texts_a[i], 140)}
        if data.texts_b is not None:
            rec["text_b"] = _clip(data.texts_b[i], 140)
        rec["label"] = str(data.labels[i])
        records.append(rec)
    a, b, lab = data.columns
    cols = f"columns {a!r}" + (f" + {b!r}" if b else "") + f", label {lab!r}"
    dist = ", ".join(f"{k}: {v:,}" for k, v in sorted(labels.items()))
    summary = f"{len(data):,} examples, {data.num_labels} labels ({dist}); {cols}"
    return {"ok": True, "kind": "classification", "summary": summary,
            "counts": {"examples": len(data), "labels": data.num_labels}, "problems": list(data.problems)[:50],
            "n_problems": len(data.problems), "records": records, "error": ""}


# TaskFacts.data_kind -> its preview (the readers of core/data)
_READERS = {"squad": _preview_squad, "table": _preview_classification, "swag": _preview_swag}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Print a JSON preview of a data source (used by the launcher).")
    p.add_argument("source")
    p.add_argument("--task", default="squad_v2")
    p.add_argument("--split", default="train")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--text-columns", default="")
    p.add_argument("--label-column", default="")
    a = p.parse_args(argv)
    cols = [c.strip() for c in a.text_columns.split(",") if c.strip()]
    out = preview_data(a.source, a.task, n_records=a.n, split=a.split, text_columns=cols, label_column=a.label_column)
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
