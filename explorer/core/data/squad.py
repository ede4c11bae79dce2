"""SQuAD v1.1 / v2.0 loading and validation: official JSON files and hub datasets -> one canonical Dataset.

Canonical columns (one row per question): ``id``, ``title``, ``context``, ``question``,
``answers`` = ``{"text": [...], "answer_start": [...]}`` (character offsets into context; several
gold answers in the dev sets, none for an unanswerable SQuAD 2.0 question) and ``is_impossible``.

Official format (Rajpurkar et al. 2016, 2018; https://rajpurkar.github.io/SQuAD-explorer/):
``{"version": ..., "data": [{"title", "paragraphs": [{"context", "qas": [{"id", "question",
"answers": [{"text", "answer_start"}], "is_impossible"?}]}]}]}``.

Validation never drops anything silently. Two kinds of problem:

- *record errors* (missing field, wrong type, empty question or context, empty answer text,
  duplicate id, is_impossible contradicting the answers): with ``strict=True`` (default) loading
  raises :class:`SquadDataError` naming the count and the first records; with ``strict=False``
  (CLI: ``bert-explorer eval --skip-invalid``) those records are skipped and each is listed in
  ``SquadReport.problems``.
- *answer offsets* (``context[answer_start:answer_start+len(text)] != text``): always reported;
  with ``repair=True`` (CLI: ``eval --repair``) moved to the nearest occurrence of the text
  (counted in ``repaired``). With ``drop_unfound=True`` an answer whose text does not occur in its
  passage at all is dropped (counted in ``dropped``), and a question left without answers is
  dropped too (``dropped_questions``). Training data always loads this way
  (:func:`load_training_squad`): a misaligned answer would otherwise silently label the wrong tokens.

SQuAD 2.0 variants: an ``is_impossible: true`` question may leave out ``answers`` (it is
unanswerable); ``plausible_answers`` are never gold.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

HUB_IDS = {"rajpurkar/squad": "v1.1", "squad": "v1.1", "rajpurkar/squad_v2": "v2.0", "squad_v2": "v2.0"}
_HUB_PATTERN = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
MAX_LISTED = 10


from explorer.core.errors import SquadDataError  # noqa: E402,F401 - re-exported (defined in core/errors.py)


@dataclass
class SquadReport:
    """What loading found.

    Attributes:
        path: file path or hub id (with split).
        version: "v1.1" or "v2.0".
        n_articles: articles (titles) in the source.
        n_questions: questions loaded (rows of the dataset).
        n_impossible: rows with is_impossible (no gold answer).
        problems: one line per problem, each naming the record; skipped records start with "skipped:".
        repaired: answers whose answer_start was moved (repair=True).
        n_skipped: records skipped (strict=False only).
        n_answers: gold answers loaded (several per question in dev sets).
        dropped: answers dropped because their text does not occur in the passage (drop_unfound=True).
        dropped_questions: questions dropped because none of their answers was left.
        n_misaligned: answers whose answer_start did not match their text (repaired, dropped or kept).
    """

    path: str
    version: str
    n_articles: int = 0
    n_questions: int = 0
    n_impossible: int = 0
    problems: list[str] = field(default_factory=list)
    repaired: int = 0
    n_skipped: int = 0
    n_answers: int = 0
    dropped: int = 0
    dropped_questions: int = 0
    n_misaligned: int = 0

    def answer_check(self) -> str:
        """What the answer check did, in one line: "3 answers repaired, 1 dropped" (or "all 5 gold answers
        match their passage"). Shown by the training run's log event, the CLI and the launcher preview."""
        if not self.n_misaligned:
            return f"all {_count(self.n_answers, 'gold answer')} match their passage"
        s = f"{_count(self.repaired, 'answer')} repaired, {self.dropped} dropped"
        if self.dropped_questions:
            s += f" ({_count(self.dropped_questions, 'question')} left without an answer, dropped)"
        kept = self.n_misaligned - self.repaired - self.dropped
        if kept:
            s += f", {kept} misaligned kept as given"
        return s

    def summary(self) -> str:
        """One line for logs and the CLI."""
        s = (f"{self.path}: SQuAD {self.version}, {_count(self.n_articles, 'article')}, "
             f"{_count(self.n_questions, 'question')} ({self.n_impossible} unanswerable), "
             f"{_count(self.n_answers, 'gold answer')}")
        if self.problems:
            s += f"; {_count(len(self.problems), 'problem')}"
        if self.repaired:
            s += f", {_count(self.repaired, 'answer offset')} repaired"
        if self.dropped:
            s += f", {_count(self.dropped, 'answer')} not in its passage dropped"
        if self.n_skipped:
            s += f", {_count(self.n_skipped, 'record')} skipped"
        return s


# ------------------------------------------------------------------------------------------------ helpers
def _count(n: int, noun: str) -> str:
    """'1 record', '2 records' (noun given in the singular)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _nearest(context: str, text: str, start: int) -> int | None:
    """Start of the occurrence of text in context nearest to start, or None."""
    best, pos = None, context.find(text)
    while pos != -1:
        if best is None or abs(pos - start) < abs(best - start):
            best = pos
        pos = context.find(text, pos + 1)
    return best


class _Collector:
    """Builds canonical rows and the problem list while walking a source."""

    def __init__(self, path: str, repair: bool, drop_unfound: bool = False):
        self.path, self.repair, self.drop_unfound = path, repair, drop_unfound
        self.rows: dict[str, list] = {k: [] for k in ("id", "title", "context", "question", "answers", "is_impossible")}
        self.errors: list[str] = []   # record errors (skipped / raise)
        self.notes: list[str] = []    # answer offset problems (kept)
        self.seen: dict[str, str] = {}
        self.repaired = 0
        self.n_answers = 0
        self.dropped = 0
        self.dropped_questions = 0
        self.n_misaligned = 0

    def error(self, where: str, what: str) -> None:
        self.errors.append(f"{where}: {what}")

    def add(self, where: str, qa: dict, title: str, context) -> None:
        """Validate one question dict (official keys) and append it as a row, or record why not."""
        if not isinstance(qa, dict):
            return self.error(where, f"question entry is a {type(qa).__name__}, expected an object")
        qid = qa.get("id")
        if qid is None or (isinstance(qid, str) and not qid.strip()):
            return self.error(where, "missing field 'id'")
        qid = str(qid)
        where = f"{where} id {qid!r}"
        if context is None:
            return self.error(where, "missing field 'context' (in its paragraph)")
        if not isinstance(context, str) or not context.strip():
            return self.error(where, "empty context")
        if "question" not in qa:
            return self.error(where, "missing field 'question'")
        question = qa["question"]
        if not isinstance(question, str) or not question.strip():
            return self.error(where, "empty question")
        answers = qa.get("answers")
        if answers is None:
            if qa.get("is_impossible") is not True:  # SQuAD 2.0 variants leave it out of unanswerable ones
                return self.error(where, "missing field 'answers'")
            answers = []  # plausible_answers are never gold
        if isinstance(answers, dict):  # hub layout {"text": [...], "answer_start": [...]}
            texts, starts = answers.get("text"), answers.get("answer_start")
            if not isinstance(texts, list) or not isinstance(starts, list) or len(texts) != len(starts):
                return self.error(where, "'answers' must hold equally long lists 'text' and 'answer_start'")
            answers = [{"text": t, "answer_start": s} for t, s in zip(texts, starts)]
        if not isinstance(answers, list):
            return self.error(where, f"'answers' is a {type(answers).__name__}, expected a list")
        checked = self._check_answers(where, answers, context)
        if isinstance(checked, str):
            return self.error(where, checked)
        texts, starts, n_dropped = checked
        if n_dropped and not texts:
            self.dropped_questions += 1
            self.notes.append(f"{where}: dropped (none of its answers occurs in the context)")
            return None
        impossible = qa.get("is_impossible")
        if impossible is None:
            impossible = not texts
        elif not isinstance(impossible, bool):
            return self.error(where, f"is_impossible {impossible!r} is not true/false")
        if impossible and texts:
            return self.error(where, f"is_impossible is true but it has {len(texts)} answers")
        if not impossible and not texts:
            return self.error(where, "is_impossible is false but it has no answers")
        if qid in self.seen:
            return self.error(where, f"duplicate id (first seen at {self.seen[qid]})")
        self.seen[qid] = where
        for key, value in (("id", qid), ("title", title), ("context", context), ("question", question),
                           ("answers", {"text": texts, "answer_start": starts}), ("is_impossible", impossible)):
            self.rows[key].append(value)
        self.n_answers += len(texts)

    def _check_answers(self, where: str, answers: list, context: str):
        """(texts, starts, n_dropped) after checking every answer against the context, or an error string."""
        texts, starts, n_dropped = [], [], 0
        for k, ans in enumerate(answers):
            if not isinstance(ans, dict) or "text" not in ans or "answer_start" not in ans:
                return f"answer {k} needs fields 'text' and 'answer_start'"
            text, start = ans["text"], ans["answer_start"]
            if not isinstance(text, str) or not text:
                return f"answer {k} has an empty text"
            if isinstance(start, bool) or not isinstance(start, int):
                return f"answer {k} answer_start {start!r} is not an integer"
            if context[start:start + len(text)] != text:
                self.n_misaligned += 1
                found = _nearest(context, text, start)
                got = context[max(0, start):start + len(text)]
                if found is None and self.drop_unfound:
                    self.notes.append(f"{where}: answer {k} {text!r} does not occur in the context "
                                      f"(answer_start {start} reads {got!r}); dropped")
                    self.dropped += 1
                    n_dropped += 1
                    continue
                if found is None:
                    self.notes.append(f"{where}: answer {k} {text!r} does not occur in the context "
                                      f"(answer_start {start} reads {got!r}); kept as given")
                elif self.repair:
                    self.notes.append(f"{where}: answer {k} {text!r} answer_start {start} -> {found} (repaired)")
                    start = found
                    self.repaired += 1
                else:
                    self.notes.append(f"{where}: answer {k} {text!r} answer_start {start} reads {got!r}; the text "
                                      f"occurs at {found} (use --repair (eval) / repair=True (Python) to move it)")
            texts.append(text)
            starts.append(start)
        return texts, starts, n_dropped

    def finish(self, report: SquadReport, strict: bool):
        import datasets

        if self.errors and strict:
            listed = "\n  ".join(self.errors[:MAX_LISTED])
            more = f"\n  ... and {len(self.errors) - MAX_LISTED} more" if len(self.errors) > MAX_LISTED else ""
            n = len(self.errors)
            raise SquadDataError(f"{self.path}: {_count(n, 'invalid question record')}:\n  {listed}{more}\n"
                                 f"Fix the file (training needs valid records); for evaluation you can skip "
                                 f"{'it' if n == 1 else 'them'} with `bert-explorer eval --skip-invalid` / "
                                 "strict=False (Python), and each skipped record is listed in the report.")
        report.problems = [f"skipped: {e}" for e in self.errors] + self.notes
        report.n_skipped = len(self.errors)
        report.repaired = self.repaired
        report.n_questions = len(self.rows["id"])
        report.n_impossible = sum(self.rows["is_impossible"])
        report.n_answers = self.n_answers
        report.dropped, report.dropped_questions = self.dropped, self.dropped_questions
        report.n_misaligned = self.n_misaligned
        if report.n_questions == 0:
            extra = f" ({_count(len(self.errors), 'invalid record')} skipped)" if self.errors else ""
            raise SquadDataError(f"{self.path}: no questions{extra}")
        return datasets.Dataset.from_dict(self.rows, features=squad_features()), report


def squad_features():
    """The datasets.Features of the canonical SQuAD dataset."""
    import datasets

    return datasets.Features({
        "id": datasets.Value("string"), "title": datasets.Value("string"), "context": datasets.Value("string"),
        "question": datasets.Value("string"),
        "answers": {"text": datasets.Sequence(datasets.Value("string")),
                    "answer_start": datasets.Sequence(datasets.Value("int32"))},
        "is_impossible": datasets.Value("bool"),
    })


# ------------------------------------------------------------------------------------------------ sources
def _read_json(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SquadDataError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise SquadDataError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        from explorer.core.data.sniff import sniff_data_file

        kind = sniff_data_file(path)   # a TSV / CSV / JSONL file is named for what it is, not as broken JSON
        if kind.kind in ("tsv", "csv", "jsonl", "text", "binary"):
            raise SquadDataError(f"{path}: {kind.description}; the SQuAD tasks need "
                                 "the official SQuAD JSON format") from None
        raise SquadDataError(f"{path}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def _load_file(path: Path, repair: bool, strict: bool, drop_unfound: bool = False):
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise SquadDataError(f"{path}: not an official SQuAD file (expected an object with a 'data' list of "
                             "articles)")
    articles = data["data"]
    raw_version = str(data.get("version", "")).lstrip("v")
    has_flag = any(isinstance(q, dict) and "is_impossible" in q for a in articles if isinstance(a, dict)
                   for p in (a.get("paragraphs") or []) if isinstance(p, dict) for q in (p.get("qas") or []))
    version = "v2.0" if raw_version.startswith("2") or has_flag else "v1.1"
    col = _Collector(str(path), repair, drop_unfound)
    for ai, article in enumerate(articles):
        where_a = f"article {ai}"
        if not isinstance(article, dict):
            col.error(where_a, f"is a {type(article).__name__}, expected an object")
            continue
        title = article.get("title")
        if title is not None:
            where_a += f" ({title!r})"
        paragraphs = article.get("paragraphs")
        if not isinstance(paragraphs, list):
            col.error(where_a, "missing field 'paragraphs' (a list)")
            continue
        for pi, par in enumerate(paragraphs):
            where_p = f"{where_a}, paragraph {pi}"
            if not isinstance(par, dict) or not isinstance(par.get("qas"), list):
                col.error(where_p, "missing field 'qas' (a list)")
                continue
            for qi, qa in enumerate(par["qas"]):
                col.add(f"{where_p}, question {qi}", qa, str(title or ""), par.get("context"))
    report = SquadReport(path=str(path), version=version, n_articles=len(articles))
    ds, report = col.finish(report, strict)
    if version == "v1.1" and report.n_impossible:
        report.problems.append(f"{path}: {report.n_impossible} questions without answers in a v1.1 file "
                               "(treated as unanswerable)")
    return ds, report


def _load_hub(source: str, split: str, repair: bool, strict: bool, drop_unfound: bool = False):
    import os

    from explorer.core.hub import HubError, hub_reachable, parse_dataset_source

    hub_id, config, split = parse_dataset_source(source, split) or (source, None, split)

    advice = ("Use a local official-format SQuAD JSON file instead (for example train-v2.0.json / dev-v2.0.json "
              "from https://rajpurkar.github.io/SQuAD-explorer/).")
    offline = any(os.environ.get(v, "0") not in ("0", "", "false", "False")
                  for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))
    try:
        import datasets

        if not offline and not hub_reachable(5.0):
            raise ConnectionError("hub unreachable")
        if hub_id in HUB_IDS:   # the well-known ids, as the datasets library has always read them
            ds = datasets.load_dataset(hub_id, config, split=split)
        else:                   # fetched with progress and cancel, read from the cached snapshot
            from explorer.core.hub import load_hub_dataset

            ds = load_hub_dataset(hub_id, config, split)
    except HubError as exc:   # missing, gated, offline without a copy, cut off: its own sentence
        raise SquadDataError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - any failure becomes one clear message
        if offline:
            reason = "this machine is offline (HF_HUB_OFFLINE / HF_DATASETS_OFFLINE) and there is no cached copy"
        elif isinstance(exc, ConnectionError):
            reason = "the hub cannot be reached from this machine (offline?)"
        else:
            reason = f"loading failed: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}"
        raise SquadDataError(f"{hub_id!r} is a Hugging Face hub dataset id (split {split!r}) and could not be "
                             f"loaded: {reason}. {advice}") from None
    version = HUB_IDS.get(hub_id, "v2.0" if "v2" in hub_id else "v1.1")
    col = _Collector(f"{hub_id} [{split}]", repair, drop_unfound)
    titles = set()
    for k, row in enumerate(ds):
        titles.add(row.get("title"))
        col.add(f"row {k}", row, str(row.get("title") or ""), row.get("context"))
    return col.finish(SquadReport(path=f"{hub_id} [{split}]", version=version, n_articles=len(titles)), strict)


def load_squad(source: str, *, split: str = "validation", repair: bool = False, strict: bool = True,
               drop_unfound: bool = False):
    """Load SQuAD v1.1 / v2.0 into the canonical ``datasets.Dataset`` and a :class:`SquadReport`.

    Args:
        source: path of an official-format JSON file, or a hub id (``rajpurkar/squad``,
            ``rajpurkar/squad_v2``; any ``owner/name`` that is not an existing path), optionally with a
            config and split: ``test-org/squad-mini::plain_text::train`` (explorer.core.hub).
        split: hub split ("train", "validation"); ignored for files (a file is one split).
        repair: move answer_start values that do not match the answer text to the nearest occurrence.
        strict: raise on record errors (default); False skips them and lists each in the report.
        drop_unfound: drop answers whose text does not occur in the passage (and questions left without any).

    Returns:
        (dataset, report); dataset columns id, title, context, question, answers{text, answer_start},
        is_impossible, in file order.

    Raises:
        SquadDataError: missing file, malformed JSON (line and column), not the official layout, record
            errors with strict=True (count + first records), no questions, or a hub id that cannot be
            loaded (offline: says so and suggests a local file).
    """
    source = str(source).strip()
    if not source:
        raise SquadDataError("no SQuAD data given: pass a local official-format JSON file or a hub id")
    path = Path(source).expanduser()
    if path.is_dir():
        raise SquadDataError(f"{source}: is a folder; give the SQuAD JSON file (e.g. dev-v2.0.json)")
    if path.exists():
        return _load_file(path, repair, strict, drop_unfound)
    hub_id = source.split("::")[0]
    if hub_id in HUB_IDS or (_HUB_PATTERN.match(hub_id) and not hub_id.lower().endswith(".json")
                             and not source.startswith((".", "/", "~")) and source.count("::") <= 2):
        return _load_hub(source, split, repair, strict, drop_unfound)
    raise SquadDataError(f"{source}: no such file (and not a hub dataset id such as rajpurkar/squad_v2)")


def load_training_squad(source: str, *, split: str = "train"):
    """Load SQuAD data for training: strict records, every gold answer checked against its passage
    (``passage[s:s+len(text)] == text``), misaligned ones moved to the nearest exact occurrence and those
    whose text is not in the passage dropped. ``report.answer_check()`` says how many. Same errors as
    :func:`load_squad`."""
    return load_squad(source, split=split, repair=True, strict=True, drop_unfound=True)


def gold_answers(dataset) -> dict[str, list[str]]:
    """id -> gold answer texts ([] for unanswerable), the ``gold`` argument of explorer.core.metrics.squad."""
    return {qid: list(a["text"]) for qid, a in zip(dataset["id"], dataset["answers"])}


def squad_version(dataset) -> str:
    """"v2.0" when any question is unanswerable, else "v1.1" (how the metrics will score it)."""
    return "v2.0" if any(dataset["is_impossible"]) else "v1.1"
