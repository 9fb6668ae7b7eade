"""``boardlab train | experiment | evaluate``: recipes and experiments found through entry points, and the old spellings."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardlab.bots.nothanks.net_agent import DEFAULT_MODEL as NOTHANKS_MODEL
from boardlab.cli import app
from boardlab.core import plugins

runner = CliRunner()

RECIPES = {"nothanks-imitation", "c4-qlearning", "c4-book"}
EXPERIMENTS = {"nothanks-imitation", "c4-stages", "c4-ranking", "c4-curves", "c4-grading-set", "ttr-study", "dicewars-emm"}

TINY_C4 = {
    "board": {"rows": 4, "cols": 4}, "needed_to_win": 3, "games_to_play": 10, "saving_rate": 5,
    "learning_rate": 0.05, "discount_factor": 1, "estimated_optimal_future_value": "best_known",
    "boltzmann_temperature": 1, "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    "neural_storage": {"hidden_neurons": 8, "encoding": "planes"}, "seed": 1,
}

# a recipe as another package would write it (docs/commands.md)
TOY_RECIPE = '''
from pathlib import Path
from typing import Annotated

import typer

from boardlab.commands.console import print_json
from boardlab.commands.plugin import Experiment, Recipe


def train(
    out: Annotated[Path, typer.Option("--out", help="Where the toy model goes.")] = Path("toy.model"),
    size: Annotated[int, typer.Option("--size", help="How big a toy.")] = 3,
) -> None:
    """Train a toy."""
    out.write_text(f"toy {size}\\n")
    print_json({"out": str(out), "size": size})


def evaluate(
    model: Annotated[Path, typer.Argument(metavar="MODEL")],
    json_out: Annotated[bool, typer.Option("--json", help="JSON: model, size.")] = False,
) -> None:
    """Measure a toy."""
    size = int(model.read_text().split()[1])
    print_json({"model": str(model), "size": size}) if json_out else print(f"a toy of size {size}")


def recognises(path: Path) -> bool:
    return path.is_file() and path.read_bytes().startswith(b"toy ")


recipe = Recipe(train=train, summary="a toy for the tests", game="connect4", makes="toy.model",
                evaluate=evaluate, recognises=recognises)


def run(times: Annotated[int, typer.Option("--times")] = 1) -> None:
    """Say hello."""
    print_json({"hello": times})


experiment = Experiment(run=run, summary="a toy experiment", game="")
not_a_recipe = 42
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "toy_plugin"
    package.mkdir()
    (package / "__init__.py").write_text(textwrap.dedent(TOY_RECIPE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.fixture(scope="module")
def c4_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("c4run")
    config = root / "tiny.json"
    config.write_text(json.dumps(TINY_C4))
    result = runner.invoke(app, ["train", "c4-qlearning", "new", str(config), "--runs-dir", str(root / "runs"), "--json"])
    assert result.exit_code == 0, result.output
    return root / "runs" / "tiny-1"


def listing(kind: str) -> list[dict]:
    result = runner.invoke(app, [kind, "--list", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_recipes_are_imported_only_when_used():
    """'boardlab --help' and 'boardlab train --list' start fast: no recipe module, no torch."""
    import subprocess
    import sys

    code = textwrap.dedent("""
        import sys
        from typer.testing import CliRunner
        from boardlab.cli import app
        def loaded():
            return sorted(m for m in sys.modules if m == "torch" or m in ("boardlab.studies.nothanks.commands", "boardlab.studies.c4rl.commands"))
        assert CliRunner().invoke(app, ["--help"]).exit_code == 0
        print(loaded())
        assert CliRunner().invoke(app, ["train", "--list"]).exit_code == 0
        print(loaded())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["[]", "['boardlab.studies.c4rl.commands', 'boardlab.studies.nothanks.commands']"]


def test_the_built_in_recipes_and_experiments_are_entry_points():
    assert RECIPES <= set(plugins.recipes.names())
    assert EXPERIMENTS <= set(plugins.experiments.names())


def test_list_shows_every_registered_recipe_and_experiment():
    recipes = listing("train")
    assert [r["name"] for r in recipes] == plugins.recipes.names()
    by_name = {r["name"]: r for r in recipes}
    assert by_name["c4-qlearning"]["game"] == "connect4" and by_name["nothanks-imitation"]["game"] == "nothanks"
    for row in recipes:
        assert row["summary"] and row["makes"] and row["evaluates"] is True and ":" in row["target"]
    experiments = listing("experiment")
    assert [e["name"] for e in experiments] == plugins.experiments.names()
    assert all(e["summary"] for e in experiments)

    text = runner.invoke(app, ["train", "--list"])
    assert text.exit_code == 0 and all(name in text.stdout for name in RECIPES)
    text = runner.invoke(app, ["experiment", "--list"])
    assert text.exit_code == 0 and all(name in text.stdout for name in EXPERIMENTS)


@pytest.mark.parametrize("kind, name", [("train", n) for n in sorted(RECIPES)] + [("experiment", n) for n in sorted(EXPERIMENTS)])
def test_every_recipe_and_experiment_answers_help(kind, name):
    result = runner.invoke(app, [kind, name, "--help"])
    assert result.exit_code == 0, result.output
    assert f"boardlab {kind} {name}" in result.stdout and "--help" in result.stdout


def test_group_help_lists_them_and_ranking_has_its_two_tables():
    result = runner.invoke(app, ["train", "--help"])
    assert result.exit_code == 0 and all(name in result.stdout for name in RECIPES)
    for table in ("all-play-all", "with-random"):
        result = runner.invoke(app, ["experiment", "c4-ranking", table, "--help"])
        assert result.exit_code == 0 and "--runs-dir" in result.stdout


def test_a_recipe_registered_at_run_time_is_listed_runs_and_evaluates(toy: Path):
    with plugins.recipes.registered("toy", "toy_plugin:recipe"), plugins.experiments.registered("toy-hello", "toy_plugin:experiment"):
        assert "toy" in [r["name"] for r in listing("train")]
        assert "toy-hello" in [e["name"] for e in listing("experiment")]
        result = runner.invoke(app, ["train", "toy", "--help"])
        assert result.exit_code == 0 and "--size" in result.stdout

        model = toy / "made.model"
        result = runner.invoke(app, ["train", "toy", "--out", str(model), "--size", "5"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {"out": str(model), "size": 5}
        result = runner.invoke(app, ["evaluate", str(model), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == {"model": str(model), "size": 5}
        result = runner.invoke(app, ["evaluate", str(model), "--help"])
        assert result.exit_code == 0 and "Measure a toy" in result.stdout

        result = runner.invoke(app, ["experiment", "toy-hello", "--times", "2"])
        assert result.exit_code == 0 and json.loads(result.stdout) == {"hello": 2}
    assert "toy" not in plugins.recipes.names()
    result = runner.invoke(app, ["train", "toy"])
    assert result.exit_code == 2 and "unknown recipe 'toy'" in result.stderr


def test_a_broken_plugin_is_one_error_line_and_does_not_break_the_list(toy: Path):
    with plugins.recipes.registered("gone", "no_such_package.recipes:recipe"), \
            plugins.recipes.registered("number", "toy_plugin:not_a_recipe"):
        rows = {r["name"]: r for r in listing("train")}
        assert "no_such_package" in rows["gone"]["error"] and rows["gone"]["summary"] is None
        assert "not a boardlab.commands.plugin.Recipe" in rows["number"]["error"]
        assert RECIPES <= set(rows)
        assert runner.invoke(app, ["train", "--help"]).exit_code == 0
        for name in ("gone", "number"):
            result = runner.invoke(app, ["train", name])
            assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, result.output
            assert result.stderr.startswith("error:") and "Traceback" not in result.output


def test_evaluate_the_committed_nothanks_model_writes_nothing_beside_it(tmp_path: Path):
    before = sorted(p.name for p in NOTHANKS_MODEL.parent.iterdir())
    result = runner.invoke(app, ["evaluate", str(NOTHANKS_MODEL), "--states", "60", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["model"] == str(NOTHANKS_MODEL) and report["plot"] is None and report["agreement"] > 0.85
    plot = tmp_path / "curve.png"
    result = runner.invoke(app, ["evaluate", str(NOTHANKS_MODEL), "--states", "10", "--plot", str(plot)])
    assert result.exit_code == 0 and plot.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in NOTHANKS_MODEL.parent.iterdir()) == before


def test_evaluate_a_tiny_connect_four_run(c4_run: Path, tmp_path: Path):
    before = sorted(p.relative_to(c4_run) for p in c4_run.rglob("*"))
    result = runner.invoke(app, ["evaluate", str(c4_run), "--games", "6", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["run"] == "tiny-1" and report["games_played"] == 10 and report["board"] == {"rows": 4, "cols": 4, "k": 3}
    assert [s["seat"] for s in report["seats"]] == [0, 1]
    assert all(s["wins"] + s["draws"] + s["losses"] == 6 for s in report["seats"])
    assert report["curve"] is None and report["plot"] is None

    # the learning curve goes where --plot says, never into the run
    plot = tmp_path / "out" / "curve.png"
    plot.parent.mkdir()  # output folders are never made up
    result = runner.invoke(app, ["evaluate", str(c4_run), "--games", "4", "--plot", str(plot), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [p["games_played"] for p in report["curve"]] == [5, 10] and report["plot"] == str(plot) and plot.is_file()
    assert sorted(p.relative_to(c4_run) for p in c4_run.rglob("*")) == before

    # a snapshot file is recognised as well; a single file has no curve to plot
    snapshot = c4_run / "snapshots" / "games-5.pt"
    result = runner.invoke(app, ["evaluate", str(snapshot), "--games", "2", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["games_played"] == 5
    result = runner.invoke(app, ["evaluate", str(snapshot), "--plot", str(plot)])
    assert result.exit_code == 2 and "run folder" in result.stderr


@pytest.mark.parametrize("make", ["text", "missing", "folder", "npy"])
def test_evaluate_an_unknown_file_is_one_line(tmp_path: Path, make: str):
    path = tmp_path / "thing"
    if make == "text":
        path.write_text("hello")
    elif make == "folder":
        path.mkdir()
    elif make == "npy":
        import numpy as np

        np.save(tmp_path / "thing.npy", np.arange(3))
        path = tmp_path / "thing.npy"
    result = runner.invoke(app, ["evaluate", str(path)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and str(path) in lines[0]
    assert result.stdout == ""
    result = runner.invoke(app, ["evaluate", str(path), "--recipe", "chess-imitation"])
    assert result.exit_code == 2 and "unknown recipe 'chess-imitation'" in result.stderr


def test_evaluate_help_and_list_flags_misplaced():
    result = runner.invoke(app, ["evaluate", "--help"])
    assert result.exit_code == 0 and "--recipe" in result.stdout
    result = runner.invoke(app, ["train", "--json", "c4-book"])
    assert result.exit_code == 2 and "after its name" in result.stderr


def test_grading_set_experiment_writes_a_set_that_names_its_command(tmp_path: Path):
    from boardlab.games.connect4.grading import load_grading_set

    out = tmp_path / "grading.txt"
    result = runner.invoke(app, ["experiment", "c4-grading-set", "--out", str(out), "--games-per-pair", "1",
                                 "--per-phase", "2", "--pair", "random vs random", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    graded = load_grading_set(out)
    assert summary["positions"] == len(graded) == sum(summary["phases"].values()) > 0
    assert f"# Regenerate: {summary['command']}" in out.read_text()
    assert "--pair 'random vs random'" in summary["command"]
    result = runner.invoke(app, ["experiment", "c4-grading-set", "--out", str(out), "--pair", "random"])
    assert result.exit_code == 2 and "'A vs B'" in result.stderr
