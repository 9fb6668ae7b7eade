"""The layering of docs/architecture.md: each layer imports only the layers above it in this list."""

import ast
from pathlib import Path

# adapters (PettingZoo environments, OpenSpiel games and bots) sit on the agents: the arena, the web app
# and the command line reach them only through the registries
LAYERS = ["core", "games", "trees", "solvers", "nn", "agents", "bots", "adapters", "arena", "experiments", "commands",
          "studies", "web", "cli"]
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


#: the layers that may hold command lines: the shared kit, the studies' own commands, the command line
COMMAND_LAYERS = ("commands", "studies", "cli")


def test_only_the_command_layers_hold_command_lines():
    """Library layers hold no command lines: argparse, click and typer belong to boardlab.cli, the studies'
    commands and the kit they share (boardlab.commands)."""
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if any((PACKAGE / layer) in path.parents for layer in COMMAND_LAYERS):
            continue
        for name in imported_modules(path):
            if name.split(".")[0] in ("argparse", "click", "typer"):
                problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not problems, "\n".join(problems)


GENERIC = ["agents", "adapters", "arena", "web", "cli", "conformance"]


def game_name_comparisons(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines where a registered game's name is compared with something (==, !=, in, not in)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for part in [node.left, *node.comparators]:
                constants = [part] if isinstance(part, ast.Constant) else list(getattr(part, "elts", []))
                if any(isinstance(c, ast.Constant) and c.value in names for c in constants):
                    lines.append(node.lineno)
    return lines


def test_generic_code_names_no_game():
    """agents, adapters, arena, web, cli and the conformance suite never import a game's module or compare
    a game's name: games declare what they are and offer hooks (core.game)."""
    from boardlab.core.registry import game_names

    names = set(game_names())
    problems = []
    for layer in GENERIC:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
            for name in imported_modules(path):
                if name.startswith("boardlab.games."):
                    problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
            for line in game_name_comparisons(tree, names):
                problems.append(f"{path.relative_to(PACKAGE)}:{line} compares a game's name")
            if "game.name ==" in text or "game.name !=" in text:
                problems.append(f"{path.relative_to(PACKAGE)} compares game.name")
    for path in sorted((PACKAGE / "web" / "static").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        for name in names:
            for quoted in (f'"{name}"', f"'{name}'", f"`{name}`"):
                if quoted in text:
                    problems.append(f"{path.relative_to(PACKAGE)} names the game {name}")
    assert not problems, "\n".join(problems)


def test_the_name_check_catches_a_comparison():
    tree = ast.parse('if game.name == "chess" or kind in ("mancala", "x"):\n    pass\n')
    assert game_name_comparisons(tree, {"chess", "mancala"}) == [1, 1]  # both comparisons of the line


def test_studies_never_import_each_other():
    """A study is one package: what two studies share belongs in a lower layer."""
    studies = PACKAGE / "studies"
    problems = []
    for package in sorted(p for p in studies.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        for path in sorted(package.rglob("*.py")):
            for name in imported_modules(path):
                parts = name.split(".")
                if parts[:2] == ["boardlab", "studies"] and len(parts) > 2 and parts[2] != package.name:
                    problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not problems, "\n".join(problems)
