"""OpenSpiel's AlphaZero self-play speed, the peer of az_selfplay.py: games per CPU-second of one core, and network evaluations.

    nice -n 10 PEER_PYTHON benchmarks/az_openspiel.py --games 32 --simulations 50

Needs pyspiel and the JAX stack OpenSpiel's ``alpha_zero`` imports (jax, flax,
optax, orbax-checkpoint, chex), nothing of boardlab or torch, so it runs in a
venv of its own (``pip install open_spiel==2.0.2 jax jaxlib flax optax
orbax-checkpoint chex``, or boardlab's ``peers`` extra).

What it times, with the model an OpenSpiel actor builds (``--model``,
``--width``, ``--depth``; untrained weights, flax nnx API) on ``--game``:

* ``forward``: the bare network, jit-compiled and vmapped over the batch (the
  way OpenSpiel's learner calls it), batches of 1 and 64;
* ``inference``: ``Model.inference``, what the evaluator calls per position:
  one position, not jit-compiled (OpenSpiel leaves it eager), masked softmax;
* ``evaluate``: ``AlphaZeroEvaluator.evaluate`` on a position not in its cache
  (observation tensor, legal mask, cache key, inference), one position, as
  its MCTS asks; ``evaluate_b64`` is the batched equivalent OpenSpiel does not
  have (tensors, masks, the jitted forward, masked softmax) for comparison with
  az_selfplay.py's batch 64;
* ``self-play``: ``--games`` whole games played one after the other by
  ``alpha_zero._play_game`` with two bots from ``alpha_zero._init_bot`` sharing
  one ``AlphaZeroEvaluator``, exactly as one actor process plays them (its
  Python MCTSBot, Dirichlet noise at the root, temperature 1 for the first
  ``--temperature-drop`` moves). The evaluator's LRU cache starts empty and
  persists across the games, as in an actor between checkpoints; its hits and
  misses are reported (misses are network evaluations).

JAX is restricted to the CPU and one intra-op thread (JAX_PLATFORMS=cpu,
XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1,
unless already set); times are CPU seconds of the whole process
(time.process_time, all threads). Compilation is excluded: each measurement
runs once before its clock starts, and a whole warm-up game is played with a
separate evaluator before the timed games.

--json prints one document: {load, load_after, settings, jax, flax, game,
model, parameters, forward_b1_per_cpu_s, forward_b64_per_cpu_s,
inference_b1_per_cpu_s, evaluate_b1_per_cpu_s, evaluate_b64_per_cpu_s,
selfplay: {games, positions, games_per_cpu_s, positions_per_cpu_s,
network_evaluations, evaluations_per_cpu_s, cache_hits, cpu_s, wall_s}}.
Without the JAX stack it prints one line naming the pip command and exits 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time

NEEDED = ("pyspiel", "jax", "flax", "optax", "orbax.checkpoint", "chex")
INSTALL = "pip install open_spiel==2.0.2 jax jaxlib flax optax orbax-checkpoint chex"


def _missing() -> list[str]:
    missing = []
    for name in NEEDED:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # the parent package (orbax) is absent
            found = False
        if not found:
            missing.append(name)
    return missing


def _timed(fn, seconds: float) -> tuple[int, float, float]:
    """Call ``fn`` until ``seconds`` of wall time pass, after one untimed call (compilation): (calls, wall, cpu)."""
    fn()
    calls, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        fn()
        calls += 1
    return calls, time.perf_counter() - start, time.process_time() - cpu


class _Silent:
    """The logger ``_play_game`` writes to; an actor's goes to a file, which this benchmark does not want to time."""

    def print(self, *args) -> None:
        pass

    def opt_print(self, *args) -> None:
        pass


def states_of(game, n: int, seed: int) -> list:
    """``n`` distinct positions from random games (random lengths), where a player is to move."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out, seen = [], set()
    while len(out) < n:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(0, 12))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        if not state.is_terminal() and str(state) not in seen:
            seen.add(str(state))
            out.append(state)
    return out


def bench(args) -> dict:
    import flax
    import jax
    import jax.numpy as jnp
    import numpy as np
    import pyspiel
    from flax import nnx
    from open_spiel.python.algorithms.alpha_zero import alpha_zero
    from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib

    game = pyspiel.load_game(args.game)
    config = alpha_zero.Config(
        game=args.game, path=None, learning_rate=1e-3, weight_decay=1e-4, decouple_weight_decay=False,
        train_batch_size=128, replay_buffer_size=2 ** 14, replay_buffer_reuse=3, max_steps=0, checkpoint_freq=0,
        actors=1, evaluators=0, evaluation_window=0, eval_levels=0,
        uct_c=args.uct_c, max_simulations=args.simulations,
        policy_alpha=args.alpha, policy_epsilon=args.noise_weight,
        temperature=1.0, temperature_drop=args.temperature_drop,
        nn_model=args.model, nn_width=args.width, nn_depth=args.depth,
        observation_shape=game.observation_tensor_shape(), output_size=game.num_distinct_actions(),
        verbose=False, quiet=True, nn_api_version="nnx",
    )
    model = alpha_zero._init_model_from_config(config)  # what actor() builds
    row: dict = {"jax": jax.__version__, "flax": flax.__version__, "game": args.game,
                 "model": {"kind": args.model, "width": args.width, "depth": args.depth, "api": "nnx"},
                 "parameters": int(model.num_trainable_variables)}

    state = model._state
    graphdef, params, batch_stats = state.graphdef, state.params, state.batch_stats

    @jax.jit
    def forward(params, observations):
        net = nnx.merge(graphdef, params, batch_stats)
        net.eval()
        return jax.vmap(net)(observations)

    @jax.jit
    def masked_policy_value(params, observations, masks):
        logits, values = forward(params, observations)
        logits = jnp.where(masks, logits, jnp.finfo(jnp.float32).min)
        return jax.nn.softmax(logits, axis=-1), values

    size = int(np.prod(game.observation_tensor_shape()))
    for batch in (1, 64):
        x = jnp.asarray(np.random.default_rng(0).random((batch, size), dtype=np.float32))
        calls, _, cpu = _timed(lambda x=x: jax.block_until_ready(forward(params, x)), args.seconds)
        row[f"forward_b{batch}_per_cpu_s"] = calls * batch / cpu

    positions = states_of(game, 64, 1)
    obs, mask = np.asarray(positions[0].observation_tensor()), np.asarray(positions[0].legal_actions_mask())
    calls, _, cpu = _timed(lambda: jax.block_until_ready(model.inference(obs, mask)), args.seconds)
    row["inference_b1_per_cpu_s"] = calls / cpu

    # A one-entry cache over 64 distinct positions misses every time: the price of a new leaf.
    uncached = evaluator_lib.AlphaZeroEvaluator(game, model, cache_size=1)
    cursor = iter(range(1 << 62))
    calls, _, cpu = _timed(lambda: uncached.evaluate(positions[next(cursor) % len(positions)]), args.seconds)
    row["evaluate_b1_per_cpu_s"] = calls / cpu

    def evaluate_batch():
        o = np.stack([np.asarray(s.observation_tensor(), np.float32) for s in positions])
        m = np.stack([np.asarray(s.legal_actions_mask(), bool) for s in positions])
        return jax.block_until_ready(masked_policy_value(params, o, m))

    calls, _, cpu = _timed(evaluate_batch, args.seconds)
    row["evaluate_b64_per_cpu_s"] = calls * len(positions) / cpu

    logger = _Silent()
    np.random.seed(args.seed)  # _play_game samples moves from NumPy's global generator
    warm = evaluator_lib.AlphaZeroEvaluator(game, model)
    alpha_zero._play_game(logger, 0, game, [alpha_zero._init_bot(config, game, warm, False) for _ in range(2)],
                          config.temperature, config.temperature_drop)
    az_evaluator = evaluator_lib.AlphaZeroEvaluator(game, model)
    bots = [alpha_zero._init_bot(config, game, az_evaluator, False) for _ in range(2)]
    played = 0
    start, cpu = time.perf_counter(), time.process_time()
    for game_num in range(1, args.games + 1):
        trajectory = alpha_zero._play_game(logger, game_num, game, bots, config.temperature, config.temperature_drop)
        played += len(trajectory.states)
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    info = az_evaluator.cache_info()
    row["selfplay"] = {"games": args.games, "positions": played, "games_per_cpu_s": args.games / used,
                       "positions_per_cpu_s": played / used, "network_evaluations": info.misses,
                       "evaluations_per_cpu_s": info.misses / used, "cache_hits": info.hits,
                       "cpu_s": used, "wall_s": wall}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="connect_four", help="an OpenSpiel game name (two players, terminal rewards)")
    parser.add_argument("--games", type=int, default=32, help="timed self-play games, one after the other as an actor plays them")
    parser.add_argument("--simulations", type=int, default=50, help="MCTS simulations per move (alpha_zero's max_simulations)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per network measurement")
    parser.add_argument("--model", default="mlp", choices=("mlp", "conv2d", "resnet"), help="alpha_zero's nn_model")
    parser.add_argument("--width", type=int, default=256, help="alpha_zero's nn_width")
    parser.add_argument("--depth", type=int, default=3, help="alpha_zero's nn_depth (torso blocks; each head adds one more)")
    parser.add_argument("--uct-c", type=float, default=1.5, help="PUCT constant (boardlab's default; OpenSpiel's example uses 1.41)")
    parser.add_argument("--alpha", type=float, default=1.0, help="Dirichlet alpha of the root noise (both default to 1)")
    parser.add_argument("--noise-weight", type=float, default=0.25, help="weight of the root noise (policy_epsilon)")
    parser.add_argument("--temperature-drop", type=int, default=10,
                        help="moves played in proportion to visits before the most visited is taken (boardlab's temp_moves)")
    parser.add_argument("--seed", type=int, default=0, help="seeds NumPy's global generator (move sampling); "
                        "the bots' own generators (noise, tie order) are unseeded, as in an actor")
    parser.add_argument("--json", action="store_true", help="print one JSON document (keys above)")
    args = parser.parse_args()

    missing = _missing()
    if missing:
        print(f"OpenSpiel's alpha_zero cannot run here: {', '.join(missing)} missing; install with: {INSTALL}")
        sys.exit(2)
    # Before jax is imported: it reads these once.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

    load = os.getloadavg()[0]
    row = bench(args)
    settings = {k: getattr(args, k) for k in ("games", "simulations", "uct_c", "alpha", "noise_weight", "temperature_drop", "seed")}
    settings.update({"JAX_PLATFORMS": os.environ["JAX_PLATFORMS"], "XLA_FLAGS": os.environ["XLA_FLAGS"]})
    doc = {"load": load, "load_after": os.getloadavg()[0], "settings": settings, **row}
    if args.json:
        print(json.dumps(doc))
        return
    print(f"load {doc['load']:.2f} before, {doc['load_after']:.2f} after; jax {doc['jax']}, flax {doc['flax']}, "
          f"XLA_FLAGS={settings['XLA_FLAGS']!r}")
    print(f"{doc['game']}: {args.model} width {args.width} depth {args.depth}, {doc['parameters']} parameters")
    for batch in (1, 64):
        print(f"  batch {batch:2d}: forward (jit) {doc[f'forward_b{batch}_per_cpu_s']:9.0f} positions/CPU-s")
    print(f"  batch  1: Model.inference (eager, as MCTS calls it) {doc['inference_b1_per_cpu_s']:9.0f} positions/CPU-s, "
          f"AlphaZeroEvaluator.evaluate, cache miss {doc['evaluate_b1_per_cpu_s']:9.0f} /CPU-s")
    print(f"  batch 64: tensors + masks + forward (jit) + masked softmax {doc['evaluate_b64_per_cpu_s']:9.0f} positions/CPU-s "
          "(OpenSpiel's MCTS never batches)")
    sp = doc["selfplay"]
    print(f"  self-play, one actor, {args.simulations} simulations: {sp['games_per_cpu_s']:.3f} games/CPU-s, "
          f"{sp['positions_per_cpu_s']:.1f} positions/CPU-s, {sp['evaluations_per_cpu_s']:.0f} network evaluations/CPU-s "
          f"({sp['games']} games, {sp['positions']} positions, {sp['network_evaluations']} evaluations + "
          f"{sp['cache_hits']} cache hits, {sp['cpu_s']:.1f} CPU-s, {sp['wall_s']:.1f} s wall)")


if __name__ == "__main__":
    main()
