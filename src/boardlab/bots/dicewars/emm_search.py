"""The multi-player expectiminimax of ``dw-emm`` over light Dice Wars positions.

Why its own positions rather than :class:`~boardlab.games.dicewars.state.DiceWarsState`: a
search node needs only owners, dice and reserves, and copying three short lists is far cheaper
than cloning a state with its history; the rules applied here are the state's own (an attack's
two outcomes, reserve + largest region at the end of a turn, at most 8 dice per area).

The tree: a *decision* node of player ``p`` takes the best, **for p**, of ending its turn and its
candidate attacks (max^n: each player maximises its own value); an attack is a *chance* node
whose value is the average of its win and loss children weighted by the exact battle odds. Two
thresholds prune it as the study did: an attack whose win probability is below ``lose`` is not
expanded at all, one above ``win`` is taken as won (only the win child). Ending a turn places
the reinforcement (chance: one sample from the agent's stream, or spread evenly) and passes to
the next player alive; after ``turns`` turns, or a turn's ``attacks`` attacks, the position is
a leaf and :func:`leaf_values` scores it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from boardlab.games.dicewars.probabilities import WIN

WIN_ROWS: list[list[float]] = WIN.tolist()
MAX_DICE, RESERVE_CAP = 8, 64


class Budget(Exception):
    """The search ran out of nodes or time (the iteration in progress is dropped)."""


@dataclass(frozen=True)
class Settings:
    lose: float = 0.2
    win: float = 1.0
    root_breadth: int = 5
    breadth: int = 1
    attacks: int = 1
    turns: int = 4
    moves: str = "ste"
    reinforce: str = "even"
    dice_weight: float = 0.4
    hold_weight: float = 1.0
    rival: float = 0.0
    reply: str = "max"
    reply_attacks: int = 0
    order: str = "ste"
    #: leaf=value: what an attack must gain to be made, the bonus of one from 8 dice (the value
    #: model's attack terms), and the last turn's leaf taken before its reinforcement
    attack_cost: float = 0.0
    eight_bonus: float = 0.0
    leaf_before_end: bool = False


class Pos:
    """One search position: owners, dice, reserves, the player to move and its attacks this turn."""

    __slots__ = ("owner", "dice", "reserve", "player", "attacks", "battles", "turns")

    def __init__(self, owner, dice, reserve, player, attacks, battles=0, turns=0):
        self.owner, self.dice, self.reserve = owner, dice, reserve
        self.player, self.attacks, self.battles, self.turns = player, attacks, battles, turns

    def copy(self) -> "Pos":
        return Pos(list(self.owner), list(self.dice), list(self.reserve), self.player, self.attacks,
                   self.battles, self.turns)


def largest_region(owner: list[int], adjacent, player: int) -> list[int]:
    """The areas of ``player``'s largest connected region (the first found among equals)."""
    seen = [False] * len(owner)
    best: list[int] = []
    for a, o in enumerate(owner):
        if o != player or seen[a]:
            continue
        seen[a] = True
        region = [a]
        for x in region:  # grows while it is walked: a breadth-first search
            for b in adjacent[x]:
                if not seen[b] and owner[b] == player:
                    seen[b] = True
                    region.append(b)
        if len(region) > len(best):
            best = region
    return best


def regions_by_player(owner: list[int], adjacent, players: int) -> tuple[list[list[int]], list[int]]:
    """Every player's largest region as :func:`largest_region` finds it, and its number of
    regions, in one walk of the board."""
    seen = [False] * len(owner)
    best: list[list[int]] = [[] for _ in range(players)]
    count = [0] * players
    for a, o in enumerate(owner):
        if seen[a]:
            continue
        seen[a] = True
        region = [a]
        for x in region:
            for b in adjacent[x]:
                if not seen[b] and owner[b] == o:
                    seen[b] = True
                    region.append(b)
        count[o] += 1
        if len(region) > len(best[o]):
            best[o] = region
    return best, count


def largest_regions(owner: list[int], adjacent, players: int) -> list[list[int]]:
    """Every player's largest region as :func:`largest_region` finds it, in one walk of the board."""
    return regions_by_player(owner, adjacent, players)[0]


def hold(owner, dice, adjacent, area: int, area_dice: int, player: int) -> float:
    """The course's estimate of keeping ``area`` until ``player``'s next turn (as dt.ste's):
    every adjacent enemy area with more than one die attacks it once and fails."""
    p = 1.0
    row = area_dice
    for b in adjacent[area]:
        if owner[b] != player and dice[b] > 1:
            p *= 1.0 - WIN_ROWS[dice[b]][row]
    return p


def candidates(pos: Pos, adjacent, player: int, moves: str) -> list[tuple[int, int, float]]:
    """``player``'s attacks worth searching, best first, as (source, target, win probability).

    ``ste``: dt.ste's generator (win-and-hold chance >= 0.2, or from 8 dice), by that chance;
    ``all``: every attack, by win probability. Ties keep the engine's order."""
    owner, dice = pos.owner, pos.dice
    scored = []
    for s in range(len(owner)):
        ds = dice[s]
        if owner[s] != player or ds < 2:
            continue
        for t in adjacent[s]:
            if owner[t] == player:
                continue
            p = WIN_ROWS[ds][dice[t]]
            if moves == "ste":
                key = p * hold(owner, dice, adjacent, t, ds - 1, player)
                if key < 0.2 and ds != MAX_DICE:
                    continue
            else:
                key = p
            scored.append((key, s, t, p))
    scored.sort(key=lambda x: -x[0])  # stable: the engine's order on ties
    return [(s, t, p) for _, s, t, p in scored]


def leaf_values(pos: Pos, adjacent, players: int, who, settings: Settings) -> list[float]:
    """Each player's value in [0, 1] (only for ``who``; the others' are 0, nobody reads them).

    The weighted largest-region score: (1 - dice_weight) x (largest region - hold_weight x its
    areas' expected losses before the player's next turn) / areas + dice_weight x the player's
    share of the dice on the board. The expected losses are the course's hold estimate, so a
    region left with single dice on its border is worth less than its size."""
    owner, dice = pos.owner, pos.dice
    n = len(owner)
    total = sum(dice)
    out = [0.0] * players
    dw, hw = settings.dice_weight, settings.hold_weight
    regions = largest_regions(owner, adjacent, players)
    have = [0] * players
    for d, o in zip(dice, owner):
        have[o] += d
    for p in who:
        region = regions[p]
        if not region:
            continue
        lost = 0.0
        if hw:
            for a in region:
                lost += 1.0 - hold(owner, dice, adjacent, a, dice[a], p)
        mine = have[p]
        out[p] = (1.0 - dw) * (len(region) - hw * lost) / n + dw * mine / total
    if settings.rival:
        # less the strongest other player's score: a max^n player is indifferent to whom it
        # weakens, this makes the leader the one worth attacking
        own = list(out)
        for p in who:
            out[p] -= settings.rival * max(own[q] for q in range(players) if q != p)
    return out


class Recorder:
    """The nodes of one search iteration, for the tree viewer: parent, move label, player to move,
    value (for the player who moved into the node) and the position."""

    def __init__(self) -> None:
        self.parent: list[int] = [-1]
        self.move: list[str] = [""]
        self.player: list[int] = [0]
        self.value: list[float] = [0.0]
        self.pos: list[tuple] = [()]

    def add(self, parent: int, move: str, player: int, pos: Pos, stage: str) -> int:
        self.parent.append(parent)
        self.move.append(move)
        self.player.append(player)
        self.value.append(0.0)
        self.pos.append((pos.owner, pos.dice, pos.reserve, pos.player, pos.attacks, pos.battles, pos.turns, stage))
        return len(self.parent) - 1


class Search:
    """One decision's search: iterative deepening over the attacks per turn, within a node and time budget."""

    def __init__(self, adjacent, players: int, settings: Settings, rng: np.random.Generator,
                 max_nodes: int | None, deadline: float | None, leaf: Callable | None = None,
                 stop=None, leaf_in_turn: bool = False) -> None:
        self.adjacent, self.players, self.s, self.rng = adjacent, players, settings, rng
        self.max_nodes, self.deadline, self.stop = max_nodes, deadline, stop
        self.leaf = leaf
        #: a leaf that plays the turn on itself (rollouts) is asked where a player's attacks are used
        #: up, before its turn ends, instead of after the end of that turn
        self.leaf_in_turn = leaf_in_turn
        self.nodes = 0
        self.rec: Recorder | None = None

    # --- rules ----------------------------------------------------------------------------
    def alive_after(self, owner: list[int], player: int) -> int:
        have = set(owner)
        nxt = (player + 1) % self.players
        while nxt not in have:
            nxt = (nxt + 1) % self.players
        return nxt

    def end_turn(self, pos: Pos) -> Pos:
        """The position after ``pos.player`` ends its turn: reinforcement placed, next player to move."""
        out = pos.copy()
        p = out.player
        owner, dice = out.owner, out.dice
        amount = min(out.reserve[p] + len(largest_region(owner, self.adjacent, p)), RESERVE_CAP)
        room = [a for a, o in enumerate(owner) if o == p and dice[a] < MAX_DICE]
        if self.s.reinforce == "sample":
            while amount > 0 and room:
                i = int(self.rng.integers(len(room)))
                a = room[i]
                dice[a] += 1
                amount -= 1
                if dice[a] >= MAX_DICE:
                    room[i] = room[-1]
                    room.pop()
        elif room and amount > 0:
            # even: one die at a time to the emptiest area (lowest number on ties), the mean placement
            # rounded; in closed form (water filling): every area is raised to the level the dice
            # reach, and what is left over goes one each to the lowest-numbered areas at that level
            level = min(dice[a] for a in room)
            below = sum(1 for a in room if dice[a] <= level)
            while level < MAX_DICE and amount >= below:
                amount -= below
                level += 1
                below += sum(1 for a in room if dice[a] == level)
            for a in room:
                if dice[a] < level:
                    dice[a] = level
            if level < MAX_DICE:
                for a in room:
                    if amount == 0:
                        break
                    if dice[a] == level:
                        dice[a] += 1
                        amount -= 1
        out.reserve[p] = amount
        out.player = self.alive_after(owner, p)
        out.attacks = 0
        out.turns += 1
        return out

    # --- search ---------------------------------------------------------------------------
    def tick(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise Budget
        if self.nodes & 31 == 0 and ((self.deadline is not None and time.perf_counter() >= self.deadline)
                                     or (self.stop is not None and self.stop.is_set())):
            raise Budget

    def values(self, pos: Pos) -> list[float]:
        if self.leaf is not None:
            return self.leaf(pos)
        return leaf_values(pos, self.adjacent, self.players, self.who, self.s)

    def root(self, pos: Pos, attacks: int, record: bool) -> tuple[tuple[int, int] | None, list[dict]]:
        """Search ``pos`` with at most ``attacks`` attacks per turn; the best move for the player to
        move (None: end the turn) and every root option's value for it."""
        self.attack_limit = attacks
        self.rec = Recorder() if record else None
        seq, p = [], pos.player
        have = set(pos.owner)
        for _ in range(self.s.turns):
            seq.append(p)
            nxt = (p + 1) % self.players
            while nxt not in have:
                nxt = (nxt + 1) % self.players
            p = nxt
        self.who = range(self.players) if self.s.rival else sorted(set(seq))
        self.me = pos.player
        self.reply_limit = self.s.reply_attacks or attacks
        if self.rec is not None:
            self.rec.player[0] = pos.player
            self.rec.pos[0] = (pos.owner, pos.dice, pos.reserve, pos.player, pos.attacks, pos.battles, pos.turns, "play")
        options: list[dict] = []
        best = self.decide(pos, 0, 0, options)
        return best, options

    def decide(self, pos: Pos, turn: int, node: int, options: list[dict] | None = None):
        """A decision node: returns the values (options given: the root, returns the move instead)."""
        self.tick()
        me = pos.player
        rec = self.rec
        root = options is not None
        if self.leaf_in_turn and not root and pos.attacks >= self.attack_limit and turn + 1 >= self.s.turns:
            return self.values(pos)
        # ending the turn
        after = self.end_turn(pos)
        child = rec.add(node, "end", after.player, after, "play") if rec is not None else -1
        if turn + 1 < self.s.turns and len(set(after.owner)) > 1:
            end_values = self.decide(after, turn + 1, child)
        else:
            self.tick()
            # leaf_before_end: the board as the turn leaves it, so that it compares with the boards
            # after an attack alike (the reinforcement's random placement is no choice of the player's)
            end_values = self.values(pos if self.s.leaf_before_end else after)
        if rec is not None:
            rec.value[child] = end_values[me]
        best_values, best_move = end_values, None
        if root:
            options.append({"move": None, "value": end_values[me]})
        if me != self.me and self.s.reply == "ste":
            return self.ste_reply(pos, turn, node, end_values)
        if pos.attacks < self.attack_limit:
            width = self.s.root_breadth if root else self.s.breadth
            taken = 0
            moves = candidates(pos, self.adjacent, me, self.s.moves)
            if self.s.order == "gain" and me == self.me:
                moves = self.by_gain(pos, moves)
            for s, t, p in moves:
                if taken >= width:
                    break
                if p < self.s.lose:
                    continue
                taken += 1
                values = self.attack(pos, s, t, p, turn, node)
                if root:
                    options.append({"move": (s, t), "value": values[me], "win_probability": p})
                if values[me] > best_values[me]:
                    best_values, best_move = values, (s, t)
        if root:
            return best_move
        return best_values

    def ste_reply(self, pos: Pos, turn: int, node: int, end_values: list[float]) -> list[float]:
        """Another player's decision played as dt.ste would: its best candidate while it has one
        (up to ``reply_attacks`` a turn), else the end of its turn; no choice by the leaf's values."""
        if pos.attacks < self.reply_limit:
            moves = candidates(pos, self.adjacent, pos.player, "ste")
            if moves:
                s, t, p = moves[0]
                return self.attack(pos, s, t, p, turn, node)
        return end_values

    def by_gain(self, pos: Pos, moves: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
        """The agent's own candidates by what one attack is worth to it at once: the average of the
        leaf's value after its win and after its loss (a region joined counts; dt.ste's order
        does not see it). Ties keep dt.ste's order."""
        me = pos.player
        scored = []
        for i, (s, t, p) in enumerate(moves):
            if p < self.s.lose:
                continue
            won = pos.copy()
            won.owner[t] = me
            won.dice[t] = pos.dice[s] - 1
            won.dice[s] = 1
            lost = pos.copy()
            lost.dice[s] = 1
            value = p * self.values(won)[me] + (1.0 - p) * self.values(lost)[me] - self.cost(pos, s)
            scored.append((-value, i, (s, t, p)))
        scored.sort()
        return [m for _, _, m in scored]

    def cost(self, pos: Pos, s: int) -> float:
        """What the attack from ``s`` costs its player (leaf=value's attack terms; 0 otherwise)."""
        return self.s.attack_cost - (self.s.eight_bonus if pos.dice[s] == MAX_DICE else 0.0)

    def attack(self, pos: Pos, s: int, t: int, p: float, turn: int, node: int) -> list[float]:
        """The chance node of an attack: the exact average of its outcomes (or the win alone above ``win``)."""
        self.tick()
        me = pos.player
        rec = self.rec
        chance = rec.add(node, f"{s + 1}>{t + 1}", -1, pos, f"battle:{s + 1}>{t + 1}") if rec is not None else -1
        won = pos.copy()
        won.owner[t] = me
        won.dice[t] = pos.dice[s] - 1
        won.dice[s] = 1
        won.attacks += 1
        won.battles += 1
        child = rec.add(chance, "win", me, won, "play") if rec is not None else -1
        if all(o == me for o in won.owner):
            self.tick()
            # a leaf may value a won game above 1 (rollouts: above every board whose games are all won)
            won_value = getattr(self.leaf, "won_value", 1.0)
            win_values = [won_value if q == me else 0.0 for q in range(self.players)]
            if rec is not None:
                rec.player[child] = -4  # TERMINAL
        else:
            win_values = self.decide(won, turn, child)
        if rec is not None:
            rec.value[child] = win_values[me]
        if p >= self.s.win:
            values = win_values
        else:
            lost = pos.copy()
            lost.dice[s] = 1
            lost.attacks += 1
            lost.battles += 1
            child = rec.add(chance, "loss", me, lost, "play") if rec is not None else -1
            loss_values = self.decide(lost, turn, child)
            if rec is not None:
                rec.value[child] = loss_values[me]
            values = [p * w + (1.0 - p) * v for w, v in zip(win_values, loss_values)]
        if self.s.attack_cost or self.s.eight_bonus:
            values = list(values)
            values[me] -= self.cost(pos, s)
        if rec is not None:
            rec.value[chance] = values[me]
        return values
