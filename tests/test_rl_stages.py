"""The study's stage experiment, run tiny: structure, carry-over of the chosen config, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardlab.core.errors import BoardlabError
from boardlab.studies.c4rl.stages import STUDY_BASE, run_stages, stage_variants, tables_markdown


def test_two_tiny_stages(tmp_path: Path) -> None:
    base = json.loads(json.dumps(STUDY_BASE))
    base.update({"board": {"rows": 4, "cols": 4}, "needed_to_win": 3})
    logs: list[str] = []
    results = run_stages(tmp_path, games=8, agents=2, eval_games=5, stages=2, base=base, log=logs.append)
    one, two = results["stages"]
    configs = {row["config"] for row in one["with_random"]}
    assert configs == {f"stage_one_{m}_{g}" for m in ("best_known", "mean") for g in (0, 1, 2, 4, 8)}
    assert one["chosen"] in ("stage_one_best_known_8", "stage_one_mean_8")
    method = one["chosen"].split("_")[2]
    method = "best_known" if method == "best" else "mean"
    assert {row["config"] for row in two["all_play_all"]} == {f"stage_two_{h}" for h in (25, 50, 75, 100, 125)}
    assert all(len(row["agents"]) == 2 for row in two["with_random"])
    chosen_hidden = int(two["chosen"].rsplit("_", 1)[1])
    assert results["final_config"]["neural_storage"]["hidden_neurons"] == chosen_hidden
    assert results["final_config"]["estimated_optimal_future_value"] == method
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["stages"][1]["chosen"] == two["chosen"]
    table = tables_markdown(results)
    assert "**Stage 2: all play all**" in table and "(chosen)" in table
    # running again trains nothing and gives the same results
    logs.clear()
    again = run_stages(tmp_path, games=8, agents=2, eval_games=5, stages=2, base=base, log=logs.append)
    assert not any(line.startswith("training") for line in logs)
    assert again["stages"][1]["with_random"] == two["with_random"]


def test_stage_variants_are_the_studys() -> None:
    def values(stage: int, key: str) -> list:
        out = []
        for _, change in stage_variants(stage):
            cfg = json.loads(json.dumps(STUDY_BASE))
            change(cfg)
            node = cfg
            for part in key.split("."):
                node = node[part]
            out.append(node)
        return out

    assert values(2, "neural_storage.hidden_neurons") == [25, 50, 75, 100, 125]
    assert values(3, "boltzmann_temperature") == [0.5, 1.0, 1.5, 2.0]
    assert values(4, "discount_factor") == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert values(5, "learning_rate") == [0.001, 0.01, 0.05, 0.1]
    rewards = values(6, "rewards")
    assert rewards[0] == {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01}
    assert rewards[5] == {"win": 2, "loss": -5, "tie": 0, "each_move": 0}


def test_diverged_runs_are_ranked_and_named(tmp_path: Path) -> None:
    base = json.loads(json.dumps(STUDY_BASE))
    base.update({"board": {"rows": 4, "cols": 4}, "needed_to_win": 3, "learning_rate": 1000.0})
    results = run_stages(tmp_path, games=8, agents=2, eval_games=5, stages=1, base=base, log=lambda line: None)
    one = results["stages"][0]
    assert one["diverged"]  # such a learning rate blows the sigmoid network up at once
    assert all(len(row["agents"]) == 2 for row in one["with_random"] if row["config"].endswith("_8"))
    assert "Diverged during training" in tables_markdown(results)


def test_study_procedure_carries_stage_one_games_and_prints_the_reward_sets(tmp_path: Path) -> None:
    from boardlab.studies.c4rl.stages import PRESETS

    assert PRESETS["study"]["stage_one_games"] == [5000, 10000, 50000, 100000, 150000]
    assert PRESETS["study"]["agents"] == 5 and PRESETS["study"]["terminal_reply_value"] == "zero"
    base = json.loads(json.dumps(STUDY_BASE))
    base.update({"board": {"rows": 4, "cols": 4}, "needed_to_win": 3})
    results = run_stages(tmp_path, agents=2, eval_games=4, stages=2, base=base, log=lambda line: None,
                         stage_one_games=[4, 6, 10], terminal_reply_value="zero", carry_games=True)
    one, two = results["stages"]
    assert {row["config"] for row in one["with_random"]} == {f"stage_one_{m}_{g}" for m in ("best_known", "mean") for g in (4, 6, 10)}
    assert results["base"]["saving_rate"] == 2 and results["base"]["terminal_reply_value"] == "zero"
    # the winner among every method and count, by the mean of its two table means, configures stage 2
    assert one["chosen"] == max(one["score"], key=one["score"].get)
    method, games = one["chosen"][len("stage_one_"):].rsplit("_", 1)
    run = tmp_path / "runs" / "stage_two_50-1"
    saved = json.loads((run / "config.json").read_text())
    assert (saved["estimated_optimal_future_value"], saved["games_to_play"]) == (method, int(games))
    assert saved["terminal_reply_value"] == "zero"
    # each configuration's agents are those of 'train c4-qlearning new CONFIG --agents 2 --seed 0'
    from boardlab.studies.c4rl.training import agent_seeds

    assert [json.loads((tmp_path / "runs" / f"stage_two_50-{n}" / "config.json").read_text())["seed"] for n in (1, 2)] == agent_seeds(0, 2)
    table = tables_markdown({**results, "stages": results["stages"] + [{**two, "stage": 6}]})
    assert "table 6.11" in table and "| 6 | 2 | -5 | 0 | 0 |" in table


def test_cli_scale_presets_and_explicit_options_over_them(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from boardlab.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["experiment", "c4-stages", "--scale", "huge", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--scale must be one of study, fast" in result.output
    result = runner.invoke(app, ["experiment", "c4-stages", "--scale", "fast", "--stages", "1", "--agents", "1",
                                 "--stage-one-games", "2,4", "--eval-games", "2", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert (found["scale"], found["agents"], found["eval_games"], found["stage_one_games"]) == ("fast", 1, 2, [2, 4])
    assert found["base"]["terminal_reply_value"] == "zero" and found["carry_games"] is True
    assert found["wall_seconds"] >= 0 and json.loads((tmp_path / "results.json").read_text())["scale"] == "fast"
    assert (tmp_path / "tables.md").read_text().startswith("**Stage 1: all play all**")


def _tiny_base() -> dict:
    base = json.loads(json.dumps(STUDY_BASE))
    base.update({"board": {"rows": 4, "cols": 4}, "needed_to_win": 3})
    return base


def test_stages_seven_and_eight_try_the_planes_encoding_and_then_its_width(tmp_path: Path) -> None:
    variants = stage_variants(7)
    assert [suffix for suffix, _ in variants] == ["study", "planes_0.001", "planes_0.01", "planes_0.05", "planes_0.1"]
    configs = []
    for _, change in variants:
        cfg = json.loads(json.dumps(STUDY_BASE))
        change(cfg)
        configs.append(cfg)
    assert configs[0] == STUDY_BASE  # the carried network, encoding untouched
    assert [(c["neural_storage"]["encoding"], c["learning_rate"]) for c in configs[1:]] == [("planes", lr) for lr in (0.001, 0.01, 0.05, 0.1)]
    assert all(c["neural_storage"]["hidden_neurons"] == 50 for c in configs)
    with pytest.raises(BoardlabError, match="stages must be 1 to 8"):
        run_stages(tmp_path, stages=9, log=lambda line: None)

    results = run_stages(tmp_path, agents=1, eval_games=2, stages=8, base=_tiny_base(), log=lambda line: None,
                         stage_one_games=[2, 4], carry_games=True)
    assert [s["stage"] for s in results["stages"]] == list(range(1, 9))
    six, seven, eight = results["stages"][5:]
    assert {row["config"] for row in seven["with_random"]} == {f"stage_seven_{suffix}" for suffix, _ in variants}
    assert seven["chosen"] == max(seven["score"], key=seven["score"].get)

    def trained(config_name: str) -> dict:
        cfg = json.loads((tmp_path / "runs" / f"{config_name}-1" / "config.json").read_text())
        del cfg["seed"]
        return cfg

    assert trained("stage_seven_study") == trained(six["chosen"])  # stage 6's winner as it is
    assert trained("stage_seven_planes_0.01")["neural_storage"]["encoding"] == "planes"
    # stage 8: stage 7's winner at each of stage 2's widths, nothing else changed
    assert {row["config"] for row in eight["with_random"]} == {f"stage_eight_{h}" for h in (25, 50, 75, 100, 125)}
    for h in (25, 50, 75, 100, 125):
        widened = trained(seven["chosen"])
        widened["neural_storage"]["hidden_neurons"] = h
        assert trained(f"stage_eight_{h}") == widened
    assert results["final_config"] == trained(eight["chosen"])
    tables = tables_markdown(results)
    assert "**Stage 7 (not in the study)" in tables and "**Stage 8 (not in the study)" in tables


def _count_rankings(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    from boardlab.studies.c4rl import stages as c4_stages

    calls = {"all_play_all": 0, "with_random": 0}

    def counted(name: str):
        real = getattr(c4_stages, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    for name in calls:
        monkeypatch.setattr(c4_stages, name, counted(name))
    return calls


TINY = {"agents": 1, "stages": 3, "stage_one_games": [2, 4], "carry_games": True}


def test_a_rerun_reuses_each_ranking_made_on_the_same_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _tiny_base()
    first = run_stages(tmp_path, eval_games=3, base=base, log=lambda line: None, **TINY)
    assert all(len(s["key"]) == 16 for s in first["stages"]) and len({s["key"] for s in first["stages"]}) == 3
    calls = _count_rankings(monkeypatch)
    logs: list[str] = []
    again = run_stages(tmp_path, eval_games=3, base=base, log=logs.append, **TINY)
    assert calls == {"all_play_all": 0, "with_random": 0}
    assert again == first
    assert [line for line in logs if "reused" in line] == [f"stage {n}: ranking reused from results.json" for n in (1, 2, 3)]
    # an agent newly marked diverged changes its stage's inputs (and only that stage's)
    chosen_two = again["stages"][1]["chosen"]
    (tmp_path / "runs" / f"{chosen_two}-1" / "diverged.json").write_text('{"message": "test"}\n')
    logs.clear()
    marked = run_stages(tmp_path, eval_games=3, base=base, log=logs.append, **TINY)
    # (the flag changes no move, so stage 2 keeps its winner and stage 3 its inputs)
    assert logs == ["stage 1: ranking reused from results.json", "stage 2: ranking 5 agents", "stage 3: ranking reused from results.json"]
    assert marked["stages"][1]["diverged"] == [f"{chosen_two}-1"] and marked["stages"][1]["key"] != first["stages"][1]["key"]
    # other games against random: every stage is ranked again
    calls.update(all_play_all=0, with_random=0)
    more = run_stages(tmp_path, eval_games=4, base=base, log=lambda line: None, **TINY)
    assert calls == {"all_play_all": 3, "with_random": 3}
    assert all(row["agents"][0]["games"] == 8 for row in more["stages"][0]["with_random"])
    assert not {s["key"] for s in more["stages"]} & {s["key"] for s in marked["stages"]}


def test_an_unreadable_or_old_results_file_is_ranked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _tiny_base()
    first = run_stages(tmp_path, eval_games=3, base=base, log=lambda line: None, **TINY)
    results = tmp_path / "results.json"
    old = json.loads(results.read_text())
    for summary in old["stages"]:
        del summary["key"]
    bad_score = json.loads(results.read_text())
    bad_score["stages"][1]["score"] = {"stage_two_nonesuch": 100.0}  # hand-edited: its key no longer tells the truth
    calls = _count_rankings(monkeypatch)
    for content, said in ((b"\x00\xffnot json{", "could not be read"), (b'["a list"]', "could not be read"),
                          (b'{"stages": 7}', "could not be read"), (json.dumps(old).encode(), "no ranking keys"),
                          (json.dumps(bad_score).encode(), None)):
        results.write_bytes(content)
        calls.update(all_play_all=0, with_random=0)
        logs: list[str] = []
        again = run_stages(tmp_path, eval_games=3, base=base, log=logs.append, **TINY)
        assert again == first
        if said is None:
            assert calls == {"all_play_all": 1, "with_random": 1}  # stage 2 only
        else:
            assert calls == {"all_play_all": 3, "with_random": 3}
            assert len([line for line in logs if said in line and "every stage is ranked again" in line]) == 1


def test_the_ranking_key_follows_the_grading_positions() -> None:
    from boardlab.games.connect4.grading import load_grading_set
    from boardlab.studies.c4rl.stages import _positions_digest, ranking_key

    positions = load_grading_set()
    # by content: the same positions in a new list match, one position fewer does not
    keys = {ranking_key(1, [], 10, 1, digest) for digest in
            (None, _positions_digest(positions), _positions_digest(positions[1:]), _positions_digest(list(positions)))}
    assert len(keys) == 3
