"""`bert-explorer score`: score someone else's predictions like the official SQuAD scripts.

Example::

    bert-explorer score --data dev-v2.0.json --predictions predictions.json --null-odds null_odds.json

Prints JSON on stdout with the official keys: v1.1 ``exact_match``, ``f1``; v2.0 ``exact``, ``f1``,
``total``, ``HasAns_*``, ``NoAns_*`` and with --null-odds ``best_exact``, ``best_exact_thresh``,
``best_f1``, ``best_f1_thresh`` (plus ``best_tau``, the same threshold in score_diff units).
Exit codes: 0 ok, 1 predictions do not cover the questions, 2 unreadable input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from explorer.core.errors import UserError, as_user_error, exits_on_user_error


def add_arguments(parser) -> None:
    parser.add_argument("--data", required=True, help="official SQuAD JSON file (or hub id) with the gold answers")
    parser.add_argument("--split", default="validation", help="hub split (default validation)")
    parser.add_argument("--predictions", required=True, help="predictions.json: {question id: answer text}")
    parser.add_argument("--null-odds", default=None, help="null_odds.json: {question id: null odds} (SQuAD 2.0)")
    parser.add_argument("--na-prob-thresh", type=float, default=1.0,
                        help="official --na-prob-thresh: predict no answer where null odds exceed it (default 1.0)")
    parser.add_argument("--allow-missing", action="store_true",
                        help="score questions without a prediction as wrong (0, named on stderr) instead of failing")


class _InputError(UserError):
    pass


def _read_mapping(path: str, what: str, value_type) -> dict:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise _InputError(f"{path}: no such file ({what})") from None
    except json.JSONDecodeError as exc:
        raise _InputError(f"{path}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _InputError(f"{path}: cannot read ({exc})") from None
    if not isinstance(data, dict):
        raise _InputError(f"{path}: expected a JSON object {{question id: {what}}}, got {type(data).__name__}")
    bad = [k for k, v in data.items() if not isinstance(v, value_type) or isinstance(v, bool)]
    if bad:
        raise _InputError(f"{path}: {len(bad)} entries are not {what} (first: {bad[0]!r} -> {data[bad[0]]!r})")
    return data


def missing_note(missing: list[str], total: int, predictions: str) -> str:
    """The --allow-missing warning: how many questions have no prediction, and every one of their ids
    (evaluate-v1.1.py prints each as 'Unanswered question ... will receive score 0.')."""
    return (f"warning: {len(missing)} of {total} questions have no prediction in {predictions}; each is scored 0 "
            f"(a wrong answer): " + ", ".join(missing))


OFFICIAL_V2_ORDER = ("exact", "f1", "total", "HasAns_exact", "HasAns_f1", "HasAns_total", "NoAns_exact",
                     "NoAns_f1", "NoAns_total", "best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh",
                     "best_tau")


def score(data: str, predictions: str, null_odds: str | None = None, *, split: str = "validation",
          na_prob_thresh: float = 1.0, allow_missing: bool = False, warn=None) -> dict:
    """Score files; returns the official-style dict. Raises _InputError / SquadDataError / ValueError."""
    from explorer.core.data.squad import gold_answers, load_squad, squad_version
    from explorer.core.metrics.squad import missing_predictions, squad_evaluate

    dataset, report = load_squad(data, split=split)
    gold = gold_answers(dataset)
    preds = _read_mapping(predictions, "answer text", str)
    odds = _read_mapping(null_odds, "a number", (int, float)) if null_odds else None
    missing = missing_predictions(gold, preds)
    if missing and not allow_missing:
        raise ValueError(f"{predictions} has no prediction for {len(missing)} of the {len(gold)} questions in "
                         f"{data} (first: {', '.join(missing[:5])}); pass --allow-missing to score them as wrong")
    if missing and warn:
        warn(missing_note(missing, len(gold), predictions))
    if odds is not None:
        no_odds = [q for q in gold if q in preds and q not in odds]
        if no_odds:
            raise ValueError(f"{null_odds} has no null odds for {len(no_odds)} predicted questions "
                             f"(first: {', '.join(no_odds[:5])})")
    extra = [q for q in preds if q not in gold]
    if extra and warn:
        warn(f"warning: {len(extra)} prediction ids are not questions of {data} (ignored; first: {extra[0]})")
    # evaluate-v2.0.py for a v2.0 file (its "version" field or any unanswerable question) or with null odds
    version = "v2.0" if odds is not None or report.version == "v2.0" else squad_version(dataset)
    res = squad_evaluate(gold, preds, odds, na_prob_thresh, version=version, allow_missing=allow_missing)
    if version == "v1.1":
        return {"exact_match": res["exact_match"], "f1": res["f1"]}
    res["exact"] = res.pop("exact_match")
    return {k: res[k] for k in OFFICIAL_V2_ORDER if k in res}


@exits_on_user_error
def run(args) -> int:
    from explorer.core.data.squad import SquadDataError

    def warn(msg):
        print(msg, file=sys.stderr)

    try:
        out = score(args.data, args.predictions, args.null_odds, split=args.split,
                    na_prob_thresh=args.na_prob_thresh, allow_missing=args.allow_missing, warn=warn)
    except (SquadDataError, _InputError, ValueError) as exc:   # ValueError: e.g. predictions missing questions
        raise as_user_error(exc) from None
    print(json.dumps(out, indent=2))
    from explorer.core.specs.metric_display import explain_best_threshold

    for line in explain_best_threshold(out):   # the two thresholds, each in its own units (stderr: stdout stays JSON)
        print(line, file=sys.stderr)
    return 0
