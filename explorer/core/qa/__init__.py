"""Extractive QA: windows, span decoding, batched inference, the probe, the τ study, saliency, comparisons."""
