"""Predict a whole file with a checkpoint (``bert-explorer predict``, the app's Predictions page).

reading.py (the one file reader, swappable), writing.py (writers by OUT suffix, resume), facts.py (what a
checkpoint predicts, from its JSON files), engine.py (predict_file: streaming inference), review.py (a
person's corrections, the labelled file, the fine-tune data).
"""
