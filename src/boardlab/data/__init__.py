"""Data files shipped with boardlab (opening book, grading set)."""
