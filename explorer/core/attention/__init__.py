"""Attention weights: collection hooks, memory budget, block flow, layers, selection, HTML export."""
