"""How long the launcher's table preview takes on a 100,000-row CSV (target: under 1 s).

Writes a CSV of N rows (text, label, id; a quoted comma in every tenth text) to a temporary folder and
times ``explorer.core.data.table.preview_table`` (the head kept, the rest counted), best of 3.

    python scripts/bench_table_preview.py [N] [--results]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

from explorer.core.data.table import preview_table


def main(n: int = 100_000) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        with open(path, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(["id", "text", "label"])
            for i in range(n):
                text = f"row {i}: a fairly ordinary sentence about the film" + (", with a comma" if i % 10 == 0 else "")
                out.writerow([i, text, ("negative", "neutral", "positive")[i % 3]])
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            preview = preview_table(path, n=20)
            times.append(time.perf_counter() - t0)
        size = path.stat().st_size / 1e6
        print(f"preview of a {preview.n_rows:,}-row CSV ({size:.1f} MB): best {min(times):.3f} s, "
              f"worst {max(times):.3f} s of 3; guessed text {preview.guess.text_columns}, "
              f"label {preview.guess.label_column}, id {preview.guess.id_column}")
        return {f"{preview.n_rows:,}-row CSV preview, best of 3 (s)": min(times)}


def real_stance() -> dict:
    """The launcher's whole classification preview (read, labels, notes) of the 2,814-row SemEval-2016 stance
    file, when $EXPLORER_REAL_DATA names the shared data folder."""
    import os

    real = os.environ.get("EXPLORER_REAL_DATA")
    path = Path(real or "") / "stance_semeval2016" / "train.txt"
    if not real or not path.is_file():
        print("stance file: skipped (EXPLORER_REAL_DATA not set)")
        return {}
    from explorer.ui.launch.data_preview import preview_data

    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        res = preview_data(str(path), "single", options={"dev_fraction": 0.1})
        times.append(time.perf_counter() - t0)
    print(f"launcher preview of the stance file ({res['counts']['examples']:,} rows, {res['class_counts']}): "
          f"best {min(times):.3f} s, worst {max(times):.3f} s of 3")
    return {"stance file, the launcher's whole preview, best of 3 (s)": min(times)}


if __name__ == "__main__":
    from explorer.benchmarks import add_results_argument, load_average, record

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=100_000, help="rows of the made CSV (default 100,000)")
    add_results_argument(ap)
    args = ap.parse_args()
    load0 = load_average()
    figures = main(args.n) | real_stance()
    record(args, "bench_table_preview", case=f"{args.n:,}-row CSV; the stance file", figures=figures, load_start=load0)
