"""Users' reproductions of command-line failures, each kept as a test.

Every user mistake must end as one line ``error: ...`` on stderr and exit status
2: never a traceback, never NaN written, never a silent success, never data lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from boardlab.cli import app
from boardlab.trees.generate import random_mcts_tree
from boardlab.trees.io import save_tree

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


def fails(*args, message: str):
    """Run a command that must fail with one clear line naming ``message``."""
    result = run(*args)
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in lines[0], lines[0]
    return lines[0]


def cli(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """``boardlab ARGS`` in a child process, its output through pipes as a script would read it."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "boardlab", *map(str, args)], capture_output=True, text=True,
                          env=environment, timeout=120)


# --- 9. plain output is neither wrapped nor coloured when it does not go to a terminal


def test_piped_output_is_not_wrapped_or_coloured_whatever_the_environment_says(tmp_path) -> None:
    folder = tmp_path / ("a-rather-long-folder-name-" * 4) / ("and-another-one-" * 4)
    folder.mkdir(parents=True)
    tree_file = folder / "t.csv"
    save_tree(random_mcts_tree(60, seed=1), tree_file)
    assert len(str(tree_file)) > 150
    env = {"COLUMNS": "40", "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}
    for output in (cli("tree", "info", tree_file, env=env).stdout, run("tree", "info", tree_file, env=env).stdout):
        lines = output.splitlines()
        assert lines[0].startswith(f"{tree_file} (csv): 60 nodes, depth "), output
        assert "\x1b" not in output
        assert "mean payout" in lines[3]  # the table's header row is one line, not squeezed to 40 columns
    # an error naming a long path is one line too
    missing = folder / ("missing-" * 10 + ".tree")
    error = cli("tree", "info", missing, env=env)
    assert error.returncode == 2 and error.stderr == f"error: {missing}: no such file\n"


def test_json_output_is_unaffected(tmp_path) -> None:
    save_tree(random_mcts_tree(60, seed=1), tmp_path / "t.tree")
    result = run("tree", "info", tmp_path / "t.tree", "--json")
    assert result.exit_code == 0 and result.stdout.count("\n") == 1 and result.stdout.startswith('{"file": ')
