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
import re
import sys
from typing import Callable

from explorer.core.specs.tasks import find_task_facts, is_qa_task

CLASS_IDS_KEPT = 200_000   # the first rows' class ids the result carries: the held-out rows of a capped run counted
# by the run's stratified rule (explorer.core.data.split.held_out_rows)


def _clip(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def preview_data(source: str, task: str, *, n_records: int = 8, split: str = "train",
                 text_columns: list[str] | None = None, label_column: str = "", options: dict | None = None,
                 on_head: Callable[[dict], None] | None = None) -> dict:
    """Load ``source`` for ``task`` and summarise it. Never raises for bad data: ok=False + error.

    A big classification table (explorer.ui.launch.big_table_preview) is counted in pieces; ``on_head`` then
    gets a first answer with its first rows (``partial``: True) before the count.

    A local file is first recognised (explorer.core.data.sniff): one that cannot feed ``task`` (a TSV
    given to a SQuAD task, SQuAD JSON given to classification) is rejected with what the file is and
    which tasks it fits, instead of the parser's first complaint. A table read with a header whose first line
    is data (core.data.header_row.first_line_is_data) has "header_is_data": the reason ("" when it is not)."""
    out = _preview(source, task, n_records, split, text_columns, label_column, options, on_head)
    table_task = getattr(find_task_facts(task), "data_kind", "") == "table"
    if table_task and not (options or {}).get("no_header"):
        from explorer.core.data.header_row import first_line_is_data

        # the form ticks No header row on it (LaunchForm.offer_no_header): the file need not be refused first
        out["header_is_data"] = first_line_is_data(source, encoding=str((options or {}).get("encoding") or ""))
    return out


def _preview(source: str, task: str, n_records: int, split: str, text_columns: list[str] | None,
             label_column: str, options: dict | None, on_head: Callable[[dict], None] | None) -> dict:
    """:func:`preview_data` but for the first line's check."""
    kind = "squad" if is_qa_task(task) else "classification"
    try:
        mismatch = _kind_mismatch(source, task)
        if mismatch:
            return {"ok": False, "kind": kind, "summary": "",
                    "counts": {}, "problems": [], "records": [], "error": mismatch}
        reader = _READERS[getattr(find_task_facts(task), "data_kind", "table")]
        if reader is _preview_table:
            return _preview_table(source, task, n_records, split, text_columns, label_column, options, on_head)
        return reader(source, task, n_records, split, text_columns, label_column, options)
    except Exception as exc:  # noqa: BLE001 - the message is what the user must see
        # the file's first rows as they are, with its columns, their sample values and a guess, even when the data
        # cannot be used as set: the pickers offer them and the table shows what the columns hold (a headerless
        # STS-B file would otherwise show no rows and a picker of bare "1…7")
        table_task = getattr(find_task_facts(task), "data_kind", "") == "table"
        head = table_head(source, task, options, n_records) if table_task else {}
        records = head.pop("head_records", [])
        return {"ok": False, "kind": kind, "summary": "", "counts": {}, "problems": [],
                "error": plain_words(str(exc) or type(exc).__name__), **head, "records": records}


SAMPLE_CHARS = 60   # a column's sample value in the column pickers ("5 — 5.000", "6 — A plane is taking off.")


def table_head(source: str, task: str, options: dict | None, n: int = 8, head_only: bool = False) -> dict:
    """The head of a local table file for the launcher, read as the run would (no_header, encoding): "columns",
    "samples" (column -> its first non-empty value, clipped), "guess" (text_columns, label_column, id_column;
    by the usual names, or by the values of a file without a header, core.data.table.preview_table, then with
    "basis", the reason) and
    "head_records" (the first ``n`` rows, one dict per row with every column). {} for what is not a readable table.
    ``head_only``: a CSV or TSV is read from its first bytes only (a big table's head, shown at once)."""
    from pathlib import Path

    from explorer.core.data.classification import text_columns_by_name
    from explorer.core.data.table import TABLE_SUFFIXES, preview_table
    from explorer.core.data.table_stream import preview_head

    path = Path(source).expanduser()
    if path.suffix.lower() not in TABLE_SUFFIXES or not path.is_file():
        return {}
    facts = find_task_facts(task)
    pair = bool(getattr(facts, "pair", False))
    texts = (2, 2) if pair else (1, 2) if facts is not None and facts.takes_pairs else (1, 1)
    options = options or {}
    read = {"no_header": bool(options.get("no_header")), "encoding": str(options.get("encoding") or "")}
    try:
        # the file's head as it is, also while its rows with bytes that are not UTF-8 keep the data from being used
        table = (preview_head(source, n=n, **read, pair=pair, texts=texts, score=bool(facts and facts.is_regression))
                 if head_only else
                 preview_table(source, n=n, **read, pair=pair, texts=texts,
                               score=bool(facts is not None and facts.is_regression), skip_invalid=True))
    except Exception:  # noqa: BLE001 - an unreadable table: the loader's message says why
        return {}
    samples = {}
    for i, c in enumerate(table.columns):
        samples[c] = next((_clip(r[i], SAMPLE_CHARS) for r in table.rows if i < len(r) and str(r[i]).strip()), "")
    g = table.guess
    # a header whose names find no text column: the guess shown is from the values, which the run reads only when
    # given (the launcher gives it: form_notes.guessed_columns)
    by_values = bool(g.text_columns and not read["no_header"] and text_columns_by_name(list(table.columns), pair) is None)
    return {"columns": list(table.columns), "samples": samples,
            "guess": {"text_columns": list(g.text_columns), "label_column": g.label_column or "",
                      "id_column": g.id_column or "", **({"basis": g.basis} if g.basis else {}),
                      **({"texts_by_values": True} if by_values else {}),
                      **({"id_note": g.id_note} if g.id_note else {})},
            "head_records": [_record(table.columns, row) for row in table.rows]}


def _record(columns: list[str], row: list) -> dict:
    """One row of the preview table by the table's columns: without a header as many as most rows have
    (core.data.table.file_width), so a line cut short has its missing cells empty, not fewer columns."""
    return {c: _clip(row[i], 140) if i < len(row) else "" for i, c in enumerate(columns)}


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


def _preview_squad(source: str, task: str, n: int, split: str, _text_columns=None, _label_column="",
                   _options=None) -> dict:
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
    # one "0" / "1" per question in the run's order: the launcher counts the questions a Train cap keeps
    impossible = "".join("1" if x else "0" for x in ds["is_impossible"]) if train and len(ds) else ""
    return {"ok": True, "kind": "squad", "summary": summary, "answer_check": report.answer_check(),
            "impossible": impossible,
            "answers_changed": bool(report.n_misaligned), "counts": counts, "problems": problems[:50],
            "n_problems": len(problems), "records": records, "error": ""}


def _preview_tagging(source: str, _task: str, n: int, _split: str = "", _text_columns=None, _label_column="",
                     options: dict | None = None) -> dict:
    """A CoNLL / JSONL tagging file: sentences, words, entities per type, the scheme read (and converted to
    IOB2), the first sentences as word/TAG."""
    from explorer.core.data.conll import load_tagging
    from explorer.core.tagging.alignment import entities_of

    data = load_tagging(source, encoding=str((options or {}).get("encoding") or ""),
                        repair=bool((options or {}).get("skip_invalid")))
    per_type: dict[str, int] = {}
    for tags in data.tags:
        for e in entities_of(tags):
            per_type[e.type] = per_type.get(e.type, 0) + 1
    words = sum(len(w) for w in data.words)
    layout = f"CoNLL, {data.columns} columns" if data.columns else "JSONL tokens / tags"
    summary = (f"{layout}, {data.scheme}{' read as IOB2' if data.scheme != 'IOB2' else ''}: {len(data):,} sentences, "
               f"{words:,} words, {sum(per_type.values()):,} entities ({', '.join(sorted(per_type))})")
    records = [{"sentence": _clip(" ".join(f"{w}/{t}" if t != "O" else w for w, t in zip(ws, ts)), 200)}
               for ws, ts in zip(data.words[:n], data.tags[:n])]
    counts = {"sentences": len(data), "words": words, **{f"entities {t}": c for t, c in sorted(per_type.items())}}
    return {"ok": True, "kind": "tagging", "summary": summary, "counts": counts, "problems": list(data.notes),
            "n_problems": 0, "records": records, "error": "", "tags": list(data.label_names)}


def _preview_swag(source: str, _task: str, n: int, _split: str = "", _text_columns=None, _label_column="",
                  _options=None) -> dict:
    from explorer.core.data.swag import load_swag

    data = load_swag(source)
    records = [{"context": _clip(data.contexts[i], 120),
                "ending (right)": _clip(data.choice_pair(i, data.labels[i])[1], 80),
                "label": str(data.labels[i])} for i in range(min(n, len(data)))]
    counts = {"examples": len(data), "choices": 4}
    return {"ok": True, "kind": "swag", "summary": f"SWAG CSV: {len(data):,} examples, 4 endings each",
            "counts": counts, "problems": [], "n_problems": 0, "records": records, "error": ""}


# launcher words for the settings that core messages name by their CLI flag (no GUI message names a flag)
FLAG_WORDS = {"--text-columns": "Text columns", "--label-column": "Label column", "--id-column": "Id column",
              "--skip-invalid": "Skip invalid rows", "--no-header": "No header row", "--encoding": "Encoding",
              "--label-names": "Label names", "--new-head": "New head", "--class-weights": "Class weights",
              "--f1-classes": "F1 classes", "--dev-fraction": "Dev fraction", "--num-labels": "num_labels"}


def _preview_scores_or_label_sets(source: str, task: str, n: int, split: str, text_columns, label_column,
                                  separator: str, options: dict | None = None) -> dict:
    """Regression: the score range and mean; multi-label: how many texts carry each label. ``options``: the
    table settings the run will use (no_header, encoding), read the same way as the run reads them."""
    from explorer.core.data.scores_and_label_sets import load_multilabel, load_regression

    options = options or {}
    read = {"no_header": bool(options.get("no_header")), "encoding": str(options.get("encoding") or ""),
            "skip_invalid": bool(options.get("skip_invalid"))}
    if find_task_facts(task).is_regression:
        data = load_regression(source, text_columns=text_columns or None, label_column=label_column, split=split,
                               **read)
        ys = data.labels
        shape = f"scores {min(ys):g} to {max(ys):g}, mean {sum(ys) / len(ys):.3g}"
        counts = {"examples": len(data), "outputs": 1}
        shown = [f"{y:g}" for y in ys[:n]]
    else:
        data = load_multilabel(source, text_columns=text_columns or None, label_column=label_column,
                               separator=separator or ";", split=split, **read)
        per = [0] * data.num_labels
        for row in data.labels:
            for k in row:
                per[k] += 1
        shape = f"{data.num_labels} labels (" + ", ".join(f"{name}: {c:,}" for name, c in zip(data.label_names, per)) + ")"
        counts = {"examples": len(data), "labels": data.num_labels}
        shown = ["; ".join(data.label_names[k] for k in row) or "(none)" for row in data.labels[:n]]
    records = []
    for i, label in enumerate(shown):
        rec = {"text": _clip(data.texts_a[i], 140)}
        if data.texts_b is not None:
            rec["text_b"] = _clip(data.texts_b[i], 140)
        rec["label"] = label
        records.append(rec)
    a, b, lab = data.columns
    cols = f"columns {a!r}" + (f" + {b!r}" if b else "") + f", label {lab!r}"
    head = table_head(source, task, options, n)
    head.pop("head_records", None)
    return {"ok": True, "kind": "classification", "summary": f"{len(data):,} examples, {shape}; {cols}",
            "counts": counts, "problems": list(data.problems)[:50], "n_problems": len(data.problems),
            "records": records, "error": "", **head, "notes": id_notes(head, options)}


def plain_words(message: str) -> str:
    """A core message for the GUI: each ``--flag`` becomes the launcher's name for that setting
    ("skip such rows with --skip-invalid" -> "skip such rows with “Skip invalid rows”"); ``--task regression``
    becomes "the regression task"; a value given as ``--flag=VALUE`` becomes "type VALUE in “Flag”"
    ("--label-names=-2,-1,0" -> "type -2,-1,0 in “Label names”")."""
    message = re.sub(r"--task (\w+)", r"the \1 task", message)
    message = re.sub(r"(--[a-z][a-z0-9-]+)=([^\s)]+)", r"type \2 in \1", message)
    return re.sub(r"--[a-z][a-z0-9-]+", lambda m: f"“{FLAG_WORDS.get(m.group(0), m.group(0)[2:].replace('-', ' '))}”",
                  message)


def class_distribution_warnings(counts: dict[str, int], dev_fraction: float = 0.0) -> list[str]:
    """Warnings on the class distribution: imbalance (the smallest class under 10% of the largest) and
    classes too small for a dev split of ``dev_fraction``."""
    from explorer.core.specs.tasks import imbalanced_classes
    from explorer.ui.shell.short_names import short_name

    out = []
    pair = imbalanced_classes(counts)
    if pair is not None:
        small, big = pair
        out.append(f"imbalanced classes: {short_name(small)!r} has {counts[small]:,} examples, under 10% of {short_name(big)!r} "
                   f"({counts[big]:,}); consider balanced class weights; Best checkpoint by automatic goes by "
                   "macro F1")
    if dev_fraction > 0:
        thin = [k for k, v in counts.items() if v * dev_fraction < 1]
        if thin:
            out.append(f"classes with fewer examples than a {dev_fraction:.0%} dev split needs: "
                       + ", ".join(f"{short_name(k)} ({counts[k]})" for k in thin))
    return out


def id_notes(head: dict, options: dict | None) -> list[str]:
    """[why the column named like an id is not guessed] (its values repeat: core.data.row_ids.id_column_note)
    when no Id column is set, else []."""
    note = (head.get("guess") or {}).get("id_note") or ""
    return [note] if note and not (options or {}).get("id_column") else []


def unnamed_labels_note(data) -> list[str]:
    """["the labels are numbers (0, 1): name them …"] for classes given as integer ids without names (the run and
    every view then call them 0, 1, …: SST-2's classes would read LABEL_0 / LABEL_1, and the user would have to
    know that 0 = negative), else []."""
    if data.regression or data.label_names or data.num_labels < 2:
        return []
    ids = ", ".join(str(i) for i in range(min(data.num_labels, 4))) + (", …" if data.num_labels > 4 else "")
    example = "e.g. negative,positive" if data.num_labels == 2 else f"{data.num_labels} names in id order"
    # short: the note sits under the class bars in a box of a few lines at 1280x800 (a longer one was cut there);
    # the Label names field's placeholder and tooltip say the rest
    return [f"the labels are numbers ({ids}): name them in “Label names” ({example})"]


LONG_LABEL = 200   # characters: a class name this long is most likely a text that a broken quote made the label


def long_label_warnings(data, limit: int = LONG_LABEL) -> list[str]:
    """["a label of 1,834 characters on line 17: a broken quote? (“यह एक लंबा…बन गया।”)"] for each class whose name is
    longer than ``limit`` characters, with the file line of its first row: an unclosed quote in a CSV makes the rest
    of the row (and of the rows after it) one label, a class of its own."""
    from explorer.ui.shell.short_names import short_name

    if data.regression:
        return []
    out = []
    for k, name in enumerate(data.class_names()):
        if len(str(name)) <= limit:
            continue
        first = next((i for i, y in enumerate(data.labels) if y == k), None)
        line = data.lines[first] if first is not None and first < len(data.lines) else None
        where = f" on line {line:,}" if line is not None else ""
        out.append(f"a label of {len(str(name)):,} characters{where}: a broken quote? (“{short_name(name)}”)")
    return out


def _preview_classification(source: str, task: str, n: int, split: str, text_columns, label_column,
                            options: dict | None = None) -> dict:
    from explorer.core.data.classification import load_classification
    from explorer.ui.shell.short_names import short_name

    options = dict(options or {})
    pair = bool(getattr(find_task_facts(task), "pair", False))
    head = table_head(source, task, options, n)
    data = load_classification(source, pair=pair, text_columns=text_columns or None,
                               label_column=label_column, split=split, id_column=str(options.get("id_column") or ""),
                               no_header=bool(options.get("no_header")), encoding=str(options.get("encoding") or ""),
                               label_names=options.get("label_names") or None,
                               skip_invalid=bool(options.get("skip_invalid")))
    counts = data.class_counts() if not data.regression else {}
    records = head.pop("head_records", [])   # the file as it is: its header and first rows
    if not head:
        records = []
        for i in range(min(n, len(data))):
            rec = {"text": _clip(data.texts_a[i], 140)}
            if data.texts_b is not None:
                rec["text_b"] = _clip(data.texts_b[i], 140)
            rec["label"] = data.class_names()[data.labels[i]] if counts else str(data.labels[i])
            records.append(rec)
    a, b, lab = data.columns
    cols = f"columns {a!r}" + (f" + {b!r}" if b else "") + f", label {lab!r}"
    dist = ", ".join(f"{short_name(k)}: {v:,}" for k, v in counts.items())   # a paragraph of a label: its ends
    summary = f"{len(data):,} examples, {data.num_labels} labels ({dist}); {cols}"
    dev_fraction = float(options.get("dev_fraction") or 0.0) if split == "train" else 0.0
    problems = (long_label_warnings(data) + class_distribution_warnings(counts, dev_fraction)
                + [m for lvl, m in data.notes if lvl == "warning"])
    notes = unnamed_labels_note(data) + id_notes(head, options) + [m for lvl, m in data.notes if lvl != "warning"]
    return {"ok": True, "kind": "classification", "summary": summary, "notes": [plain_words(x) for x in notes],
            "counts": {"examples": len(data), "labels": data.num_labels}, "class_counts": counts,
            "class_ids": [int(k) for k in data.labels[:CLASS_IDS_KEPT]] if counts else [],
            "unnamed_labels": data.num_labels if unnamed_labels_note(data) else 0,
            "columns": [], "guess": {}, **head,
            "used": {"text_columns": [c for c in (a, b) if c], "label_column": lab},
            "problems": [plain_words(p) for p in problems][:50], "n_problems": len(problems),
            "records": records, "error": ""}


def _preview_table(source: str, task: str, n: int, split: str, text_columns, label_column,
                   options: dict | None = None, on_head: Callable[[dict], None] | None = None) -> dict:
    """A table for a task of data_kind "table": scores / label sets for a regression or multi-label head
    (TaskFacts.problem), else classes (a big table's counted in pieces, its head first to ``on_head``)."""
    from explorer.ui.launch.big_table_preview import is_big_table, preview_big_table

    facts = find_task_facts(task)
    if facts is not None and (facts.is_regression or facts.is_multilabel):
        return _preview_scores_or_label_sets(source, task, n, split, text_columns, label_column,
                                             (options or {}).get("label_separator") or ";", options)
    if is_big_table(source):
        return preview_big_table(source, task, n, split, text_columns, label_column, options, on_head)
    return _preview_classification(source, task, n, split, text_columns, label_column, options)


# TaskFacts.data_kind -> its preview (the readers of core/data)
_READERS = {"squad": _preview_squad, "table": _preview_table, "swag": _preview_swag, "conll": _preview_tagging}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Print a JSON preview of a data source (used by the launcher).")
    p.add_argument("source")
    p.add_argument("--task", default="squad_v2")
    p.add_argument("--split", default="train")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--text-columns", default="")
    p.add_argument("--label-column", default="")
    p.add_argument("--options", default="{}", help="JSON: id_column, no_header, encoding, label_names, skip_invalid, "
                                                   "dev_fraction")
    a = p.parse_args(argv)
    cols = [c.strip() for c in a.text_columns.split(",") if c.strip()]
    def head(partial: dict) -> None:   # a first line with the first rows; the last line is the answer
        sys.stdout.write(json.dumps(partial, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    out = preview_data(a.source, a.task, n_records=a.n, split=a.split, text_columns=cols, label_column=a.label_column,
                       options=json.loads(a.options or "{}"), on_head=head)
    sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
