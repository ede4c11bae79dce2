"""What crosses a process boundary: the training events and the inspector frames (torch-free, Qt-free)."""
