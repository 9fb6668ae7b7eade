import os

import pytest
from hypothesis import settings

# CI runs every property test with the same budget, and never times a test.
settings.register_profile("boardlab", deadline=None, max_examples=100, derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "boardlab"))


@pytest.fixture()
def client(tmp_path):
    """The web app in this process, on a fresh data folder (the web API tests)."""
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    with TestClient(create_app(tmp_path / "data")) as c:
        yield c
