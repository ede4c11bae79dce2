"""Benchmark results as data (explorer/benchmarks.py): the writer's entries and the guide's generated page."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from explorer import benchmarks

MACHINE = {"cpu": "Test CPU 9000", "cores": 4, "gpu": None, "amx": False}


def test_an_entry_records_ratios_first_and_the_run_it_came_from(tmp_path, monkeypatch):
    monkeypatch.setattr(benchmarks, "machine", lambda: dict(MACHINE))
    monkeypatch.setattr(benchmarks, "load_average", lambda: 1.25)
    monkeypatch.setattr(benchmarks, "git_commit", lambda root=benchmarks.REPO_ROOT: "abc1234567")
    path = benchmarks.write_result("bench_x", folder=tmp_path, about="what x measures", case="small",
                                   figures={"probe p95 (ms)": 172.61234567}, ratios={"probe / bare, p95": 0.8861},
                                   command="python scripts/bench_x.py --runs 5", load_start=0.5)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert path == tmp_path / "bench_x.json" and data["benchmark"] == "bench_x" and data["about"] == "what x measures"
    (entry,) = data["entries"]
    assert list(entry)[:4] == ["date", "case", "ratios", "figures"]          # ratios before the absolute figures
    assert entry["ratios"] == {"probe / bare, p95": 0.8861}
    assert entry["figures"] == {"probe p95 (ms)": 172.612}                  # 6 significant digits
    assert entry["machine"] == MACHINE and entry["load"] == [0.5, 1.25] and entry["commit"] == "abc1234567"
    assert entry["command"] == "python scripts/bench_x.py --runs 5" and entry["source"] == "measured"
    assert entry["date"].endswith("Z")


def test_entries_append_and_a_copied_record_keeps_only_what_it_was_given(tmp_path, monkeypatch):
    monkeypatch.setattr(benchmarks, "load_average", lambda: pytest.fail("a copied record must not read the load"))
    for value in (1.0, 2.0):
        benchmarks.write_result("b", folder=tmp_path, figures={"s": value}, machine_info=MACHINE, command="c",
                                date=f"2026-01-0{int(value)}T00:00:00Z", source="notes of commit 123")
    entries = json.loads((tmp_path / "b.json").read_text())["entries"]
    assert [e["figures"]["s"] for e in entries] == [1.0, 2.0]
    assert entries[0]["load"] == [None, None] and entries[0]["commit"] is None
    assert not list(tmp_path.glob("*.tmp"))                                  # written through a temp file
    with pytest.raises(ValueError):
        benchmarks.make_entry(figures={}, ratios={})


def test_record_writes_only_with_results_and_names_the_script(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(benchmarks, "machine", lambda: dict(MACHINE))
    parser = argparse.ArgumentParser()
    benchmarks.add_results_argument(parser)
    assert benchmarks.record(parser.parse_args([]), "b", figures={"s": 1.0}) is None
    assert parser.parse_args(["--results"]).results == str(benchmarks.RESULTS_DIR)
    args = parser.parse_args(["--results", str(tmp_path)])
    path = benchmarks.record(args, "b", figures={"s": 1.0}, command="python scripts/b.py")
    assert path == tmp_path / "b.json" and f"results: {path}" in capsys.readouterr().out


def test_machine_and_command_line_are_read_from_this_machine():
    info = benchmarks.machine()
    assert set(info) == {"cpu", "cores", "gpu", "amx"} and info["cpu"] and info["amx"] in (True, False, None)
    line = benchmarks.command_line(["--runs", "5", "a b"], script=str(benchmarks.REPO_ROOT / "scripts" / "bench_x.py"))
    assert line == "python scripts/bench_x.py --runs 5 'a b'"


def _entry(date, machine, case="", **kw):
    return benchmarks.make_entry(date=date, case=case, machine_info=machine, command=f"cmd {date}", source="test",
                                 **kw)


def test_the_page_shows_the_latest_result_per_machine_and_case_ratios_first(tmp_path):
    other = dict(MACHINE, cpu="Other CPU", gpu="NVIDIA H200", amx=None)
    data = {"benchmark": "bench_probe", "about": "Probe latency against the bare forward.", "entries": [
        _entry("2026-01-01T00:00:00Z", MACHINE, "384 tokens", ratios={"probe / bare": 1.5}, figures={"p95 (ms)": 200.0},
               load_start=1.0, load_end=2.0, commit="old"),
        _entry("2026-02-01T00:00:00Z", MACHINE, "384 tokens", ratios={"probe / bare": 0.886}, figures={"p95 (ms)": 172.6},
               load_start=1.5, load_end=1.7, commit="new"),
        _entry("2026-01-15T00:00:00Z", other, "384 tokens", ratios={"probe / bare": 1.1}, figures={"p95 (ms)": 12.0}),
        _entry("2026-01-15T00:00:00Z", MACHINE, "200 tokens", figures={"p95 (ms)": 90.0}, notes="one slow run"),
    ]}
    (tmp_path / "bench_probe.json").write_text(json.dumps(data), encoding="utf-8")
    page = benchmarks.benchmarks_markdown(tmp_path)
    assert page.startswith("# Benchmarks\n") and "## bench_probe" in page
    assert "Probe latency against the bare forward." in page
    table = page.split("## bench_probe", 1)[1]
    header = next(line for line in table.splitlines() if line.startswith("| case"))
    assert header == ("| case | figure | Test CPU 9000 · 4 cores · no AMX · no GPU | "
                      "Other CPU · 4 cores · NVIDIA H200 |")
    rows = [line for line in table.splitlines() if line.startswith("| ") and line != header]
    assert rows[0] == "| 384 tokens | **probe / bare** | **0.886** | **1.1** |"      # the newest, ratio first
    assert rows[1] == "|  | p95 (ms) | 172.6 | 12 |"
    assert rows[2].startswith("|  | recorded | 2026-02-01, commit new, load 1.5 → 1.7, from notes † |")
    assert "**1.5**" not in page and "commit old" not in page                  # the older result is not shown
    assert "| 200 tokens | p95 (ms) | 90 |  |" in rows
    assert "- 200 tokens: one slow run" in page and "- 384 tokens: `cmd 2026-02-01T00:00:00Z`" in page


def test_an_empty_results_folder_says_so(tmp_path):
    assert "No results recorded yet." in benchmarks.benchmarks_markdown(tmp_path / "none")


def test_the_committed_results_files_read_and_name_their_source():
    files = sorted(benchmarks.RESULTS_DIR.glob("*.json"))
    assert files, "benchmarks/results holds the recorded figures"
    for path in files:
        data = benchmarks.read_results(path)
        assert data["benchmark"] == path.stem and data["entries"], path
        for entry in data["entries"]:
            assert entry["figures"] or entry["ratios"], path
            assert {"date", "command", "machine", "load", "commit", "source"} <= set(entry), path
    scripts = {p.stem for p in (benchmarks.REPO_ROOT / "scripts").glob("*.py")}
    # a script writes <its name>.json, or <its name>_<data set>.json when it measures several (learning_curve)
    orphans = {p.stem for p in files if not any(p.stem == s or p.stem.startswith(s + "_") for s in scripts)}
    assert orphans <= {"ci_run"}, "a results file per benchmark script"


def test_a_results_file_of_another_shape_is_refused(tmp_path):
    bad = Path(tmp_path / "x.json")
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="not a benchmark results file"):
        benchmarks.read_results(bad)


def test_the_side_by_side_time_to_f1_compares_the_variant_with_the_reference_after_equal_windows_and_at_the_end():
    sys.path.insert(0, str(benchmarks.REPO_ROOT / "scripts"))
    import time_to_f1_ab

    def row(step, minutes, f1):
        return {"step": step, "seconds": minutes * 60, "windows": step * 16, "f1": f1, "exact_match": f1 - 8}

    curves = {"reference": [row(200, 11.6, 60.57), row(400, 25.0, 68.01), row(474, 30.0, 68.21)],
              "variant": [row(200, 12.1, 60.96), row(400, 25.1, 68.15), row(479, 30.0, 67.38)]}
    figures, diffs = time_to_f1_ab.compare(curves)
    assert diffs["dev F1 at the end: variant - reference (points)"] == pytest.approx(67.38 - 68.21)
    assert diffs["dev F1 after 3,200 windows: variant - reference (points)"] == pytest.approx(60.96 - 60.57)
    assert diffs["dev F1 after 6,400 windows: variant - reference (points)"] == pytest.approx(68.15 - 68.01)
    assert len(diffs) == 3   # the ends' different steps are compared once, as the end
    half = {"reference": curves["reference"], "variant": [dict(r, windows=r["step"] * 8) for r in curves["variant"]]}
    _figures, diffs = time_to_f1_ab.compare(half)   # batch 8 against 16: step 400 of one is step 200 of the other
    assert diffs["dev F1 after 3,200 windows: variant - reference (points)"] == pytest.approx(68.15 - 60.57)
    assert len(diffs) == 2
    assert figures["variant: steps"] == 479 and figures["reference: dev F1 after 11.6 min (step 200)"] == 60.57
    with pytest.raises(SystemExit, match="no evaluated snapshot"):
        time_to_f1_ab.compare({"reference": curves["reference"], "variant": []})
    args = type("A", (), {"out": "/tmp/x", "save_every": 200, "dev_questions": 1000, "minutes": 30.0})()
    cmd = time_to_f1_ab.run_command(args, "variant", "--max-seq-length 384 -- --head-lr-multiplier 10")
    assert cmd[-5:] == ["--max-seq-length", "384", "--", "--head-lr-multiplier", "10"]
    assert cmd[cmd.index("--out") + 1] == "/tmp/x/variant" and cmd[cmd.index("--minutes") + 1] == "30.0"
