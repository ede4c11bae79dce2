"""Sequence classification and multiple choice: the head's arithmetic, running it, dev reports, comparisons."""
