"""Named, reproducible studies that print tables and draw plots."""
