"""A question and passage to probe a run's checkpoint with (Qt-free; may read a file: use a worker thread).

"Open best checkpoint in inspectors" fills the probe panel from the run's own dev data: the first
answerable question of its local SQuAD-format dev file; else the run's first watch example; else the
launcher's default example. A classifier run's checkpoint opens in Classify with the first example of its
local dev file (else its training file), read as the run read it (:func:`first_classification_example`); a
tagging run's opens in Tag with its first dev sentence (:func:`first_tagging_sentence`).
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.ui.launch.presets import DEFAULT_WATCH


def first_dev_question(path: str | Path) -> tuple[str, str] | None:
    """(question, passage) of the first question with a gold answer in a local SQuAD JSON, else None."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for article in data.get("data", []) if isinstance(data, dict) else []:
        for para in article.get("paragraphs", []) if isinstance(article, dict) else []:
            context = para.get("context", "") if isinstance(para, dict) else ""
            for qa in para.get("qas", []) if isinstance(para, dict) else []:
                if isinstance(qa, dict) and qa.get("answers") and qa.get("question", "").strip() and context.strip():
                    return qa["question"], context
    return None


def example_for_run(config: dict) -> tuple[str, str]:
    """(question, passage) for probing a run's checkpoint, from its config (see the module docstring)."""
    dev = str(config.get("dev") or "")
    if dev and Path(dev).is_file():
        found = first_dev_question(dev)
        if found is not None:
            return found
    for ex in config.get("watch") or []:
        if isinstance(ex, dict) and ex.get("question") and (ex.get("passage") or ex.get("context")):
            return str(ex["question"]), str(ex.get("passage") or ex.get("context"))
    return DEFAULT_WATCH[0]["question"], DEFAULT_WATCH[0]["passage"]


def _local_files(config: dict, keys=("dev", "train")) -> list[Path]:
    """The run's data files of ``keys`` that are here, in that order: as written in the config, else (a relative
    path) against the runs folder the config names (``output_dir``); hub ids and files not here left out."""
    out = []
    for key in keys:
        name = str(config.get(key) or "")
        if not name:
            continue
        for candidate in (Path(name), Path(str(config.get("output_dir") or "")) / name):
            if candidate.is_file():
                out.append(candidate)
                break
    return out


def first_classification_example(config: dict, run_dir: str | None = None) -> dict | None:
    """The first example of a single-sentence, pair or regression run's local dev file (else, for a run that held
    training rows out as dev, ``run_dir``'s ``dev_split.csv``: the first held-out row; else its training file),
    read with the run's own column, header and encoding settings, as Classify's ``open_example`` takes it:
    {"kind", "text_a", "text_b", "label"} (the label a class id, -1 when the run's label names do not read it; a
    regression run's: the gold score, its text_b the second text column's, so that an STS-B run does not open on
    the previous model's lone sentence). A file that cannot be read that way is read again without the label names,
    then the next file is tried (not an empty sentence when the dev file's first label is not one of the names).
    None for another task, a hub dataset, files that are gone or cannot be read."""
    from explorer.core.data.classification import ClassificationDataError
    from explorer.core.specs.tasks import find_task_facts, is_single_label_table

    task = str(config.get("task") or "")
    facts = find_task_facts(task)
    if facts is None or not (is_single_label_table(task) or facts.is_regression):
        return None
    names = config.get("label_names") or None
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()] or None
    attempts = [(names, True)] + ([(None, False)] if names and not facts.is_regression else [])
    dev_files = _local_files(config, keys=("dev",))
    split = None
    if not dev_files and run_dir:   # the rows the run held out of its training file (never a training row)
        from explorer.core.runs.layout import dev_split_file

        split = dev_split_file(run_dir) if dev_split_file(run_dir).is_file() else None
    for source in _local_files(config):
        held_out = split is not None and source not in dev_files
        for label_names, labelled in attempts:
            try:
                data = _read_table(facts, str(source), config, label_names, cap=0 if held_out else 1)
                i = _first_held_out(split, data) if held_out else 0
            except (ClassificationDataError, OSError, ValueError):
                continue
            if len(data.texts_a) > i:
                text_b = data.texts_b[i] if data.texts_b is not None else ""
                label = float(data.labels[i]) if facts.is_regression else int(data.labels[i]) if labelled else -1
                return {"kind": task, "text_a": data.texts_a[i], "text_b": text_b, "label": label}
    return None


def _read_table(facts, source: str, config: dict, label_names, cap: int):
    """A classification or regression run's table ``source`` read with its config's columns, header and encoding
    (ClassificationData). Raises what the readers raise."""
    from explorer.core.data.classification import load_classification
    from explorer.core.data.scores_and_label_sets import load_regression

    columns = dict(text_columns=config.get("text_columns") or None, label_column=config.get("label_column") or "",
                   no_header=bool(config.get("no_header")), encoding=str(config.get("encoding") or ""), cap=cap)
    if facts.is_regression:
        return load_regression(source, **columns)
    return load_classification(source, pair=facts.pair, label_names=label_names, skip_invalid=True, **columns)


def _first_held_out(split, data) -> int:
    """The index in ``data`` of the first row ``split`` (a dev_split.csv) names, in the file's order (0 when it
    names none)."""
    from explorer.core.data.split import load_dev_split

    rows = load_dev_split(split, data)
    return rows[0] if rows else 0


def first_tagging_sentence(config: dict) -> str:
    """The first sentence (its words joined by spaces) of a tagging run's local dev file (else its training file);
    "" for another task, a hub dataset, a file that is gone or cannot be read."""
    from explorer.core.data.conll import load_tagging
    from explorer.core.errors import TaggingDataError
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(str(config.get("task") or ""))
    if facts is None or facts.data_kind != "conll":   # a tagging run: CoNLL words and tags
        return ""
    source = next((str(config.get(k)) for k in ("dev", "train") if config.get(k) and Path(str(config[k])).is_file()),
                  "")
    try:
        data = load_tagging(source, cap=1, encoding=str(config.get("encoding") or ""),
                            repair=bool(config.get("skip_invalid"))) if source else None
    except (TaggingDataError, OSError, ValueError):
        return ""
    return " ".join(data.words[0]) if data is not None and data.words else ""
