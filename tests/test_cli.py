import json
import re
import subprocess
import sys

from typer.testing import CliRunner

from boardlab.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_duel_prints_w_d_l_and_seats():
    result = run("duel", "random", "random", "-n", "1000", "--game", "connect4", "--seed", "1")
    assert result.exit_code == 0, result.output
    wins, draws, losses = map(int, result.output.splitlines()[0].split())
    assert wins + draws + losses == 1000
    assert abs(wins - losses) < 120  # seats alternate, so the two agents are even
    assert "moving first" in result.output
    share = float(result.output.split("the player moving first won ")[1].split(" %")[0])
    assert 51.0 < share < 60.0  # 55.6 % for uniformly random play on 7x6


def test_duel_json_is_one_document():
    result = run("duel", "random", "random:seed=4", "-n", "20", "--json")
    data = json.loads(result.output)
    assert data["games"] == 20 and data["wins"] + data["draws"] + data["losses"] == 20
    assert [s["games"] for s in data["by_seat"]] == [10, 10]
    # each agent made about half of the moves; the count of each is the sum of its games' decisions
    assert sum(data["moves"]) > 20 * 7 and abs(data["moves"][0] - data["moves"][1]) <= 20
    assert all(per is not None and per >= 0 for per in data["seconds_per_move"])


def test_bad_input_gives_one_clear_line():
    for args, message in [
        (("duel", "random", "nope"), "unknown agent 'nope'"),
        (("duel", "random", "random", "--game", "go"), "unknown game 'go'"),
        (("duel", "random", "random", "--game", "connect4:rows=20"), "at most 64"),
        (("duel", "random:depth=3", "random"), "unknown option 'depth'"),
    ]:
        result = run(*args)
        assert result.exit_code == 2
        assert message in result.output
        assert "Traceback" not in result.output


def test_games_and_agents_list_parameters():
    games = json.loads(run("games", "--json").output)
    c4 = next(g for g in games if g["name"] == "connect4")
    assert [p["name"] for p in c4["parameters"]] == ["rows", "cols", "k"]
    agents = json.loads(run("agents", "--json").output)
    assert {"random", "human"} <= {a["name"] for a in agents}


def test_play_against_agent_in_terminal(tmp_path):
    record = tmp_path / "game.json"
    # keep dropping into column 4; on a full column the error is shown and we try the next
    moves = "\n".join(["4"] * 3 + ["x"] + ["4", "3", "2", "1", "5", "6", "7"] * 6) + "\n"
    result = runner.invoke(app, ["play", "connect4", "--agent", "random", "--seed", "3", "--record", str(record)], input=moves)
    assert result.exit_code == 0, result.output
    assert "illegal move" in result.output
    assert "result:" in result.output
    replayed = run("replay", str(record), "--json", "--rerun")
    assert replayed.exit_code == 2  # a human's moves cannot be re-run from a seed
    assert "had a person playing" in replayed.output
    assert run("replay", str(record)).exit_code == 0


def test_replay_checks_and_reruns(tmp_path):
    result = run("duel", "random", "random", "-n", "3", "--seed", "9", "--records", str(tmp_path))
    assert result.exit_code == 0
    files = sorted(tmp_path.glob("game-*.json"))
    assert len(files) == 3
    replayed = run("replay", str(files[1]), "--json", "--rerun")
    data = json.loads(replayed.output)
    assert data["agents_agree"] is True and data["game"] == "connect4"
    assert data["final"]["notation"] == "".join(data["moves"]) and data["final"]["result"] != "in play"
    broken = tmp_path / "broken.json"
    broken.write_text(files[0].read_text()[:-20])
    result = run("replay", str(broken))
    assert result.exit_code == 2 and "not JSON" in result.output


def test_tour_runs():
    result = run("tour")
    assert result.exit_code == 0, result.output
    assert "W D L" in result.output


def test_console_script_entry_point():
    out = subprocess.run([sys.executable, "-m", "boardlab", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "duel" in out.stdout


def test_negative_seeds_are_refused_clearly(tmp_path):
    for args in (["search", "--seed", "-1"], ["duel", "random", "random", "--seed", "-3"]):
        result = run(*args)
        assert result.exit_code == 2 and "--seed" in result.output
    bad = run("duel", "random:seed=-1", "random", "-n", "1")
    assert bad.exit_code == 2 and "seed=-1 must not be negative" in bad.output


def test_duel_records_never_overwrite_earlier_records(tmp_path):
    folder = tmp_path / "records"
    assert run("duel", "random", "random", "-n", "2", "--records", str(folder)).exit_code == 0
    first = (folder / "game-00001.json").read_text()
    again = run("duel", "random", "random", "-n", "2", "--seed", "5", "--records", str(folder))
    assert again.exit_code == 2 and "already holds 2 records" in again.output
    assert (folder / "game-00001.json").read_text() == first


def test_flags_show_no_value_placeholder_in_help():
    """A flag takes no value, so help shows none after it ('--json', not '--json <bool>'); options that take one keep it."""
    for command, valued in ((["tree", "diff"], "--via"), (["search"], "--agent"), (["train", "nothanks-imitation"], "--out")):
        result = run(*command, "--help")
        assert result.exit_code == 0, result.output
        assert "<bool>" not in result.stdout, result.stdout
        options = {line.split()[1]: line for line in result.stdout.splitlines() if line.startswith("│ -")}
        assert re.match(r"│ --json\s+Print", options["--json"]) and re.match(r"│ --help\s+Show", options["--help"])
        assert re.search(r"<\w+>", options[valued]), options[valued]  # e.g. --via <str>


def test_help_keeps_every_bracket_of_the_options_help():
    """Help texts name --json keys like 'moves [of each agent]': rich markup must not swallow them."""
    import typer

    def commands(group, path):
        for name, command in getattr(group, "commands", {}).items():
            yield path + [name], command
            yield from commands(command, path + [name])

    checked = 0
    for path, command in commands(typer.main.get_command(app), []):
        phrases = [p for param in command.params for p in re.findall(r"\[[^\]\[]*\]", getattr(param, "help", "") or "")
                   if p not in ("[b]", "[/]", "[/b]")]
        if not phrases:
            continue
        shown = " ".join(run(*path, "--help").stdout.split())
        for phrase in phrases:
            assert " ".join(phrase.split()) in shown, (path, phrase)
            checked += 1
    assert checked >= 5
