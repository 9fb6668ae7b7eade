"""Does a rollout search improve on an `az` network's own policy in Ticket to Ride?

The PUCT search of `az` did not (after each lesson from `ttr-algorithmic`, 100 simulations won fewer games
than the policy alone; docs/alphazero.md), so self-play taught the policy worse targets than the lesson had.
This asks whether the kind of search that makes `ttr-ismcts` beat `ttr-algorithmic` does better over the
network: the policy's few most likely moves (its own choice among them) each played on the same fresh deals
(`PackedWorlds`, drawn from what the seat has seen), then the game out with the network's most likely move
in every seat (each from its own observation in that deal), scored as `ttr-ismcts` scores (the win share plus
a small share of the margin); successive halving; and the policy's move kept unless another beats it on the
same deals by more than `z` standard errors of the paired differences (rollout policy improvement, Tesauro
and Galperin 1996, with ISMCTS's determinisations).

    PYTHONPATH=src python benchmarks/ttr_policy_rollouts.py runs/az-ttr2r/models/iter-0000.pt \
        --opponent ttr-algorithmic --games 40 --seed 1 --first 0 --last 20

plays games FIRST..LAST-1 of the duel `boardlab duel` would play with that seed (seats alternating, the
same deals); run two halves side by side and add them. With more players (`--game tickettoride`) game i seats
the network in seat i mod players and a copy of the opponent in every other seat. A throwaway measure, not an agent of boardlab:
were it to help, it would become an option of `az`.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from boardlab.agents.base import Agent
from boardlab.agents.registry import make_agent
from boardlab.arena.play import play_game
from boardlab.bots.tickettoride.search import MARGIN_WEIGHT, clearly_better
from boardlab.core.params import Option, positive
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed
from boardlab.games.tickettoride.hidden import PackedWorlds
from boardlab.games.tickettoride.kernel import PHASE, apply_action, final_scores, map_arrays, returns
from boardlab.games.tickettoride.puct import judge
from boardlab.games.tickettoride.state import OVER, SECOND
from boardlab.nn.az_net import dense_network, load_model

ROOM = 8192


@njit(cache=True)
def greedy_value(S, M, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, priors, values,
                 seat, out, scores, done, bonus):
    """Play ``S`` to the end with the network's most likely move in every seat; the seat's win share plus margin."""
    moves = 0
    while S[PHASE] != OVER and moves < 5000:  # the rules end every game far sooner; a guard, not a rule
        moves += 1
        count = judge(S, M, w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, x, legal, priors, values)
        best = 0
        for i in range(1, count):
            if priors[i] > priors[best]:
                best = i
        apply_action(S, M, legal[best])
    returns(S, M, out)
    final_scores(S, M, scores, done, bonus)
    top = -10**9
    for q in range(scores.shape[0]):
        if q != seat and scores[q] > top:
            top = scores[q]
    return out[seat] + MARGIN_WEIGHT * (scores[seat] - top)


class PolicyRollouts(Agent):
    name = "ttr-policy-rollouts"
    games = ("tickettoride",)
    options = {
        "path": Option("path", str, "", "the az model file (an MLP for the compiled kernel)"),
        "playouts": Option("playouts", int, 200, "playouts per decision", positive),
        "candidates": Option("candidates", int, 4, "the policy's likeliest moves that are played out", positive),
        "rounds": Option("rounds", int, 4, "deals before the first halving", positive),
        "z": Option("z", float, 1.0, "standard errors by which a move must beat the policy's"),
        "seed": Option("seed", int, None, "seed of the deals"),
    }

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.path = self.config["path"]
        self.budget, self.k, self.rounds, self.z = (self.config[k] for k in ("playouts", "candidates", "rounds", "z"))
        self.weights: tuple | None = None
        self.searched = 0
        self.changed = 0

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        if self.weights is None:
            net, _ = load_model(self.path, game)
            dense = dense_network(net)
            assert dense is not None, "an MLP network is needed"
            self.weights = tuple(dense.arrays())
            self.M = map_arrays(game)
            n = game.num_players()
            self.x = np.empty(self.weights[0].shape[1], dtype=np.float32)
            self.legal = np.empty(ROOM, dtype=np.int64)
            self.priors = np.empty(ROOM, dtype=np.float64)
            self.values = np.empty(n, dtype=np.float64)
            self.out = np.empty(n)
            self.scores = np.empty(n, dtype=np.int64)
            self.done = np.empty(n, dtype=np.int64)
            self.bonus = np.empty(n, dtype=np.int64)

    def _policy(self, S) -> list[tuple[float, int]]:
        count = judge(S, self.M, *self.weights, self.x, self.legal, self.priors, self.values)
        return sorted(((float(self.priors[i]), int(self.legal[i])) for i in range(count)), reverse=True)

    def _value(self, S, seat: int) -> float:
        return float(greedy_value(S, self.M, *self.weights, self.x, self.legal, self.priors, self.values, seat,
                                  self.out, self.scores, self.done, self.bonus))

    def step(self, state) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        worlds = PackedWorlds(state, seat)
        S, _ = worlds.draw(self.rng)
        ranked = self._policy(S)  # the seat's own observation: the same in every world it cannot tell apart
        own = ranked[0][1]
        if state.phase == SECOND:
            return own
        arms = [a for _, a in ranked[:self.k]]
        alive = list(range(len(arms)))
        values: list[list[float]] = [[] for _ in arms]
        done = rounds = 0
        while done + len(alive) <= self.budget:
            world, _ = worlds.draw(self.rng)  # one deal for every move: their differences are paired
            for i in alive:
                trial = world.copy()
                apply_action(trial, self.M, arms[i])
                values[i].append(self._value(trial, seat))
            done += len(alive)
            rounds += 1
            if rounds >= self.rounds and len(alive) > 2 and (rounds & (rounds - 1)) == 0:
                alive.sort(key=lambda j: -float(np.mean(values[j])))
                alive = sorted(set(alive[:max(2, (len(alive) + 1) // 2)]) | {0})
        best = max(alive, key=lambda j: float(np.mean(values[j])))
        self.searched += 1
        if best != 0 and not clearly_better(values[best], values[0], self.z):
            best = 0
        if best != 0:
            self.changed += 1
        return arms[best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--opponent", default="ttr-algorithmic")
    parser.add_argument("--game", default="tickettoride:players=2")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--last", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=200)
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--z", type=float, default=1.0)
    parser.add_argument("--mine", default=None, help="an agent spec to play instead of the rollouts (e.g. the policy "
                        "alone, az:path=MODEL,simulations=1), on the same deals")
    args = parser.parse_args()
    game = make(args.game)
    n = game.num_players()
    mine: Agent = (make_agent(args.mine, game) if args.mine
                   else PolicyRollouts(path=args.model, playouts=args.playouts, candidates=args.candidates, z=args.z))
    others = [make_agent(args.opponent, game) for _ in range(n - 1)]  # one each: agents keep their seat's state
    seconds = [0.0, 0.0]
    moves = [0, 0]
    for index in range(args.first, args.games if args.last is None else args.last):
        seat = index % n  # as boardlab duel at 2 players: the first agent starts the even-numbered games
        seats = others[:seat] + [mine] + others[seat:]

        def timed(s: int, spent: float, seat: int = seat) -> None:
            which = 0 if s == seat else 1
            moves[which] += 1
            seconds[which] += spent

        start = time.perf_counter()
        record = play_game(game, seats, derive_seed(args.seed, index), on_step=timed)
        print(json.dumps({"game": index, "seat": seat, "returns": record.returns, "won": record.returns[seat] > 0.5,
                          "share": record.returns[seat], "seconds": round(time.perf_counter() - start, 1),
                          "per_move": [round(s / max(m, 1), 4) for s, m in zip(seconds, moves)],
                          "searched": getattr(mine, "searched", None), "changed": getattr(mine, "changed", None)}),
              flush=True)

if __name__ == "__main__":
    main()
