"""DESIGN.md's layering: each layer imports only the layers above it in this list."""

import ast
from pathlib import Path

LAYERS = ["core", "games", "trees", "solvers", "nn", "agents", "bots", "arena", "experiments", "web", "cli"]
PACKAGE = Path(__file__).resolve().parents[1] / "src" / "boardlab"


def imported_layers(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "boardlab" and len(parts) > 1 and parts[1] in LAYERS:
                found.add(parts[1])
    return found


def test_no_layer_imports_a_higher_one():
    problems = []
    for layer in LAYERS:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for other in imported_layers(path):
                if LAYERS.index(other) > LAYERS.index(layer):
                    problems.append(f"{path.relative_to(PACKAGE)} imports boardlab.{other}")
    assert not problems, "\n".join(problems)


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_only_the_cli_holds_command_lines():
    """Library layers hold no command lines: argparse, click and typer belong to boardlab.cli."""
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "cli") in path.parents:
            continue
        for name in imported_modules(path):
            if name.split(".")[0] in ("argparse", "click", "typer"):
                problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not problems, "\n".join(problems)


def test_the_cli_names_no_game():
    """Game-specific work lives in the library; the command line imports no game module."""
    problems = []
    for path in sorted((PACKAGE / "cli").rglob("*.py")):
        for name in imported_modules(path):
            if name == "boardlab.games" or name.startswith("boardlab.games."):
                problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
        text = path.read_text(encoding="utf-8")
        if ".name == \"" in text or ".name == '" in text:
            problems.append(f"{path.relative_to(PACKAGE)} compares a name")
    assert not problems, "\n".join(problems)
