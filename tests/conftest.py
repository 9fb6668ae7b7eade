import os

from hypothesis import settings

# CI runs every property test with the same budget, and never times a test.
settings.register_profile("boardlab", deadline=None, max_examples=100, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "boardlab"))
