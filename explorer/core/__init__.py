"""Qt-free core: models, data, features, decoding, metrics, attention, probe, training, runs."""
