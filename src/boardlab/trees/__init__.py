"""Search trees as columnar arrays: the model, binary and CSV formats, layout, diff and drawing."""
