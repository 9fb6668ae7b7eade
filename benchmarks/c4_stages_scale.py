"""How long the Connect Four study's six stages take at the study's scale, from measured throughput.

    PYTHONPATH=src nice -n 10 python benchmarks/c4_stages_scale.py --games 300 --cores 16 [--kernel numpy]

Trains one agent of every configuration the stages train (stage 1's two methods,
then each stage's variants of the study's own choices: best_known, 50 hidden, T=1.5,
discount 1, rate 0.05, as its chapter 6 picked them) for ``--games`` self-play games
each with the study's update rule (``terminal_reply_value: zero``) on one core, and
times 200 greedy games against random (the evaluation). Prints games per CPU-second
per configuration, then the study's total: stage 1 five agents x 150,000 games per
method, stages 2-6 five agents x 50,000 games per configuration (stage 1's choice),
1,000 evaluation games per seat per agent, as CPU-hours and as wall hours on
``--cores`` cores (runs are independent: one per core). ``--kernel`` is the
training kernel (default ``compiled``, the one ``--scale study`` uses; timed after
a warm-up game that compiles it or loads numba's cache).

Throughput is that of the first ``--games`` games of each run; a trained agent's
games are longer or shorter than a fresh one's, so the total is an estimate within
a factor that the printed per-stage spread hints at.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
import torch

from boardlab.bots.connect4.network import q_function, view_of
from boardlab.bots.connect4.qnet_files import config_from_dict
from boardlab.core.registry import make
from boardlab.studies.c4rl.stages import STUDY_BASE, stage_variants
from boardlab.studies.c4rl.training import Learner, TrainingDiverged

STAGE_ONE_GAMES = 150_000  # the longest run per method (its snapshots give 5k-100k)
LATER_GAMES = 50_000  # stage 1's choice in the study
AGENTS = 5
EVAL_GAMES = 1000  # per seat


def configs() -> list[tuple[int, str, dict]]:
    base = json.loads(json.dumps(STUDY_BASE))
    base["terminal_reply_value"] = "zero"
    out = []
    for method in ("best_known", "mean"):
        cfg = json.loads(json.dumps(base))
        cfg["estimated_optimal_future_value"] = method
        out.append((1, f"stage_one_{method}", cfg))
    chosen = json.loads(json.dumps(base))
    chosen["boltzmann_temperature"] = 1.5  # the study's later choices, applied stage by stage
    for stage in range(2, 7):
        for suffix, change in stage_variants(stage):
            cfg = json.loads(json.dumps(chosen))
            change(cfg)
            out.append((stage, f"stage_{stage}_{suffix}", cfg))
    return out


def games_per_cpu_second(cfg: dict, games: int, kernel: str) -> tuple[float, str]:
    """Games per CPU-second, and a note when the run diverged (its rate is then that of the games before)."""
    learner = Learner.new(config_from_dict({**cfg, "kernel": kernel}))
    game = learner.cfg.game()
    if kernel == "compiled":
        Learner.new(learner.cfg).self_play_games(game, 1)  # compile (or load the cache) outside the timing
    per_call = 100 if kernel == "compiled" else 1
    start = time.process_time()
    note = ""
    while learner.games_played < games:
        try:
            learner.self_play_games(game, min(per_call, games - learner.games_played))
        except TrainingDiverged:
            note = f" (diverged in game {learner.games_played + 1}; rate of the games before)"
            break
    return max(1, learner.games_played) / (time.process_time() - start), note


def eval_games_per_cpu_second(games: int = 200) -> float:
    learner = Learner.new(config_from_dict(STUDY_BASE))
    q = q_function(learner.net)
    game = make("connect4")
    rng = np.random.default_rng(0)
    start = time.process_time()
    for i in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.current_player() == i % 2:
                values = q(view_of(state, state.current_player())[None])[0][legal]
                state.apply_action(int(legal[int(np.argmax(values))]))
            else:
                state.apply_action(int(rng.choice(legal)))
    return games / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300, help="self-play games timed per configuration")
    parser.add_argument("--cores", type=int, default=16, help="cores for the wall-time estimate")
    parser.add_argument("--kernel", default="compiled", choices=("numpy", "compiled"), help="training kernel")
    args = parser.parse_args()
    torch.set_num_threads(1)
    warnings.simplefilter("ignore", RuntimeWarning)  # a diverging run's overflows; reported as a note instead
    cpu_seconds = 0.0
    per_stage: dict[int, list[float]] = {}
    for stage, name, cfg in configs():
        rate, note = games_per_cpu_second(cfg, args.games, args.kernel)
        per_stage.setdefault(stage, []).append(rate)
        games = AGENTS * (STAGE_ONE_GAMES if stage == 1 else LATER_GAMES)
        cpu_seconds += games / rate
        print(f"stage {stage} {name:28s} {rate:7.1f} games/CPU-s -> {games:>7,} games: {games / rate / 3600:6.2f} CPU-h{note}")
    eval_rate = eval_games_per_cpu_second()
    agents = AGENTS * (2 * 5) + AGENTS * sum(len(stage_variants(s)) for s in range(2, 7))
    eval_seconds = agents * 2 * EVAL_GAMES / eval_rate
    print(f"evaluation: {eval_rate:.0f} greedy-vs-random games/CPU-s, {agents} agents x {2 * EVAL_GAMES} games: "
          f"{eval_seconds / 3600:.2f} CPU-h")
    wall = eval_seconds / args.cores
    for stage, rates in per_stage.items():
        per_run = STAGE_ONE_GAMES if stage == 1 else LATER_GAMES
        stage_cpu = sum(AGENTS * per_run / r for r in rates)
        # a stage waits for its slowest run, and starts when the previous stage has chosen
        stage_wall = max(stage_cpu / args.cores, per_run / min(rates))
        wall += stage_wall
        print(f"stage {stage}: {min(rates):.1f}-{max(rates):.1f} games/CPU-s over {len(rates)} configurations, "
              f"{stage_cpu / 3600:.1f} CPU-h, at least {stage_wall / 3600:.2f} h wall on {args.cores} cores")
    total = cpu_seconds + eval_seconds
    print(f"study scale: {total / 3600:.1f} CPU-hours; at least {wall / 3600:.2f} h wall on {args.cores} cores "
          f"(one core: {total / 3600:.1f} h)")

if __name__ == "__main__":
    main()
