"""Run groups and comparisons: the Groups and Compare tabs and their views."""
