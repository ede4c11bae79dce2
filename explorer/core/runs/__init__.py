"""A run on disk: its layout, status, reading, the store of listed runs, and other tools' run folders."""
