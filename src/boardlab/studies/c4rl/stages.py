"""The study's six experiment stages (chapter 6), scaled to a small machine.

Each stage varies one part of the configuration of the previous stage's best:

1. future-value method (``best_known``, ``mean``) and games played;
2. hidden neurons 25, 50, 75, 100, 125;
3. Boltzmann temperature 0.5, 1, 1.5, 2;
4. discount factor 0, 0.25, 0.5, 0.75, 1;
5. learning rate 0.001, 0.01, 0.05, 0.1;
6. the six reward sets of table 6.11;
7. optional and not in the study (``--stages 7``): the state encoding, the carried
   network against the planes encoding at each learning rate of stage 5;
8. optional and not in the study (``--stages 8``): hidden neurons again (stage 2's
   sizes), for the encoding stage 7 chose.

Several agents (runs with different seeds) are trained per configuration and
ranked both ways (:mod:`boardlab.studies.c4rl.ranking`). The best configuration of
a stage — highest mean of its two ranking means — is carried to the next stage
(the study chose by judgement from the same two tables).

``--scale study`` (:data:`PRESETS`) runs the study's own procedure and sizes: 5 agents
per configuration, stage 1 at 5,000-150,000 games, the listing's update rule, 1,000
games per seat against random, and stage 1's winner (method and game count) carried on;
``--scale fast`` is the same procedure in miniature for CI.

Scaling by hand (the study trained 5 agents per configuration for 5k-150k games):
``games`` games per agent in stages 2-6, and ``0, games/8 .. games`` in stage 1,
where the shorter trainings are the snapshots of the longest one (0: the initial network) (a run of N
games with the same seed is bit-for-bit that snapshot). Later stages keep
``games`` whatever stage 1 found, so that their cost stays fixed.

Re-running resumes the training and also the rankings: each stage's summary in
``results.json`` carries a ``key``, a digest of everything its ranking depends on
(the agents and where each was loaded from, ``eval_games``, the seed, the grading
positions), and a stage whose key is already there is not ranked again.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable

import torch

from boardlab.arena.backends import map_tasks
from boardlab.bots.connect4.network import q_function
from boardlab.bots.connect4.qnet_files import Run, config_from_dict
from boardlab.core.errors import BoardlabError
from boardlab.core.records import write_atomic
from boardlab.studies.c4rl.ranking import TrainedAgent, all_play_all, with_random
from boardlab.studies.c4rl.training import Learner, agent_seeds, train_run_job

STUDY_BASE: dict[str, Any] = {  # listing 6.1
    "board": {"rows": 6, "cols": 7},
    "needed_to_win": 4,
    "games_to_play": 5000,
    "saving_rate": 1000,
    "learning_rate": 0.05,
    "discount_factor": 1,
    "estimated_optimal_future_value": "best_known",
    "boltzmann_temperature": 1,
    "rewards": {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    "neural_storage": {"hidden_neurons": 50},
}

REWARD_SETS = {  # table 6.11
    1: {"win": 2, "loss": -2, "tie": 0, "each_move": -0.01},
    2: {"win": 2, "loss": -2, "tie": 0, "each_move": 0},
    3: {"win": 2, "loss": 0, "tie": 0, "each_move": 0},
    4: {"win": 0, "loss": -2, "tie": 0, "each_move": 0},
    5: {"win": 5, "loss": -2, "tie": 0, "each_move": 0},
    6: {"win": 2, "loss": -5, "tie": 0, "each_move": 0},
}

STAGE_NAMES = ["one", "two", "three", "four", "five", "six", "seven", "eight"]

#: the hidden layer sizes of stage 2, tried again for stage 7's encoding in stage 8
HIDDEN_NEURONS = (25, 50, 75, 100, 125)

#: the learning rates of stage 5, tried again with the planes encoding in stage 7
LEARNING_RATES = (0.001, 0.01, 0.05, 0.1)


def _set(path: str, value: Any) -> Callable[[dict], None]:
    def apply(cfg: dict) -> None:
        node = cfg
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value

    return apply


def stage_variants(stage: int) -> list[tuple[str, Callable[[dict], None]]]:
    """``(suffix, change)`` for each configuration of a stage (stage 1 is handled apart)."""
    if stage in (2, 8):
        # stage 8: stage 2 chose the width for the study's 42 sigmoid inputs; stage 7's encoding may have
        # changed the input (126 planes) and the units (ReLU), so the width is chosen again for it
        return [(str(h), _set("neural_storage.hidden_neurons", h)) for h in HIDDEN_NEURONS]
    if stage == 3:
        return [(str(t), _set("boltzmann_temperature", t)) for t in (0.5, 1.0, 1.5, 2.0)]
    if stage == 4:
        return [(f"{g:.2f}", _set("discount_factor", g)) for g in (0.0, 0.25, 0.5, 0.75, 1.0)]
    if stage == 5:
        return [(str(lr), _set("learning_rate", lr)) for lr in LEARNING_RATES]
    if stage == 6:
        return [(str(n), _set("rewards", dict(r))) for n, r in REWARD_SETS.items()]
    if stage == 7:
        # a ReLU planes network and the study's sigmoid one want different step sizes, so the
        # planes encoding gets its rate chosen again, as stage 5 chose the study network's;
        # comparing it at the carried rate only would judge the encoding by a rate not made for it
        planes = [(f"planes_{lr}", _planes(lr)) for lr in LEARNING_RATES]
        return [("study", _keep), *planes]
    raise ValueError(f"stage {stage}")


def _keep(cfg: dict) -> None:
    """The carried configuration, encoding included, as it is."""


def _planes(learning_rate: float) -> Callable[[dict], None]:
    def apply(cfg: dict) -> None:
        cfg.setdefault("neural_storage", {})["encoding"] = "planes"
        cfg["learning_rate"] = learning_rate

    return apply


@dataclass
class Job:
    config_name: str
    run_path: str
    config: dict


def _prepare(job: Job) -> None:
    """Write the run's config (with its agent's seed) before training, as ``train c4-qlearning new --agents`` does."""
    run = Run(Path(job.run_path))
    if not (run.path / "config.json").exists():
        run.path.mkdir(parents=True, exist_ok=True)
        write_atomic(run.path / "config.json", json.dumps(job.config, indent=2) + "\n")


def _train_all(jobs: list[Job], workers: int, log: Callable[[str], None], backend: str = "process") -> None:
    """Train the unfinished runs as ``train c4-qlearning new --agents N --workers W`` does: one
    run per worker, each resumable from its checkpoint after a kill."""
    todo = [j for j in jobs if not _finished(j)]
    if not todo:
        return
    for job in todo:
        _prepare(job)
    log(f"training {len(todo)} runs with {workers} worker(s)")
    # a run keeps the kernel it started with: another one here is an error naming both (not a silent switch)
    kernel = todo[0].config.get("kernel", "numpy")
    for result in map_tasks(partial(train_run_job, kernel=kernel), [j.run_path for j in todo], workers, backend):
        if result["diverged"]:
            # the study would have kept such an agent too: it plays from its last finite checkpoint
            write_atomic(Path(result["path"]) / "diverged.json", json.dumps({"message": result["error"]}) + "\n")
        elif result["error"]:
            raise BoardlabError(f"{result['run']}: {result['error']}")
        log(f"  done {result['run']}" + (f" (diverged: {result['error']})" if result["error"] else ""))


def _finished(job: Job) -> bool:
    run = Run(Path(job.run_path))
    if (run.path / "diverged.json").exists():
        return True
    return run.checkpoint.exists() and run.games_played() >= job.config["games_to_play"]


def _score(apa: list[dict], wr: list[dict]) -> dict[str, float]:
    a = {r["config"]: r["mean"] for r in apa}
    w = {r["config"]: r["mean"] for r in wr}
    return {c: (a[c] + w[c]) / 2 for c in w}


#: the study's own scale and a quick one for CI (``boardlab experiment c4-stages --scale NAME``);
#: explicit options override a preset's values
PRESETS: dict[str, dict[str, Any]] = {
    # chapter 6: 5 agents per configuration, stage 1 at 5k-150k games, 1000 games per seat against
    # random, the listing's update (0 for a reply that ends the game), later stages at stage 1's choice
    # (trained by the compiled kernel: 7.5 million games are ~28 CPU-hours in the NumPy one)
    "study": {"agents": 5, "eval_games": 1000, "stage_one_games": [5000, 10000, 50000, 100000, 150000],
              "terminal_reply_value": "zero", "carry_games": True, "kernel": "compiled"},
    # the same procedure in a minute or two (CI): 2 agents, stage 1 at 10-40 games
    "fast": {"agents": 2, "eval_games": 20, "stage_one_games": [10, 20, 40],
             "terminal_reply_value": "zero", "carry_games": True},
}


def reward_sets_table() -> str:
    """Table 6.11 of the study: the reward sets compared in stage 6."""
    lines = ["| set | win | loss | tie | each move |", "|---:|---:|---:|---:|---:|"]
    for n, r in REWARD_SETS.items():
        lines.append(f"| {n} | {r['win']} | {r['loss']} | {r['tie']} | {r['each_move']} |")
    return "\n".join(lines)


def run_stages(
    out: Path,
    games: int = 1000,
    agents: int = 2,
    eval_games: int = 200,
    workers: int = 1,
    stages: int = 6,
    base: dict | None = None,
    positions: list | None = None,
    log: Callable[[str], None] = print,
    seed: int = 0,
    backend: str = "process",
    stage_one_games: list[int] | None = None,
    terminal_reply_value: str | None = None,
    carry_games: bool = False,
    kernel: str | None = None,
) -> dict[str, Any]:
    """Train and rank stages 1..``stages`` (6: the study's; 7 adds the encoding stage, 8 the width for it); results go
    to ``out/results.json`` (re-running resumes, and a stage ranked before on the same inputs is not
    ranked again).

    Stage 1 ranks the snapshots of runs of its longest game count: by default
    ``0, games/8, games/4, games/2, games``; with ``stage_one_games`` those counts (the
    study: 5,000-150,000; snapshots every gcd of them). ``terminal_reply_value``
    sets the update rule (``"zero"``: the study's listing), ``kernel`` the training
    kernel of every run (the base config's, ``numpy``, when None). With ``carry_games`` the
    stage-1 winner is chosen among every method and game count and later stages
    train that many games (the study's procedure); otherwise only the method is
    chosen (at the longest count) and later stages train ``games``.
    """
    if not 1 <= stages <= len(STAGE_NAMES):
        raise BoardlabError(f"stages must be 1 to {len(STAGE_NAMES)} (7 and 8: the encoding and the width for it, not in the study), not {stages}")
    base = json.loads(json.dumps(base or STUDY_BASE))
    if stage_one_games is None:
        if games < 8:
            raise BoardlabError(f"games must be at least 8 (stage 1 ranks snapshots at games/8), not {games}")
        step = games // 8
        counts, with_zero, saving = [step, 2 * step, 4 * step, games], True, step
    else:
        counts = sorted(set(stage_one_games))
        if not counts or counts[0] < 1:
            raise BoardlabError(f"stage 1's game counts must be positive, not {stage_one_games}")
        with_zero, saving = False, math.gcd(*counts)
    if terminal_reply_value is not None:
        base["terminal_reply_value"] = terminal_reply_value
    if kernel is not None and kernel != "numpy":  # "numpy" is the default: its configs stay what they were
        base["kernel"] = kernel
    longest = counts[-1]
    base["games_to_play"] = longest
    base["saving_rate"] = saving
    results: dict[str, Any] = {"games": games, "agents": agents, "eval_games": eval_games, "seed": seed,
                               "stage_one_games": ([0] if with_zero else []) + counts, "carry_games": carry_games,
                               "base": base, "stages": []}
    runs_dir = out / "runs"
    previous = _previous_rankings(out, log)
    grading = _positions_digest(positions)

    def ranked(stage: int, sources: list[_Source]) -> dict[str, Any]:
        return _ranked(stage, sources, eval_games, log, positions, grading, previous)

    def jobs_for(name: str, cfg: dict) -> list[Job]:
        config_from_dict(cfg, name)  # validate before spending time
        # the agents of 'train c4-qlearning new CONFIG --agents N --seed SEED': runs <config>-<n>, seeds derived from SEED
        return [Job(name, str(runs_dir / f"{name}-{i + 1}"), {**cfg, "seed": s}) for i, s in enumerate(agent_seeds(seed, agents))]

    # stage 1: method x games (snapshots of the longest runs)
    jobs = []
    for method in ("best_known", "mean"):
        cfg = json.loads(json.dumps(base))
        cfg["estimated_optimal_future_value"] = method
        jobs += jobs_for(f"stage_one_{method}", cfg)
    _train_all(jobs, workers, log, backend)
    sources = []
    for job in jobs:
        run = Run(Path(job.run_path))
        snaps = dict(run.snapshots())
        diverged = (run.path / "diverged.json").exists()
        for g in counts:
            name, config_name = f"{run.name}@{g}", f"{job.config_name}_{g}"
            if g in snaps:
                flag = diverged and g == longest
                sources.append(_Source({"name": name, "config": config_name, **_trained(run, out), "snapshot": g, "diverged": flag},
                                       partial(_from_snapshot, snaps[g], name, config_name, flag)))
            elif g == longest:  # a run that diverged earlier: its last checkpoint (or initial network)
                sources.append(_Source({"name": name, "config": config_name, **_trained(run, out),
                                        "games": run.games_played(), "diverged": diverged},
                                       partial(_from_run, run, name, config_name)))
    if with_zero:  # games 0: the initial networks of the same seeds, the baseline every row is measured against
        for job in jobs:
            name, config_name = f"{Path(job.run_path).name}@0", f"{job.config_name}_0"
            sources.append(_Source({"name": name, "config": config_name, "initial": job.config, "diverged": False},
                                   partial(_initial, job.config, name, config_name)))
    results["stages"].append(ranked(1, sources))
    score = results["stages"][0]["score"]
    if carry_games:
        chosen = max((f"stage_one_{m}_{g}" for m in ("best_known", "mean") for g in counts if f"stage_one_{m}_{g}" in score),
                     key=score.get)
    else:
        chosen = max((f"stage_one_{m}_{longest}" for m in ("best_known", "mean")), key=score.get)
    method = "best_known" if chosen.startswith("stage_one_best_known_") else "mean"
    later_games = int(chosen.rsplit("_", 1)[1]) if carry_games else games
    current = json.loads(json.dumps(base))
    current["estimated_optimal_future_value"] = method
    current["games_to_play"] = later_games
    current["saving_rate"] = max(1, later_games // 8)
    results["stages"][0]["chosen"] = chosen
    _save(out, results)

    for stage in range(2, stages + 1):
        jobs, names = [], {}
        for suffix, change in stage_variants(stage):
            cfg = json.loads(json.dumps(current))
            change(cfg)
            name = f"stage_{STAGE_NAMES[stage - 1]}_{suffix}"
            names[name] = cfg
            jobs += jobs_for(name, cfg)
        _train_all(jobs, workers, log, backend)
        summary = ranked(stage, [_run_source(Run(Path(j.run_path)), out) for j in jobs])
        chosen = max(summary["score"], key=summary["score"].get)
        summary["chosen"] = chosen
        current = names[chosen]
        results["stages"].append(summary)
        _save(out, results)
    if stages >= 6:
        results["reward_sets"] = [{"set": n, **r} for n, r in REWARD_SETS.items()]
    results["final_config"] = current
    _save(out, results)
    return results


@dataclass
class _Source:
    """An agent to rank: what it is (its part of the stage's ranking key) and how to load it,
    so that a stage whose ranking is reused builds no network."""

    describe: dict[str, Any]
    load: Callable[[], TrainedAgent]


def _trained(run: Run, out: Path) -> dict[str, Any]:
    # the path relative to out and the config, not file times, so that a copied folder still matches
    return {"run": run.path.relative_to(out).as_posix(), "trained": json.loads(run.config_file.read_text(encoding="utf-8"))}


def _from_snapshot(path: Path, name: str, config_name: str, diverged: bool) -> TrainedAgent:
    agent = TrainedAgent.from_checkpoint(path, name, config_name)
    agent.diverged = diverged
    return agent


def _from_run(run: Run, name: str, config_name: str) -> TrainedAgent:
    agent = TrainedAgent.from_run(run)
    agent.name, agent.config_name = name, config_name
    return agent


def _initial(config: dict, name: str, config_name: str) -> TrainedAgent:
    with torch.random.fork_rng(devices=[]):
        learner = Learner.new(config_from_dict(config, config_name))
    return TrainedAgent(name, config_name, learner.cfg, q_function(learner.net))


def _run_source(run: Run, out: Path) -> _Source:
    """A run's latest checkpoint (its initial network if it diverged before the first one)."""
    diverged = (run.path / "diverged.json").exists()
    return _Source({"name": run.name, "config": run.config_name, **_trained(run, out),
                    "games": run.games_played(), "diverged": diverged},
                   partial(TrainedAgent.from_run, run))


def _positions_digest(positions: list | None) -> str | None:
    """The grading set's content (not its file name), so that an edited set is graded again."""
    if positions is None:
        return None
    digest = hashlib.sha256()
    for position in positions:
        line = position.to_line() if hasattr(position, "to_line") else repr(position)
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


#: bump when the rankings change for the same inputs (the games played, the scores), so old keys stop matching
RANKING_VERSION = 1


def ranking_key(stage: int, agents: list[dict[str, Any]], eval_games: int, seed: int, positions_digest: str | None) -> str:
    """A digest of everything a stage's ranking depends on (the agents in order: their seats'
    random streams follow their places)."""
    inputs = {"version": RANKING_VERSION, "stage": stage, "agents": agents, "eval_games": eval_games, "seed": seed,
              "positions": positions_digest}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()[:16]


def _previous_rankings(out: Path, log: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """The stage summaries of an earlier ``results.json`` by key; nothing (and one line saying
    why) when it is unreadable or older than the keys, since then the rankings are simply redone."""
    path = out / "results.json"
    if not path.exists():
        return {}
    try:
        found = {s["key"]: s for s in json.loads(path.read_text(encoding="utf-8"))["stages"]
                 if isinstance(s, dict) and isinstance(s.get("key"), str)}
    except (OSError, ValueError, TypeError, KeyError) as e:
        log(f"{path} could not be read ({type(e).__name__}: {e}): every stage is ranked again")
        return {}
    if not found:
        log(f"{path} has no ranking keys (written before rankings carried one): every stage is ranked again")
    return found


def _fits(summary: dict[str, Any], stage: int, configs: set[str]) -> bool:
    """Whether a stored summary can stand for this stage's ranking (a hand-edited file may not)."""
    score = summary.get("score")
    return (summary.get("stage") == stage and isinstance(score, dict) and set(score) == configs
            and all(isinstance(v, (int, float)) for v in score.values())
            and all(isinstance(summary.get(k), list) for k in ("all_play_all", "with_random", "diverged")))


def _ranked(stage: int, sources: list[_Source], eval_games: int, log: Callable[[str], None], positions: list | None,
            positions_digest: str | None, previous: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The stage's summary with its ``key``: from ``previous`` when ranked before on the same inputs."""
    # the games against random are drawn from the stage's number
    key = ranking_key(stage, [s.describe for s in sources], eval_games, stage, positions_digest)
    summary = previous.get(key)
    if summary is not None and _fits(summary, stage, {s.describe["config"] for s in sources}):
        log(f"stage {stage}: ranking reused from results.json")
    else:
        summary = _rank_stage(stage, [s.load() for s in sources], eval_games, log, positions)
    return {"stage": stage, "key": key, **{k: v for k, v in summary.items() if k not in ("stage", "key")}}


def _rank_stage(stage: int, agents: list[TrainedAgent], eval_games: int, log: Callable[[str], None], positions: list | None = None) -> dict[str, Any]:
    log(f"stage {stage}: ranking {len(agents)} agents")
    apa = all_play_all(agents)
    wr = with_random(agents, eval_games, seed=stage, positions=positions)
    diverged = sorted(a.name for a in agents if a.diverged)
    return {"stage": stage, "all_play_all": apa, "with_random": wr, "score": _score(apa, wr), "diverged": diverged}


def _save(out: Path, results: dict[str, Any]) -> None:
    write_atomic(out / "results.json", json.dumps(results, indent=1) + "\n")


def tables_markdown(results: dict[str, Any]) -> str:
    """The stage tables in the study's layout (mean, max, min percentage of games won)."""
    lines = []
    for summary in results["stages"]:
        stage = summary["stage"]
        if stage == 6:
            lines.append("**Stage 6: the reward sets compared (the study's table 6.11)**\n")
            lines.append(reward_sets_table())
            lines.append("")
        if stage == 7:
            lines.append("**Stage 7 (not in the study): the state encoding, the carried network against the planes "
                         "encoding at each learning rate of stage 5**\n")
        if stage == 8:
            lines.append("**Stage 8 (not in the study): hidden neurons again, stage 2's sizes for the encoding stage 7 "
                         "chose**\n")
        for key, title in (("all_play_all", "all play all"), ("with_random", f"against random, {results['eval_games']} games per seat")):
            lines.append(f"**Stage {stage}: {title}**\n")
            graded = all("optimal_mean" in row for row in summary[key])
            lines.append("| configuration | mean | max | min |" + (" optimal moves: mean | max | min |" if graded else ""))
            lines.append("|---|---:|---:|---:|" + ("---:|---:|---:|" if graded else ""))
            for row in summary[key]:
                mark = " (chosen)" if row["config"] == summary.get("chosen") else ""
                extra = f" {row['optimal_mean']:.1f}% | {row['optimal_max']:.1f}% | {row['optimal_min']:.1f}% |" if graded else ""
                lines.append(f"| {row['config']}{mark} | {row['mean']:.2f}% | {row['max']:.2f}% | {row['min']:.2f}% |{extra}")
            lines.append("")
        if summary.get("diverged"):
            lines.append("Diverged during training (ranked from their last checkpoint, or their initial network if they diverged before the first): "
                         f"{', '.join(summary['diverged'])}.\n")
    return "\n".join(lines)


def plot_stage_one(results: dict[str, Any], path: Path) -> None:
    """Stage 1 as a learning curve: mean % won against random per method at each games count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {r["config"]: r for r in results["stages"][0]["with_random"]}
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=110)
    for method in ("best_known", "mean"):
        points = sorted((int(c.rsplit("_", 1)[1]), r) for c, r in rows.items() if c.startswith(f"stage_one_{method}_"))
        xs = [g for g, _ in points]
        ax.plot(xs, [r["mean"] for _, r in points], "-o", ms=3, label=f"{method} (mean of agents)")
        ax.fill_between(xs, [r["min"] for _, r in points], [r["max"] for _, r in points], alpha=0.15)
    ax.set_xlabel("self-play games")
    ax.set_ylabel("% won against random (both seats)")
    ax.set_title(f"Stage 1, study encoding: {results['agents']} agents per point, {results['eval_games']} games per seat")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def write_reports(out: Path, results: dict[str, Any]) -> dict[str, str]:
    """Write ``out/tables.md`` (the stage tables) and ``out/stage_one.png``; returns the tables and both paths."""
    _save(out, results)  # with what the caller added (the preset's name, the wall time)
    tables = tables_markdown(results)
    write_atomic(out / "tables.md", tables)
    plot_stage_one(results, out / "stage_one.png")
    return {"tables": tables, "tables_file": str(out / "tables.md"), "plot": str(out / "stage_one.png")}
