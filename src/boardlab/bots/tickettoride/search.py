"""A determinised search for Ticket to Ride over the algorithmic player: ``ttr-ismcts``.

Information-set Monte Carlo search with a tree of depth one (single-observer
ISMCTS restricted to the root, as Cowling, Powley and Whitehouse 2012 call the
root's statistics over determinisations): every iteration

1. deals a fresh determinisation of what the seat cannot see
   (``state.resample(player, rng)``: the deck order, the opponents' hands,
   tickets and offers, future reshuffles);
2. plays every candidate move still in the race on that one deal, then the
   game out with the compiled algorithmic player in every seat
   (:func:`boardlab.bots.tickettoride.compiled.play`, the very moves of
   ``ttr-algorithmic``, deterministic given the deal), scoring the seat's win
   share (ties shared) plus a small share of its score margin over the best
   opponent, which breaks ties between moves that win or lose alike. The same
   deal for every move makes their differences paired: the luck of the deal
   cancels;
3. after ``rounds`` deals, and at every doubling after, drops the worse half of
   the candidates (successive halving), never the algorithm's own move.

The move played is the candidate with the best mean if it beat the algorithm's
own move on the same deals by more than ``z`` standard errors of the paired
differences, else the algorithm's move. Without that test (the best mean
played whenever it was higher), 60 playouts a move won 7 of 16 games against
the algorithm: the best of ten noisy means is often a lucky one. An earlier version
picked moves by UCB1 on independent deals; with 30 playouts a move it lost
4 games of 4 to the algorithm: its many candidates got a few noisy
playouts each, and a random pick among them is much worse than the
algorithm's move. Candidates (the algorithm's
own move is always one): at the start of a turn every card draw the rules allow
(the deck, and face-up cards of a colour its goal needs or a locomotive), drawing tickets, the algorithm's payment
for every goal route it can claim and for the longest routes it can claim; when
keeping tickets every legal subset. The second card of a draw is the
algorithm's (it follows from the first, which the search chose).

Budget: ``iterations`` playouts per decision, or ``time`` seconds when given
(whichever ends first). A decision with one candidate costs nothing.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from boardlab.agents.base import Agent
from boardlab.bots.tickettoride.algorithmic import TTRAlgorithmicAgent, planner_for
from boardlab.bots.tickettoride.planning import best_claim, prepare
from boardlab.core.game import State
from boardlab.core.params import Option, between
from boardlab.games.tickettoride.map import LOCO
from boardlab.games.tickettoride.state import (
    DRAW_DECK,
    DRAW_TICKETS,
    KEEP,
    SECOND,
    SETUP,
    TURN,
    TicketToRide,
    TicketToRideState,
    decode_claim,
)

#: a win is worth 1; a point of margin over the best opponent this much (a 100-point margin: 0.05)
MARGIN_WEIGHT = 0.0005


class Playouts:
    """The compiled algorithmic player's playouts for one game (players, variant)."""

    def __init__(self, game: TicketToRide) -> None:
        from boardlab.bots.tickettoride.compiled import compiled_player, default_options

        self.player = compiled_player(game, default_options(game.num_players()))
        n = game.num_players()
        self.actions = np.empty(game.max_game_length() + 8, dtype=np.int64)
        self.forbidden = np.zeros(n, dtype=np.int64)
        self.decisions = np.zeros(n, dtype=np.int64)
        self.scores = np.zeros(n, dtype=np.int64)
        self.done = np.zeros(n, dtype=np.int64)
        self.bonus = np.zeros(n, dtype=np.int64)
        self.returns = np.zeros(n)

    def value(self, state: TicketToRideState, seat: int) -> float:
        """Play ``state`` to the end (every seat the algorithm); the seat's win share and margin."""
        from boardlab.bots.tickettoride.compiled import play
        from boardlab.games.tickettoride import kernel as K

        S = K.pack(state)
        player = self.player
        play(S, player.M, player.P, player.opts, self.actions, self.forbidden, self.decisions)
        K.final_scores(S, player.M, self.scores, self.done, self.bonus)
        K.returns(S, player.M, self.returns)
        others = [int(s) for q, s in enumerate(self.scores) if q != seat]
        return float(self.returns[seat]) + MARGIN_WEIGHT * (int(self.scores[seat]) - max(others))


def clearly_better(mine: list[float], theirs: list[float], z: float) -> bool:
    """Whether ``mine`` beats ``theirs`` on the deals both were played on by more than ``z`` standard
    errors of the paired differences (the best of many noisy means is otherwise often luck)."""
    diffs = np.asarray(mine, dtype=float) - np.asarray(theirs[:len(mine)], dtype=float)
    if len(diffs) < 2:
        return False
    mean = float(diffs.mean())
    se = float(diffs.std(ddof=1)) / math.sqrt(len(diffs))
    return mean > 0 and mean > z * se


_PLAYOUTS: dict[str, Playouts] = {}


def playouts_for(game: TicketToRide) -> Playouts:
    found = _PLAYOUTS.get(game.spec())
    if found is None:
        found = _PLAYOUTS[game.spec()] = Playouts(game)
    return found


class TTRSearchAgent(Agent):
    name = "ttr-ismcts"
    summary = "Ticket to Ride: determinised search (ISMCTS at the root) with the algorithmic player's playouts"
    games = ("tickettoride",)
    options = {
        "iterations": Option("iterations", int, 200, "playouts per decision", between(1, 10_000_000)),
        "time": Option("time", float, None, "seconds per decision (with iterations: whichever ends first)"),
        "rounds": Option("rounds", int, 4, "deals every candidate is played on before the worse half is dropped "
                         "(then again at each doubling)", between(1, 1_000_000)),
        "z": Option("z", float, 1.0, "standard errors of the paired differences by which a move must beat the "
                    "algorithm's own move to be played instead"),
        "claims": Option("claims", int, 3, "longest claimable routes off the goal among the candidates", between(0, 100)),
        "seed": Option("seed", int, None, "seed of the determinisations"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.algorithm = TTRAlgorithmicAgent()
        self.searched = 0
        self.playouts = 0
        self.seconds = 0.0

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        self.algorithm.reset(game, player, seed)
        self.searched = self.playouts = 0
        self.seconds = 0.0

    def statistics(self) -> dict[str, Any]:
        """Searches made, playouts in all, and the seconds they took (time per move = seconds / searches)."""
        return {"searches": self.searched, "playouts": self.playouts, "seconds": round(self.seconds, 3),
                "forbidden": 0}

    def candidates(self, state: TicketToRideState, legal: list[int]) -> list[int]:
        own = self.algorithm.choose(state)
        found = [own] if own in legal else []
        if state.phase in (SETUP, KEEP):
            found += legal
        elif state.phase == TURN:
            planner = planner_for(state)
            p = state.player
            plan = prepare(planner, state, p, True)
            # the deck, tickets, and face-up cards of a colour the goal needs (or a locomotive)
            wanted = {c for c in range(8) if plan.need[c] > 0 or plan.need[8] > 0} | {LOCO}
            found += [a for a in legal if a in (DRAW_DECK, DRAW_TICKETS) or (a < 5 and state.faceup[a] in wanted)]
            found += [a for a in plan.fitting if a in legal]
            others = []
            for link, status in enumerate(plan.status):
                if status == 0 and link not in plan.goal_set:
                    action = best_claim(planner, state, p, link, plan)
                    if action is not None and action in legal:
                        others.append(action)
            others.sort(key=lambda a: -planner.track_length[decode_claim(a)[0]])
            found += others[:self.config["claims"]]
        out: list[int] = []
        for a in found:
            if a not in out:
                out.append(a)
        return out or legal[:1]

    def _better(self, mine: list[float], theirs: list[float]) -> bool:
        return clearly_better(mine, theirs, self.config["z"])

    def step(self, state: State) -> int:
        assert isinstance(state, TicketToRideState)
        legal = state.legal_actions()
        if len(legal) == 1 or state.phase == SECOND:
            return self.algorithm.step(state) if len(legal) > 1 else legal[0]
        arms = self.candidates(state, legal)
        if len(arms) == 1:
            return arms[0]
        start = time.perf_counter()
        seat = state.current_player()
        runner = playouts_for(state.game)
        budget, limit = self.config["iterations"], self.config["time"]
        own = 0 if arms[0] == self.algorithm.choose(state) else None
        alive = list(range(len(arms)))
        totals = [0.0] * len(arms)
        visits = [0] * len(arms)
        values: list[list[float]] = [[] for _ in arms]  # per deal, in order: paired across moves
        done = rounds = 0
        while done + len(alive) <= budget and not self.stop.is_set():
            if limit is not None and done and time.perf_counter() - start >= limit:
                break
            world = state.resample(seat, self.rng)  # one deal for every move: their differences are paired
            for i in alive:
                trial = world.clone()
                trial.apply_action(arms[i])
                value = runner.value(trial, seat)
                values[i].append(value)
                totals[i] += value
                visits[i] += 1
            done += len(alive)
            rounds += 1
            if rounds >= self.config["rounds"] and len(alive) > 2 and (rounds & (rounds - 1)) == 0:
                # successive halving: keep the better half (and the algorithm's own move)
                alive.sort(key=lambda j: -totals[j] / visits[j])
                alive = sorted(set(alive[:max(2, (len(alive) + 1) // 2)]) | ({own} if own is not None else set()))
        mean = [totals[j] / visits[j] if visits[j] else -math.inf for j in range(len(arms))]
        best = max(alive, key=lambda j: mean[j])
        if own is not None and best != own and not self._better(values[best], values[own]):
            best = own  # the algorithm's move unless another did clearly better on the same deals
        seconds = time.perf_counter() - start
        self.searched += 1
        self.playouts += done
        self.seconds += seconds
        self.last_search = {"engine": "ttr-ismcts", "simulations": done, "seconds": seconds,
                            "children": [{"move": state.action_to_string(a), "visits": v,
                                          "mean": (t / v if v else None)} for a, v, t in zip(arms, visits, totals)]}
        return arms[best]
