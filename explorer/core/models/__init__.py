"""Loading models and tokenizers, what loading did, window settings, eval mode, the GUI's view of a model."""
