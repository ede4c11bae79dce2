"""The Groups page's restarts count and seeds kept in agreement, Qt-free: the seeds typed set the count, and a new
count takes or adds seeds, so the box never says "3 restarts" beside the seeds "1,2" of the 2 runs queued.
"""

from __future__ import annotations

__all__ = ["count_of_seeds", "seed_parts", "seeds_for_count"]


def seed_parts(text: str) -> list[str]:
    """The parts of a seeds box's text, split at commas, semicolons and spaces: '1, 2;3' -> ['1', '2', '3']."""
    return [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]


def count_of_seeds(text: str) -> int | None:
    """How many restarts the seeds ``text`` ("1, 2,3") make: its distinct whole numbers; None when it is empty or
    not (yet) a list of whole numbers (the count then stays as it is)."""
    parts = seed_parts(text)
    try:
        seeds = [int(p) for p in parts]
    except ValueError:
        return None
    return len(set(seeds)) or None


def seeds_for_count(count: int, text: str) -> str | None:
    """The seeds for ``count`` restarts from the seeds typed (``text``): the first ``count`` of them, else them and
    the next whole numbers above the largest ("1,2" for 3 restarts: "1, 2, 3"); None when the box is empty (the
    seeds are then generated) or not a list of whole numbers (left for the user to correct)."""
    if count_of_seeds(text) is None:
        return None
    seeds: list[int] = []
    for part in seed_parts(text):
        if int(part) not in seeds:
            seeds.append(int(part))
    seeds = seeds[:count]
    while len(seeds) < count:
        seeds.append(max(seeds) + 1)
    return ", ".join(str(s) for s in seeds)
