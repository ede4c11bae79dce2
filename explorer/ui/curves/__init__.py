"""The Curves panel: live training and dev curves, their plot items, axes, decimation and export."""
