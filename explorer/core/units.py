"""Sizes as people read them (a kernel helper: no imports from the rest of explorer.core)."""

from __future__ import annotations


def format_bytes(n: float) -> str:
    """'1.2 GiB', '256 MiB', '12 KiB' (binary units; one decimal below 10, none from 10 on); '512 B' below 1 KiB."""
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{int(n)} B"
