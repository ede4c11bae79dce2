"""Token tagging: word-piece alignment, windows, entities, running a tagger on raw text."""
