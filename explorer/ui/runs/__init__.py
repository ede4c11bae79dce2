"""Runs in the GUI: the Runs dock, the worker processes that train them, and what the GUI knows of each run."""
