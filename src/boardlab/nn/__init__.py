"""PyTorch models, datasets, training loops and checkpoint files."""
