"""What things are, declared once: tasks, heads, metrics, the best-evaluation rule, run settings, presets."""
