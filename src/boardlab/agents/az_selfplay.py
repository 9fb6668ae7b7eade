"""Self-play in lockstep: many games in one process, all their search leaves judged in one forward pass.

On a CPU a small network costs about as much for 64 positions as for one, so
the games advance together: every round, each game's search walks down to one
leaf, the network evaluates all those leaves at once, and each search backs its
value up (:func:`boardlab.agents.puct.run_simulations`). When every search has
its simulations, each game plays its move (drawn in proportion to the visits
for the first ``temp_moves`` moves, the most visited after) and the rounds go
on until every game is over. In a game with hidden information each search
draws its worlds from what the player to move has seen
(:mod:`boardlab.agents.is_puct`), and the position recorded for training is
that player's observation tensor.

Every random choice of game ``i`` (root noise, drawn moves, chance outcomes)
comes from a generator seeded by its own seed, so a game's samples do not
depend on which other games shared its batches, up to floating-point
differences of the batched forward pass.

With ``opponents`` (agent specs joined by ``+``, as ``evaluate -o`` takes them) and
``opponent_share``, that share of the games (drawn from each game's seed) seats the
network in one seat and the opponents in the others, in turn from a drawn start:
their moves are played by the agents and not learnt from; the network's positions
and results are, so that its value learns what its play costs at their table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from boardlab.agents.base import Agent
from boardlab.agents.is_puct import InformationSetPUCT
from boardlab.agents.puct import PUCTSearch, new_search, run_simulations
from boardlab.agents.registry import make_agent
from boardlab.core.engines import puct_engine
from boardlab.core.rng import derive_seed, sample_chance
from boardlab.core.search import DenseNetwork, PUCTEngine, PUCTSettings, q_tilted_policy

#: one move to learn from: the mover's observation, the legal mask, the policy target, the mover,
#: the ply it was played at and the root's search value
Record = tuple[np.ndarray, np.ndarray, np.ndarray, int, int, float]


@dataclass(frozen=True)
class SelfPlaySettings:
    simulations: int = 50
    c: float = 1.5
    alpha: float = 1.0  # Dirichlet concentration of the root noise
    noise_weight: float = 0.25
    temp_moves: int = 10
    #: auto: the game's compiled PUCT engine when it offers one for the network (then each game
    #: is played on its own, a whole search per call); generic: the lockstep rounds above
    engine: str = "auto"
    #: a result k plies ahead is worth discount**k: the value targets and the search's backups
    #: (below 1, the nearer of two wins is worth more, and the farther of two losses)
    discount: float = 1.0
    #: the value head's target: the game's (discounted) result, or its average with the root's
    #: search value for the player to move ("average"; two-player zero-sum games)
    value_target: str = "result"
    #: an unvisited child's value in the searches (boardlab.core.search.FIRST_PLAY_VALUES)
    fpu: str = "zero"
    #: prove results in the searches (MCTS-Solver, boardlab.core.search); past the drawn moves
    #: their choice then plays the quickest proven win, as the az agent does
    solver: bool = False
    #: stop a game after this many moves of the players (0: never) and train on it as lost by every
    #: seat (the least utility), as Dice Wars counts a game cancelled at its battle limit: a game
    #: whose players stall would hold up its whole lockstep chunk, and a value above losing would
    #: teach them to stall (a 4-player seat expects -0.5 from a finished game)
    max_moves: int = 0
    #: start each game with a number of uniformly random legal moves drawn from 0..random_opening
    #: (not trained on: the searched moves from there are), so that the network also learns the
    #: positions strong players never reach; 0: every game from the initial state
    random_opening: int = 0
    #: the policy target: the root's visit shares (0), or those tilted toward the better searched
    #: values by exp(policy_q * (mean - best mean)) (boardlab.core.search.q_tilted_policy)
    policy_q: float = 0.0
    #: what a discounted result fades toward (targets and backups): 0, or the loss's value so that only
    #: wins fade and no seat is taught that losing later is better (games with one value per seat)
    discount_toward: float = 0.0
    #: agents (specs joined by "+", filling the other seats in turn) that play against the network in
    #: ``opponent_share`` of the games; their moves are not learnt from ("": pure self-play)
    opponents: str = ""
    opponent_share: float = 0.0

    def search(self) -> PUCTSettings:
        """How each move's search runs."""
        noise = (self.alpha, self.noise_weight) if self.noise_weight > 0 else None
        return PUCTSettings(c=self.c, noise=noise, discount=self.discount, fpu=self.fpu, solve=self.solver,
                            discount_toward=self.discount_toward)


@dataclass
class Samples:
    """Training positions: observation of the player to move, legal mask, visit shares, value targets."""

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.obs)

    @classmethod
    def concat(cls, parts: list["Samples"]) -> "Samples":
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("obs", "mask", "policy", "value")))


def self_play(game, evaluate: Callable, seeds: list[int], settings: SelfPlaySettings,
              value_targets: Callable[[list[float], int], np.ndarray],
              network: DenseNetwork | None = None) -> tuple[Samples, list[dict[str, Any]]]:
    """Play one game per seed in lockstep; return the training samples of all and a summary per game
    (``seed``, ``moves``, ``returns``). ``value_targets(returns, mover)`` is the value head's target.
    With ``network`` (the same network as arrays) and ``settings.engine`` not generic, a game that
    offers a compiled PUCT engine plays each game through it instead: the same searches and draws."""
    states = [game.new_initial_state(seed) for seed in seeds]
    rngs = [np.random.default_rng(derive_seed(seed, "az-selfplay")) for seed in seeds]
    tables = [opponent_table(game, seed, settings) for seed in seeds]
    actions = game.num_distinct_actions()
    #: per game, per move: observation, legal mask, visit shares, mover, ply and the root's search value
    records: list[list[Record]] = [[] for _ in seeds]
    search_settings = settings.search()

    def settle(i: int) -> None:
        """Play chance outcomes and the opponents' moves until the network is to move or the game is over."""
        table = tables[i]
        while True:
            state = states[i]
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rngs[i]))
            elif table is not None and not state.is_terminal() and table[state.current_player()] is not None:
                agent = table[state.current_player()]
                assert agent is not None  # checked just above
                state.apply_action(agent.step(state))
            else:
                return

    for i in range(len(states)):
        settle(i)
        if settings.random_opening:
            for _ in range(int(rngs[i].integers(0, settings.random_opening + 1))):
                if states[i].is_terminal():
                    break
                legal = states[i].legal_actions()
                states[i].apply_action(legal[int(rngs[i].integers(len(legal)))])
                settle(i)
    active = [i for i, s in enumerate(states) if not s.is_terminal()]
    factory = puct_engine(game) if network is not None and settings.engine != "generic" else None
    while active:
        searches: list[PUCTSearch | InformationSetPUCT | PUCTEngine] = []
        if factory is not None and network is not None:
            engines = [factory(states[i], network, search_settings, rngs[i]) for i in active]
            for engine in engines:
                engine.run(settings.simulations)
            searches.extend(engines)
        else:
            lockstep = [new_search(states[i], search_settings, rngs[i]) for i in active]
            run_simulations(lockstep, settings.simulations, evaluate)
            searches.extend(lockstep)
        for i, search in zip(active, searches):
            state = states[i]
            mover = state.current_player()
            target = (q_tilted_policy(search.root_children(), actions, settings.policy_q) if settings.policy_q
                      else search.policy(actions))
            records[i].append((state.observation_tensor(mover), state.legal_actions_mask(), target, mover,
                               len(state.history), search.root_value()))
            temperature = 1.0 if state.move_number() < settings.temp_moves else 0.0
            state.apply_action(search.choose(temperature))
            settle(i)
        active = [i for i in active if not states[i].is_terminal()
                  and not (settings.max_moves and len(records[i]) >= settings.max_moves)]
    summary = []
    unfinished = [game.game_type.min_utility] * game.num_players()
    for seed, state, rec, table in zip(seeds, states, records, tables):
        returns = [float(r) for r in state.returns()] if state.is_terminal() else unfinished
        learner = None if table is None else table.index(None)
        summary.append({"seed": seed, "moves": len(rec), "returns": returns, "cut": not state.is_terminal(),
                        "learner": learner})
    return training_samples(game, list(zip(states, records)), settings, value_targets), summary


def opponent_table(game, seed: int, settings: SelfPlaySettings) -> list[Agent | None] | None:
    """The seats of the game of ``seed``: None for self-play, else one agent per seat with None at the
    network's seat (all drawn from the seed: the share of such games, the network's seat and where the
    opponents' turn starts)."""
    if not settings.opponents or settings.opponent_share <= 0:
        return None
    rng = np.random.default_rng(derive_seed(seed, "az-opponents"))
    if rng.random() >= settings.opponent_share:
        return None
    players = game.num_players()
    specs = settings.opponents.split("+")
    learner, shift = int(rng.integers(players)), int(rng.integers(len(specs)))
    table: list[Agent | None] = []
    for seat in range(players):
        if seat == learner:
            table.append(None)
            continue
        turn = seat - (seat > learner)  # the opponents' order around the table, from the drawn start
        agent = make_agent(specs[(shift + turn) % len(specs)], game)
        agent.reset(game, seat, derive_seed(seed, "az-opponent", seat))
        table.append(agent)
    return table


def training_samples(game, played: list[tuple[Any, list[Record]]], settings: SelfPlaySettings,
                     value_targets: Callable[[list[float], int], np.ndarray]) -> Samples:
    """The training positions of games played to their end (or cut by ``settings.max_moves``: lost by
    every seat): each ``(final state, records)`` pair gives one sample per record, its value target
    ``value_targets(returns, mover)`` discounted by the plies to the end (``settings.discount``, fading toward
    ``settings.discount_toward``)."""
    obs, mask, policy, value = [], [], [], []
    unfinished = [game.game_type.min_utility] * game.num_players()
    for state, rec in played:
        returns = [float(r) for r in state.returns()] if state.is_terminal() else unfinished
        end = len(state.history)
        for o, m, p, mover, ply, searched in rec:
            obs.append(o)
            mask.append(m)
            policy.append(p)
            target = value_targets(returns, mover)
            if settings.discount != 1.0:
                toward = np.float32(settings.discount_toward)
                target = toward + (target - toward) * np.float32(settings.discount ** (end - ply))
            if settings.value_target == "average":  # one value, for the player to move
                target = (target + np.float32(searched)) / 2
            value.append(target)
    actions = game.num_distinct_actions()
    if not obs:
        return Samples(np.zeros((0, *game.observation_tensor_shape()), np.float32), np.zeros((0, actions), bool),
                       np.zeros((0, actions), np.float32), np.zeros((0, 1), np.float32))
    return Samples(np.stack(obs).astype(np.float32), np.stack(mask), np.stack(policy), np.stack(value).astype(np.float32))
