"""Embeddings: one point per occurrence of a word in context, or one point per text, and their 2-D maps.

The BERT-paper picture ("word vectors: one point per vocabulary item" beside "BERT: one point per instance
of a word in context") made computable, by concern:

- :mod:`.corpus`: the texts to embed (a text file, a table column, SQuAD passages, a run's training data);
- :mod:`.occurrences`: a word or phrase found in them as whole words;
- :mod:`.vectors`: the vectors collected from a model (occurrences at every layer, pooled texts, the static
  input embedding);
- :mod:`.space`: the result (EmbeddingSpace) and how it is built, also for two models side by side;
- :mod:`.geometry`: Procrustes alignment, k-means, cosine neighbours in the original space;
- :mod:`.projection`: PCA, t-SNE and UMAP maps in one frame for all layers;
- :mod:`.export`: TensorBoard projector files and a CSV of the map.

Never imports Qt. Torch is imported inside the functions that run a model.
"""
