"""The Makefile's set-up commands: what `make test` installs on a fresh machine."""

from __future__ import annotations

import re
from pathlib import Path

MAKEFILE = Path(__file__).resolve().parents[1] / "Makefile"


def test_apt_get_install_takes_only_what_is_asked_for():
    # Debian's chromium recommends a desktop's worth of packages the browser tests never use
    installs = [line for line in MAKEFILE.read_text().splitlines() if re.search(r"apt-get\s+install", line)]
    assert installs, "the Makefile no longer installs anything with apt-get: drop this test"
    for line in installs:
        assert "--no-install-recommends" in line, line
