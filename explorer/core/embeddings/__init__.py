"""Embeddings of words in context and of whole texts, and their 2-D maps."""
