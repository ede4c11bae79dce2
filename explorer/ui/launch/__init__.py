"""The fine-tune launcher: its form, presets, data preview and device check."""
