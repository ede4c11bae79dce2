"""BERT Explorer: launch BERT fine-tunes, watch them learn, probe spans, tau and attention."""

__version__ = "0.2.0"
