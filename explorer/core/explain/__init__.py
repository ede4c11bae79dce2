"""Attributions for every head: gradient x input and integrated gradients."""
