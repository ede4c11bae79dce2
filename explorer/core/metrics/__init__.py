"""Metrics and statistics: official SQuAD, GLUE, regression, multi-label, tagging, significance, calibration, baselines."""
