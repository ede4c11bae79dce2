"""Lint: `ruff check explorer` finds nothing under the pyproject.toml configuration ([tool.ruff]); and the code,
tests and docs say what the app does, not when it changed: no file in explorer/, tests/ or docs/ cites a
user trial, an issue number, a development round or a branch name, in its text or its name (the phrases are
HISTORY_EXAMPLES below)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HISTORY_TREES = ("explorer", "tests", "docs")
HISTORY_SUFFIXES = (".py", ".md", ".rst", ".txt")
_ORDINAL = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
            "fourteenth|fifteenth|[0-9]+(?:st|nd|rd|th)")
# the word trial with a number or after an ordinal (spelled out or as digits), a named kind of trial (fresh-user,
# first-hour), an issue or a round with a number, a branch name of the t-number-letter form (HISTORY_EXAMPLES).
# Ordinary words pass: "trial_params" (a Trainer field), "12 trials", "around 1450", "round(x, 2)", "issued".
HISTORY = re.compile(r"\btrials?[ _-]?#?[0-9]+"
                     rf"|\b(?:{_ORDINAL})[- ](?:(?:fresh[- ]user|first[- ]hour)[- ])?trials?\b"
                     r"|\b(?:fresh[- ]user|first[- ]hour)[- ]trials?\b"
                     r"|\bissues?[ _-]?#?[0-9]+"
                     r"|\brounds?[ _-]?[0-9]+"
                     r"|\bt1[0-9][ab]\b", re.IGNORECASE)
HISTORY_FILE_NAME = re.compile(r"trial|round_?[0-9]|fixes_?[0-9]|(?<![a-z])t1[0-9][ab](?![a-z])", re.IGNORECASE)
# what starts a continued line of a comment, a docstring, a list item or a quote, dropped before two lines are
# read as one ("... (eleventh" / "# trial)")
_CONTINUATION = re.compile(r'^\s*(?:#+|"""|[*>-])?\s*')


def history_mentions(text: str) -> list[tuple[int, str]]:
    """(line number, the words) of each mention of the project's history in ``text``: on one line, or across a
    line break inside a comment or paragraph (the line number is the first line's)."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        found += [(i + 1, m.group(0)) for m in HISTORY.finditer(line)]
        if i + 1 < len(lines):
            head = line.rstrip()
            joined = head + " " + _CONTINUATION.sub("", lines[i + 1], count=1)
            found += [(i + 1, m.group(0).replace("\n", " ")) for m in HISTORY.finditer(joined)
                      if m.start() < len(head) < m.end()]
    return found


def test_ruff_finds_nothing_in_explorer():
    pytest.importorskip("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "explorer"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_config_selects_the_rules_the_noqa_comments_name():
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+

    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    for prefix in ("E", "F", "N", "BLE", "A"):   # E402, E731, F401, F811, N802, BLE001, A003 in the code
        assert prefix in lint["select"]


HISTORY_EXAMPLES = {   # the id keeps the test names free of the phrases themselves
    "ordinal": "(eighth trial: a stance run's 3 carried over)", "capitalised": "Twelfth trial (83): the greyed",
    "numbered": "trial 11", "in-a-path": "/tmp/trial9/home/runs", "numeric-ordinal": "the 10th trial",
    "named-ordinal": "Second fresh-user trial: scrolling", "named": "(fresh-user trial)",
    "first-hour": "First-hour trial: the τ grid", "issue": "(issue 25, finding 2)", "issues": "issues 9 and 12",
    "issue-hash": "issue #30", "issue-and-round": "Issue 30, round 3:", "round": "after round 3's first step",
    "branch": "branch t12a", "branch-in-parens": "(t12b)",
    "across-a-comment-break": "# a combo box read it (eleventh\n        # trial); then"}
ORDINARY_WORDS = {
    "trainer-field": '"trial_params": None', "binomial": "b successes out of b + c trials at 0.5",
    "around": "Around 1450, in Mainz", "round-call": "round(x, 2)", "rounded": "a rounded figure",
    "issued": "the decree issued in 196 BC", "an-issue": "an issue with the tokenizer",
    "rounds": "three rounds of A/B", "a-name": "t12 = time.perf_counter()",
    "no-ordinal-across-a-break": "the first run's dev rows\n# trial and error"}


@pytest.mark.parametrize("text", list(HISTORY_EXAMPLES.values()), ids=list(HISTORY_EXAMPLES))
def test_the_history_pattern_finds_a_trial_an_issue_a_round_or_a_branch(text):
    assert history_mentions(text), text


@pytest.mark.parametrize("text", list(ORDINARY_WORDS.values()), ids=list(ORDINARY_WORDS))
def test_the_history_pattern_passes_ordinary_words(text):
    assert not history_mentions(text), history_mentions(text)


def test_no_code_test_or_doc_tells_the_projects_history():
    """Every file under explorer/, tests/ and docs/ (this one's examples aside): its name, and the text of the
    sources and documents, free of history mentions. A comment states the rule and the failure it prevents."""
    found = []
    for tree in HISTORY_TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            rel = path.relative_to(ROOT).as_posix()
            if HISTORY_FILE_NAME.search(path.name):
                found.append(f"{rel}: its name")
            if path.suffix in HISTORY_SUFFIXES and path.resolve() != Path(__file__).resolve():
                found += [f"{rel}:{n}: {words!r}" for n, words in history_mentions(path.read_text(encoding="utf-8"))]
    assert not found, f"{len(found)} history mentions:\n" + "\n".join(found)
