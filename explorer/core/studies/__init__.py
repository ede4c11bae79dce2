"""Studies over many runs: groups (restarts, grids), cross-validation, their statistics and reports."""
