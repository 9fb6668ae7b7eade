"""AlphaZero self-play speed: games per second per core, and network evaluations per second.

    PYTHONPATH=src python benchmarks/az_selfplay.py --games 64 --simulations 50
    PYTHONPATH=src python benchmarks/az_selfplay.py --game dicewars --game nothanks --game tickettoride --lockstep-only

For Connect Four and Mancala (or each ``--game``: Dice Wars' chance nodes and
four value outputs, No Thanks! and Ticket to Ride searched over worlds drawn
from what the player to move has seen), with the networks ``boardlab train az`` builds
(``--net``, ``--hidden``, ``--layers``; resnet: ``--channels``, ``--blocks``) and
untrained weights (a trained network plays other, often longer, games):

* ``forward``: the bare network on random input, batches of 1 and of 64;
* ``evaluate``: what the search pays per leaf (the observation tensor, the
  legal mask, the forward pass and the masked softmax), batches of 1 and 64;
* ``self-play``: whole games of lockstep self-play (``--games`` at once, one
  forward pass per round of leaves) against the same games one at a time
  (lockstep 1), in games and positions per CPU-second of one core, with the
  positions the network judged (network evaluations; there is no cache, so
  every new leaf is one) and the forward passes they took; and, where the game
  offers a compiled PUCT engine for the network (Connect Four's MLP), the same
  games through it, one at a time (the self-play ``train az`` runs by default);
* ``time per move``: the ``az`` agent with 200 simulations, compiled and generic,
  beside ``mcts:iterations=10000`` on the same Connect Four positions (the goal: a network that beats it
  while using less time per move).

CPU seconds are the figures to compare on a shared machine; the 1-minute load
average is printed with them. OpenSpiel's AlphaZero (JAX) is measured by its
own script, benchmarks/az_openspiel.py, in a venv with the JAX stack (boardlab's
``peers`` extra); this one says whether that stack is importable here.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from boardlab.agents.az_selfplay import SelfPlaySettings, self_play
from boardlab.agents.registry import make_agent
from boardlab.core.engines import puct_engine
from boardlab.core.registry import make
from boardlab.nn.az_net import Evaluator, dense_network, new_network, relative_values, save_model, value_outputs

# What benchmarks/az_openspiel.py imports; orbax is found as a namespace package, so its top name is enough.
OPENSPIEL_AZ_NEEDS = ("pyspiel", "jax", "flax", "optax", "orbax", "chex")


def _timed(fn, seconds: float) -> tuple[int, float, float]:
    """Call ``fn`` until ``seconds`` of wall time pass: (calls, wall, cpu)."""
    fn()
    calls, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        fn()
        calls += 1
    return calls, time.perf_counter() - start, time.process_time() - cpu


def states_of(game, n: int, seed: int) -> list:
    """``n`` positions from random games (random lengths), where a player is to move."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.new_initial_state(int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 12))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        if not state.is_terminal():
            out.append(state)
    return out


def bench(spec: str, arch: dict, games: int, simulations: int, seconds: float, single: bool = True) -> dict:
    game = make(spec)
    torch.manual_seed(0)
    net = new_network(game, arch).eval()
    evaluator = Evaluator(net)
    row: dict = {"game": spec, "arch": net.arch, "parameters": sum(p.numel() for p in net.parameters())}
    for batch in (1, 64):
        x = torch.rand(batch, *net.shape)
        with torch.no_grad():
            calls, wall, cpu = _timed(lambda x=x: net(x), seconds)
        row[f"forward_b{batch}_per_cpu_s"] = calls * batch / cpu
        states = states_of(game, batch, 1)
        calls, wall, cpu = _timed(lambda states=states: evaluator.evaluate(states), seconds)
        row[f"evaluate_b{batch}_per_cpu_s"] = calls * batch / cpu
    outputs = value_outputs(game)
    targets = lambda returns, mover: relative_values(np.asarray(returns), mover, outputs)  # noqa: E731
    settings = SelfPlaySettings(simulations=simulations)
    for lockstep in (games, 1) if single else (games,):
        seeds = list(range(games))
        start, cpu = time.perf_counter(), time.process_time()
        positions, evaluated, passes = 0, evaluator.positions, evaluator.calls
        for chunk in range(0, games, lockstep):
            samples, _ = self_play(game, evaluator.evaluate, seeds[chunk: chunk + lockstep], settings, targets)
            positions += len(samples)
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        row[f"selfplay_lockstep{lockstep}"] = {"games": games, "positions": positions, "games_per_cpu_s": games / used,
                                               "positions_per_cpu_s": positions / used, "wall_s": wall, "cpu_s": used,
                                               "network_evaluations": evaluator.positions - evaluated,
                                               "forward_passes": evaluator.calls - passes}
    dense = dense_network(net)
    if dense is not None and puct_engine(game) is not None:
        self_play(game, evaluator.evaluate, [games], settings, targets, dense)  # compile (or load) the engine first
        start, cpu = time.perf_counter(), time.process_time()
        samples, _ = self_play(game, evaluator.evaluate, list(range(games)), settings, targets, dense)
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        row["selfplay_compiled"] = {"games": games, "positions": len(samples), "games_per_cpu_s": games / used,
                                    "positions_per_cpu_s": len(samples) / used, "wall_s": wall, "cpu_s": used}
    return row


def move_times(spec: str, arch: dict, positions: int, opponent: str) -> list[dict]:
    """CPU milliseconds per move of ``az`` with 200 simulations (each engine the game offers) and of
    ``opponent``, on the same positions of random games (the goal: the network wins with less time per move)."""
    game = make(spec)
    torch.manual_seed(0)
    folder = Path(tempfile.mkdtemp())
    save_model(new_network(game, arch), folder / "net.pt", game.spec())
    states = states_of(game, positions, 2)
    out = []
    for agent_spec in (f"az:path={folder / 'net.pt'},simulations=200,engine=auto", f"az:path={folder / 'net.pt'},simulations=200,engine=generic",
                       opponent):
        agent = make_agent(agent_spec, game)
        agent.reset(game, states[0].current_player(), 0)
        agent.step(states[0])  # warm up
        cpu = time.process_time()
        for state in states:
            agent.reset(game, state.current_player(), 0)
            agent.step(state)
        used = time.process_time() - cpu
        engine = agent.last_search.get("engine", "") if isinstance(agent.last_search, dict) else ""
        out.append({"agent": agent_spec.replace(str(folder / "net.pt"), "NET"), "engine": engine,
                    "cpu_ms_per_move": 1000 * used / len(states)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="self-play games (played in lockstep, then one at a time)")
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per network measurement")
    parser.add_argument("--net", default="mlp")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--positions", type=int, default=100, help="positions timed per agent for the time per move")
    parser.add_argument("--game", action="append", help="a game spec to measure (repeat for more; default connect4 and mancala, "
                        "with Connect Four's time per move)")
    parser.add_argument("--lockstep-only", action="store_true", help="leave out the games one at a time (long games)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document: {load, openspiel_alpha_zero (which of its imports were found), rows, "
                             "move_times (Connect Four: agent, engine, cpu_ms_per_move)}")
    args = parser.parse_args()
    torch.set_num_threads(1)  # one core, as in self-play workers
    arch = {"kind": args.net, "hidden": args.hidden, "layers": args.layers, "channels": args.channels, "blocks": args.blocks}
    peers = {name: importlib.util.find_spec(name) is not None for name in OPENSPIEL_AZ_NEEDS}
    rows = []
    specs = args.game or ["connect4", "mancala"]
    for spec in specs:
        rank = len(make(spec).observation_tensor_shape())
        rows.append(bench(spec, arch if rank == 3 or args.net == "mlp" else {**arch, "kind": "mlp"},
                          args.games, args.simulations, args.seconds, not args.lockstep_only))
    times = move_times("connect4", arch, args.positions, "mcts:iterations=10000") if "connect4" in specs else []
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"load": load, "openspiel_alpha_zero": peers, "rows": rows, "move_times": times}))
        return
    missing = [name for name, found in peers.items() if not found]
    print(f"load {load:.2f}; OpenSpiel's alpha_zero: measured by benchmarks/az_openspiel.py, "
          + ("which can run with this Python" if not missing
             else f"which needs {', '.join(missing)} (absent here): run it in a venv with boardlab's peers extra"))
    for row in rows:
        print(f"{row['game']}: {row['arch']['kind']} {row['parameters']} parameters")
        for batch in (1, 64):
            print(f"  batch {batch:2d}: forward {row[f'forward_b{batch}_per_cpu_s']:9.0f} positions/CPU-s, "
                  f"evaluate (tensor+mask+forward) {row[f'evaluate_b{batch}_per_cpu_s']:9.0f} positions/CPU-s")
        for key, sp in row.items():
            if key.startswith("selfplay_lockstep"):
                print(f"  self-play, {key[17:]:>3s} games in lockstep, {args.simulations} simulations: "
                      f"{sp['games_per_cpu_s']:.2f} games/CPU-s, {sp['positions_per_cpu_s']:.0f} positions/CPU-s, "
                      f"{sp['network_evaluations'] / sp['cpu_s']:.0f} network evaluations/CPU-s "
                      f"({sp['games']} games, {sp['positions']} positions, {sp['network_evaluations']} evaluations in "
                      f"{sp['forward_passes']} forward passes, {sp['cpu_s']:.1f} CPU-s, {sp['wall_s']:.1f} s wall)")

        if "selfplay_compiled" in row:
            sp = row["selfplay_compiled"]
            print(f"  self-play, compiled PUCT engine (one game at a time), {args.simulations} simulations: "
                  f"{sp['games_per_cpu_s']:.2f} games/CPU-s, {sp['positions_per_cpu_s']:.0f} positions/CPU-s "
                  f"({sp['games']} games, {sp['positions']} positions, {sp['cpu_s']:.1f} CPU-s)")
    if times:
        print(f"time per move on {args.positions} Connect Four positions of random games (CPU):")
    for entry in times:
        print(f"  {entry['agent']:<48s} {entry['engine']:<14s} {entry['cpu_ms_per_move']:7.2f} ms")

if __name__ == "__main__":
    main()
