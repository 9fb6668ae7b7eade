"""``dw-emm``: multi-player expectiminimax for Dice Wars, as the SUI study built it (the Dice Wars study, docs/references.md).

Each decision searches the player's own turn (and, with ``turns`` > 1, the following players'
turns) over candidate attacks: every attack (``moves=all``, the default), the agent's own in the
order of what one attack gains it (``order=gain``), or dt.ste's generator and order (``moves=ste``,
``order=ste``, the study's); see :mod:`.emm_search` for the tree. The leaves are valued by the
trained board value (``leaf=value``, :mod:`.value`, the default), the study's weighted largest
region (``leaf=score``), the win-probability network (``leaf=net``) or compiled playouts
(``leaf=rollout``). Options are the study's: the loss-rate threshold ``lose`` (attacks less
likely to win are not expanded), the win-rate threshold ``win`` (attacks more likely are taken as
won), the breadth at the root ``root`` and below ``breadth``, attacks per turn searched
``attacks`` and player turns searched ``turns``.

Budget: iterative deepening over the attacks per turn (1, 2, ... ``attacks``); an iteration
that would pass ``max_nodes`` nodes or the time is dropped and the last complete one decides (the
first always completes unless the time runs out, and then the agent plays as dt.ste). With
``clock=true`` the agent keeps the course's Fischer clock for itself (10 s, + 0.25 s after
every decision, each attack being one): it spends at most a tenth of what it has above 3 s
plus the increment, narrows the root to 2 attacks below 5 s and plays as dt.ste below 3 s, as
the study's agent did. A decision that overran the clock would be the engine's forced end of
turn; the agent counts them (``statistics()['timeouts']``) so that a tournament shows none
happened.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from boardlab.agents.search_tree import SearchTreeHandle
from boardlab.bots.dicewars import emm_net, emm_rollout, value
from boardlab.bots.dicewars.common import DiceWarsBot, best, possible_attacks
from boardlab.bots.dicewars.emm_search import Budget, Pos, Search, Settings, leaf_values
from boardlab.bots.dicewars.opponents import OpponentModel
from boardlab.bots.dicewars.ste import hold_after_attack
from boardlab.core.errors import BoardlabError
from boardlab.core.params import Option, between, one_of, positive
from boardlab.core.search import SearchSnapshot
from boardlab.games.dicewars.state import PLAY

#: the course's Fischer clock (2020): start, increment per decision; the study's low-time marks
CLOCK_START, CLOCK_INCREMENT, CLOCK_STE, CLOCK_NARROW = 10.0, 0.25, 3.0, 5.0



def _at_least(low: int):
    return lambda v: None if v >= low else f"must be at least {low}"


def ste_move(state, player: int) -> tuple[int, int] | None:
    """dt.ste's choice (what the agent plays when its clock is low)."""
    scored = []
    for s, t in possible_attacks(state, player):
        h = hold_after_attack(state, s, t, player)
        if h >= 0.2 or state.dice[s] == 8:
            scored.append((h, (s, t)))
    return best(scored)


class DwEmm(DiceWarsBot):
    name = "dw-emm"
    summary = "Dice Wars: multi-player expectiminimax over every attack, a trained board value at the leaves, the study's thresholds and clock"
    searches = True
    # rollouts= and rollout_policy= came with leaf=rollout, so a record from before them played without either
    options_added_since = {"rollouts": 32, "rollout_policy": "ste", "value": None}
    options = {
        "lose": Option("lose", float, 0.2, "loss-rate threshold: attacks with a lower win probability are not searched",
                       between(0.0, 1.0)),
        "win": Option("win", float, 1.0, "win-rate threshold: attacks with a higher win probability count as won "
                      "(1: always average both outcomes)", between(0.0, 1.0)),
        "root": Option("root", int, 8, "candidate attacks searched at the root (besides ending the turn)", _at_least(1)),
        "breadth": Option("breadth", int, 1, "candidate attacks searched at every other decision", _at_least(1)),
        "attacks": Option("attacks", int, 1, "attacks per turn searched (iterative deepening up to it)", between(1, 16)),
        "turns": Option("turns", int, 4, "player turns searched, the agent's own first (1: its own turn, "
                        "then the leaf after its reinforcement; 4: one round of a 4-player game)", between(1, 16)),
        "moves": Option("moves", str, "all", "candidate attacks: ste (dt.ste's generator) or all", one_of("ste", "all")),
        "order": Option("order", str, "gain", "the agent's own candidates in the tree: ste (dt.ste's order) or gain "
                        "(by the leaf's value after one attack, its two outcomes averaged)", one_of("ste", "gain")),
        "reply": Option("reply", str, "max", "the other players in the tree: max (each takes what its own leaf value "
                        "prefers) or ste (each plays as dt.ste)", one_of("max", "ste")),
        "reply_attacks": Option("reply_attacks", int, 0, "attacks per turn of the other players in the tree (0: as "
                                "attacks)", between(0, 16)),
        "reinforce": Option("reinforce", str, "even", "end-of-turn reinforcement in the tree: even (spread one die "
                            "at a time to the emptiest area) or sample (one draw from the agent's stream)",
                            one_of("even", "sample")),
        "dice_weight": Option("dice_weight", float, 0.4, "leaf: weight of the dice share beside the largest region",
                              between(0.0, 1.0)),
        "hold_weight": Option("hold_weight", float, 1.0, "leaf: weight of the region's expected losses before the "
                              "next turn (dt.ste's hold estimate)", between(0.0, 10.0)),
        "rival": Option("rival", float, 0.0, "leaf: weight of the strongest other player's score, subtracted from "
                        "each player's own", between(0.0, 1.0)),
        "max_nodes": Option("max_nodes", int, 3000, "node budget per decision (the first iteration always completes)",
                            positive),
        "time": Option("time", float, None, "seconds per decision (none: the node budget alone)", positive),
        "clock": Option("clock", bool, False, "keep the course's Fischer clock (10 s + 0.25 s a decision) and "
                        "play as dt.ste when it is low"),
        # the leaf hook: the network's evaluation lives in emm_net, so that torch loads only for leaf=net
        "leaf": Option("leaf", str, "value", "leaf value: score (the weighted largest region), value (the "
                       "trained board value, its attack cost included), net (the win-probability network's chance "
                       "for each player) or rollout (how often each player wins the game played on by compiled "
                       "dt.ste bots, the same dice for every leaf)",
                       one_of("score", "value", "net", "rollout")),
        "value": Option("value", str, None, "weights file of leaf=value (default: the committed dicewars-value.json)"),
        "rollouts": Option("rollouts", int, 32, "games played on from each leaf of leaf=rollout", between(1, 4096)),
        "rollout_policy": Option("rollout_policy", str, "ste", "the bots of leaf=rollout's games: ste, stei, sdc or "
                                 "wpm in every seat, or model (each other seat's bot as told from its moves so far, "
                                 "dt.ste where none is known; the agent's own seat dt.ste)",
                                 one_of(*emm_rollout.ROLLOUT_POLICIES)),
        "net": Option("net", str, None, "model file of leaf=net (default: the committed dicewars-winprob.pt)"),
        "tree": Option("tree", bool, True, "keep the last search's tree for the viewer"),
        "seed": Option("seed", int, None, "random seed (mixed with the game's; sampled reinforcements)"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        c = self.config
        self.settings = Settings(lose=c["lose"], win=c["win"], root_breadth=c["root"], breadth=c["breadth"],
                                 attacks=c["attacks"], turns=c["turns"], moves=c["moves"], reinforce=c["reinforce"],
                                 dice_weight=c["dice_weight"], hold_weight=c["hold_weight"], rival=c["rival"], reply=c["reply"],
                                 reply_attacks=c["reply_attacks"], order=c["order"])
        self._tree: SearchTreeHandle | None = None
        self._opponents: OpponentModel | None = None
        self._stats = self._new_stats()
        if c["net"] is not None and c["leaf"] != "net":
            raise BoardlabError("dw-emm: net=PATH is the model of leaf=net; give leaf=net too")
        if c["value"] is not None and c["leaf"] != "value":
            raise BoardlabError("dw-emm: value=PATH is the weights file of leaf=value; give leaf=value too")
        self._value = value.load_model(c["value"]) if c["leaf"] == "value" else None
        if c["leaf"] != "rollout" and (c["rollouts"] != self.options["rollouts"].default
                                       or c["rollout_policy"] != self.options["rollout_policy"].default):
            raise BoardlabError("dw-emm: rollouts= and rollout_policy= set leaf=rollout's games; give leaf=rollout too")
        self._net = emm_net.load_model(c["net"]) if c["leaf"] == "net" else None

    def model_files(self, game) -> dict[str, Path]:
        if self.config["leaf"] == "value":
            return {"value": Path(self.config["value"]) if self.config["value"] else value.DEFAULT_MODEL}
        if self.config["leaf"] != "net":
            return {}
        return {"net": Path(self.config["net"]) if self.config["net"] else emm_net.DEFAULT_MODEL}

    @staticmethod
    def _new_stats() -> dict[str, Any]:
        return {"decisions": 0, "searched": 0, "as_ste": 0, "nodes": 0, "seconds": 0.0, "max_seconds": 0.0,
                "max_nodes": 0, "clock_min": None, "timeouts": 0}

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        self.clock = CLOCK_START
        self._stats = self._new_stats()
        self._opponents = None  # rollout_policy=model: who plays the other seats, game by game

    def statistics(self) -> dict[str, Any]:
        return dict(self._stats)

    def last_tree(self) -> SearchTreeHandle | None:
        return self._tree

    def step(self, state) -> int:
        if state.phase != PLAY:
            raise BoardlabError("dw-emm: there is no move to choose here (a chance node or the game is over)")
        if self.game is None or state.game is not self.game:
            self.reset(state.game, state.current_player())
        self.player = state.current_player()  # the seat to move (a person may hand it any position)
        start = time.perf_counter()
        move = self.decide(state, start)
        spent = time.perf_counter() - start
        st = self._stats
        st["decisions"] += 1
        st["seconds"] += spent
        st["max_seconds"] = max(st["max_seconds"], spent)
        if self.config["clock"]:
            self.clock -= spent
            if self.clock < 0:
                st["timeouts"] += 1
                move = None  # the engine would have ended the turn
            st["clock_min"] = self.clock if st["clock_min"] is None else min(st["clock_min"], self.clock)
            self.clock += CLOCK_INCREMENT
        self.last_search["step_seconds"] = spent
        return 0 if move is None else state.game.attack_action(*move)

    def decide(self, state, start: float | None = None):
        start = time.perf_counter() if start is None else start
        c = self.config
        settings = self.settings
        deadline = None if c["time"] is None else start + c["time"]
        if c["clock"]:
            if self.clock < CLOCK_STE:
                return self._as_ste(state, "clock low")
            budget = CLOCK_INCREMENT + (self.clock - CLOCK_STE) / 10.0
            deadline = start + budget if deadline is None else min(deadline, start + budget)
            if self.clock < CLOCK_NARROW:
                settings = Settings(**{**settings.__dict__, "root_breadth": min(2, settings.root_breadth)})
        if not possible_attacks(state, self.player):
            self.last_search = {"engine": "dw-emm", "nodes": 0, "seconds": 0.0, "depth": 0, "move": "end",
                                "reason": "no attack"}
            return None
        root = Pos(list(state.owner), list(state.dice), list(state.reserve), self.player, 0, state.battles,
                   state.turns)
        players = state.game.num_players()
        search = Search(state.adjacent, players, settings, self.rng, None, deadline, None, stop=self.stop,
                        leaf_in_turn=c["leaf"] == "rollout")
        if c["leaf"] == "rollout":
            every = range(players)

            def tie_break(pos):
                # a leaf inside a turn is scored as that turn's end would leave it, like the end-turn leaf,
                # so that the reinforcement does not tip every tie towards ending the turn
                after = search.end_turn(pos) if pos.attacks else pos
                return leaf_values(after, state.adjacent, players, every, settings)

            if c["rollout_policy"] == "model":
                if self._opponents is None or self._opponents.game is not state.game or self._opponents.me != self.player:
                    self._opponents = OpponentModel(state.game, self.player)
                self._opponents.update(state)
                policies = self._opponents.policies()
            else:
                policies = [emm_rollout.POLICIES[c["rollout_policy"]]] * players
            leaf = emm_rollout.RolloutLeaf(state.adjacent, players, c["rollouts"], policies,
                                           int(self.rng.integers(1, 2**62)), tie_break)
        elif self._value is not None:
            weights = value.weights_for(self._value, players)
            search.s = settings = Settings(**{**settings.__dict__, "attack_cost": float(weights[value.ATTACK_COST]),
                                              "eight_bonus": float(weights[value.EIGHT_BONUS]), "leaf_before_end": True})
            leaf = value.ValueLeaf(state.adjacent, players, weights)
        else:
            leaf = None if self._net is None else emm_net.NetLeaf(self._net, state.adjacent, players)
        search.leaf = leaf
        chosen, options, depth, recorder = None, [], 0, None
        for attacks in range(1, settings.attacks + 1):
            # the first iteration always completes (within the time); the node budget counts them all
            search.max_nodes = None if attacks == 1 else c["max_nodes"]
            try:
                if not isinstance(leaf, emm_net.NetLeaf):
                    move, opts = search.root(root, attacks, c["tree"])
                else:
                    move, opts = leaf.root(search, root, attacks, c["tree"])
            except Budget:
                break
            chosen, options, depth, recorder = move, opts, attacks, search.rec
        if depth == 0:
            return self._as_ste(state, "no time for one iteration")
        seconds = time.perf_counter() - start
        st = self._stats
        st["searched"] += 1
        st["nodes"] += search.nodes
        st["max_nodes"] = max(st["max_nodes"], search.nodes)
        label = "end" if chosen is None else f"{chosen[0] + 1}>{chosen[1] + 1}"
        self.last_search = {
            "engine": "dw-emm", "nodes": search.nodes, "seconds": seconds, "depth": depth,
            "nodes_per_second": search.nodes / seconds if seconds > 0 else None,
            "children": [{"move": "end" if o["move"] is None else f"{o['move'][0] + 1}>{o['move'][1] + 1}",
                          "value": o["value"], **({"win_probability": o["win_probability"]}
                                                  if "win_probability" in o else {})} for o in options],
            "move": label,
        }
        if isinstance(leaf, emm_net.NetLeaf):
            self.last_search["net_leaves"] = leaf.evaluated  # boards the network scored, both iterations
        elif isinstance(leaf, emm_rollout.RolloutLeaf):
            self.last_search["rollout_leaves"] = leaf.evaluated
        if c["tree"] and recorder is not None:
            meta = {"game": state.game.spec(), "agent": self.spec, "move_number": state.move_number(),
                    "player": self.player, "engine": "dw-emm", "nodes": search.nodes, "depth": depth,
                    "seconds": seconds, "chosen": label}
            self._tree = SearchTreeHandle(snapshot(state, recorder), meta)
        return chosen

    def _as_ste(self, state, reason: str):
        self._stats["as_ste"] += 1
        move = ste_move(state, self.player)
        self.last_search = {"engine": "dw-ste", "nodes": 0, "seconds": 0.0, "depth": 0, "reason": reason,
                            "move": "end" if move is None else f"{move[0] + 1}>{move[1] + 1}"}
        return move


class _Notations:
    """The recorded positions' notations, written only when the viewer asks for one."""

    def __init__(self, state, recorder) -> None:
        self.map_seed, self.quiet, self.pos = state.map.seed, state.quiet, recorder.pos

    def __len__(self) -> int:
        return len(self.pos)

    def __getitem__(self, i: int) -> str:
        owner, dice, reserve, player, attacks, battles, turns, stage = self.pos[i]
        return (f"dw m={self.map_seed} o={''.join(map(str, owner))} d={''.join(map(str, dice))} "
                f"r={','.join(map(str, reserve))} q=0 b={battles} a={attacks} t={turns} p={player} s={stage}")


def snapshot(state, recorder) -> SearchSnapshot:
    """The last iteration's tree in the shape the viewer and the tree files take."""
    import numpy as np

    n = len(recorder.parent)
    return SearchSnapshot(
        root=state.clone(),
        parent=np.asarray(recorder.parent, dtype=np.int64),
        actions=np.zeros(n, dtype=np.int64),
        visits=np.ones(n, dtype=np.int64),
        wins=np.zeros(n, dtype=np.int64),
        mean=np.asarray(recorder.value, dtype=np.float64),
        player=np.asarray(recorder.player, dtype=np.int8),
        created=np.zeros(n, dtype=np.int64),
        moves=list(recorder.move),
        states=_Notations(state, recorder),
        root_notation=state.notation(),
        engine="dw-emm",
    )
