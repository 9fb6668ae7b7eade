"""Dice Wars: the rules (the FIT VUT SUI course engine of 2020 by default).

Game spec: ``dicewars:players=4`` (2..8 players). Presets:

* ``preset=sui2020`` (default): the course's tournament setting. 29 areas
  grown to 12-18 hexes on a 32 x 28 hex grid (:mod:`.mapgen`), ownership dealt
  round-robin at random, **flat** 3 dice on every area.
* ``preset=web``: close to the original web game: about 32 areas
  (``areas=32``), the engine's **'orig'** dice (``3*areas - randint(0,5)``
  dice in all, shared as evenly as rounding allows, one per area then one at a
  time on random areas below 8), up to 8 players (``dicewars:preset=web,players=8``).

``areas=`` and ``dice=flat|orig`` override a preset's values. ``features=odds`` adds three
inputs per seat to the observation tensor (below) and changes nothing else.

Rules
-----
Seat 0 moves first, then 1, 2, ... skipping eliminated players. On its turn a
player attacks any number of times, then ends its turn. An attack goes from an
own area with at least 2 dice into an adjacent enemy area; each side throws one
d6 per die and the attacker wins when its sum is strictly greater (ties go to
the defender). A winner moves in with all dice but one (the target gets
``source - 1`` dice, the source keeps 1); a loser keeps 1 die on its source and
the defender loses nothing. At the end of a turn the player gets
``reserve + largest connected region`` dice, at most 64, placed one at a time
on a uniformly random own area with fewer than 8 dice; what cannot be placed
(every area full) is kept as its reserve. The game is won by owning every
area. It is cancelled (everybody loses) after 8 rounds without a battle
(``consecutive end turns // players alive == 8``) or after 10,000 battles.

Actions (``num_distinct_actions() = 1 + areas**2``)
-------------------------------------------------
* ``0``: end the turn (written ``end``);
* ``1 + src * areas + dst``: attack from area ``src`` into area ``dst``
  (areas 0-based inside, written 1-based as people and the course engine
  name them: ``3>7``).

Chance nodes (``chance="explicit"``)
------------------------------------
* after an attack: outcome ``1`` (attacker wins, ``win``) or ``0`` (the
  defender holds, ``loss``) with the exact probabilities of
  :mod:`.probabilities` (an impossible outcome is left out: 7 dice never lose
  to 1);
* at the end of a turn, one chance node per reinforcement die: the outcome is
  the area that gets it (written ``+12``), uniform over the player's areas
  below 8 dice.

Why placement is explicit, die by die: that *is* the rule, so every chance
node's probabilities are exact and the conformance suite can check them; each
node has at most ``areas`` equally likely outcomes, cheap to sample, and
search samples chance nodes rather than enumerating them. Folding a whole
reinforcement into one outcome would need either all placements (far too many)
or a coarse stand-in distribution (dishonest). The compiled kernel
(:mod:`.kernel`) plays the same rules without any Python per die.

Dice shown
----------
The dice of each roll are not part of the rules' state: a battle's outcome is
the chance node. For people, :meth:`DiceWarsState.roll_faces` draws the faces
conditioned on that outcome from a stream derived from the game's seed and the
battle's number (:func:`.probabilities.dice_for_outcome`), so they replay with
the record and never change the outcome distribution; the observation shows
the last battle's faces.

Notation
--------
One line (wrapped here), read back by ``state_from_notation``::

    dw m=<map seed> o=<owner digit per area> d=<dice digit per area> r=<reserves> q=<quiet end turns>
       b=<battles> a=<attacks this turn> t=<turns ended> p=<seat> s=<stage>

with ``s=play``, ``s=battle:3>7`` (an attack waiting for its outcome),
``s=place:5`` (5 reinforcement dice still to place), ``s=won``,
``s=stalled`` (8 rounds without a battle) or ``s=battle-limit``. The map
itself is named by its generator seed; the game's parameters (in the spec,
which a tree file's root names) give the rest.

Observation tensor
------------------
:meth:`DiceWarsState.observation_tensor` is a float32 vector of
``areas * (players + 3) + areas * (areas - 1) / 2 + 6 * players + 9`` entries
(sui2020 with 4 players: 642), values in 0..1. The game has perfect
information, so every seat sees everything, but seen from the observing seat:
seats are rotated so that the observer is seat 0 of the tensor, the next seat
in turn order 1, and so on. In order:

* per area (``areas`` rows of ``players + 3``): its owner one-hot (rotated),
  its dice / 8, and 1 when it is the source, resp. the target, of the attack
  waiting for its outcome (a battle chance node);
* the map: its adjacency matrix's upper triangle (``a < b``, row by row), since
  every seed has its own map;
* per seat (rotated, 6 each): whose turn it is (also at the chance nodes of
  that seat's battles and placements; all zero at the end), still in the
  game, areas owned / areas, dice / (8 * areas), largest connected region /
  areas, reserve / 64;
* the stage one-hot: ``play``, ``battle``, ``place``, ``won``, ``stalled``,
  ``battle-limit``; then the dice still to place / 64, the quiet end turns as
  a share of the 8 rounds that cancel the game, and battles / 10,000;
* with ``features=odds`` only (``3 * players`` more entries), per seat (rotated, 3
  each): its expected losses before its next turn (over its areas, the chance
  that the adjacent enemy areas of more than one die take it, each attacking
  once: the course's hold estimate) / areas, the same over its largest region
  / areas, and its number of regions / areas. These are what the tuned board
  value of ``dw-emm`` weighs beyond the counts above; they are read off the
  board with no look at the map's identity, so a value trained on the per-seat
  block can judge maps it never saw.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.game import CHANCE, TERMINAL, UNKNOWN_PLAYER, Game, GameType, State
from boardlab.core.params import Option, between, one_of
from boardlab.core.rng import derive_seed
from boardlab.games.dicewars.mapgen import Map, generate, grid_for
from boardlab.games.dicewars.probabilities import WIN, dice_for_outcome

END_TURN = 0
LOSS, WIN_OUTCOME = 0, 1
MAX_DICE = 8
RESERVE_CAP = 64
QUIET_ROUNDS = 8
MAX_BATTLES = 10_000

PLAY, BATTLE, PLACE, OVER = 0, 1, 2, 3
ENDINGS = ("won", "stalled", "battle-limit")
#: the stages the observation tensor tells apart, one-hot
TENSOR_STAGES = ("play", "battle", "place", *ENDINGS)
#: the per-seat inputs that ``features=odds`` adds to the observation tensor
ODDS_PER_SEAT = 3

PRESETS = {
    "sui2020": {"areas": 29, "dice": "flat"},
    "web": {"areas": 32, "dice": "orig"},
}



class DiceWars(Game):
    game_type = GameType(
        short_name="dicewars",
        long_name="Dice Wars",
        min_players=2,
        max_players=8,
        chance="explicit",
        information="perfect",
        utility="general_sum",  # a cancelled game is lost by everybody
        provides_scores=True,  # the largest connected region, the engine's "score"
        player_names=("Purple", "Lime", "Green", "Pink", "Orange", "Cyan", "Yellow", "Red"),
        player_colors=("#b37ffe", "#b3ff01", "#009302", "#ff7ffe", "#ff7f01", "#b3fffe", "#ffff01", "#ff5858"),
        renderer="boardlab.games:dicewars/board.js",
        provides=frozenset({"observation_tensor", "compiled_playouts", "compiled_puct"}),
    )
    parameters = {
        "players": Option("players", int, 4, "number of players", between(2, 8)),
        "preset": Option("preset", str, "sui2020", "sui2020 (course tournaments: 29 areas, flat 3 dice) or web "
                         "(about 32 areas, 'orig' dice)", one_of(*PRESETS)),
        "areas": Option("areas", int, 0, "number of areas (0: the preset's)",
                        lambda v: None if v == 0 or 4 <= v <= 40 else "must be 0 or between 4 and 40"),
        "dice": Option("dice", str, "", "initial dice: flat (3 per area) or orig (the engine's random shares); "
                       "empty: the preset's", one_of("", "flat", "orig")),
        "features": Option("features", str, "counts", "the observation tensor's per-seat inputs: counts (areas, dice, "
                           "largest region, reserve) or odds (also each seat's expected losses, over all its areas and "
                           "over its largest region, and its number of regions)", one_of("counts", "odds")),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        preset = PRESETS[self.params["preset"]]
        self.players: int = self.params["players"]
        self.areas: int = self.params["areas"] or preset["areas"]
        self.dice_rule: str = self.params["dice"] or preset["dice"]
        #: per seat, the observation's entries after the stage block (features=odds; 0 for counts)
        self.odds_per_seat: int = ODDS_PER_SEAT if self.params["features"] == "odds" else 0
        if self.areas < self.players:
            raise SpecError(f"game 'dicewars': {self.areas} areas cannot be dealt to {self.players} players")
        self.width, self.height = grid_for(self.areas)
        self._kernel = None

    # --- description -------------------------------------------------------------
    def num_players(self) -> int:
        return self.players

    def num_distinct_actions(self) -> int:
        return 1 + self.areas * self.areas

    def max_game_length(self) -> int:
        # each battle is 2 actions; between two battles at most 8 rounds of end turns,
        # each followed by at most 64 placements
        between_battles = QUIET_ROUNDS * self.players * (1 + RESERVE_CAP)
        return MAX_BATTLES * 2 + (MAX_BATTLES + 1) * between_battles

    def map_for(self, map_seed: int) -> Map:
        return generate(int(map_seed), self.areas, 12, 18, self.width, self.height)

    def attack_action(self, src: int, dst: int) -> int:
        return 1 + src * self.areas + dst

    def attack_of(self, action: int) -> tuple[int, int]:
        return divmod(action - 1, self.areas)

    # --- states ------------------------------------------------------------------
    def new_initial_state(self, seed: int | None = None) -> "DiceWarsState":
        """The board of ``seed``: its map, ownership and dice each from a stream derived from it."""
        base = 0 if seed is None else int(seed)
        map_seed = derive_seed(base, "map") & 0x7FFFFFFF
        board = self.map_for(map_seed)
        n, players = board.areas, self.players
        rng = np.random.default_rng(derive_seed(base, "owners"))
        owner = [-1] * n
        free = list(range(n))
        p = 0
        while free:
            owner[free.pop(int(rng.integers(len(free))))] = p
            p = (p + 1) % players
        dice = self.initial_dice(owner, np.random.default_rng(derive_seed(base, "dice")))
        state = DiceWarsState(self, seed, board, owner, dice)
        return state

    def initial_dice(self, owner: list[int], rng: np.random.Generator) -> list[int]:
        n = len(owner)
        if self.dice_rule == "flat":
            return [3] * n
        # 'orig': 3n - randint(0, 5) dice in all; each player in turn takes round(left / players left),
        # one per own area, the rest one at a time on random own areas below 8
        dice = [0] * n
        total = 3 * n - int(rng.integers(0, 6))
        for p in range(self.players):
            share = round(total / (self.players - p))
            total -= share
            mine = [a for a in range(n) if owner[a] == p]
            for a in mine:
                dice[a] = 1
            extra = share - len(mine)
            room = [a for a in mine if dice[a] < MAX_DICE]
            while extra > 0 and room:
                a = room[int(rng.integers(len(room)))]
                dice[a] += 1
                extra -= 1
                if dice[a] >= MAX_DICE:
                    room.remove(a)
        return dice

    def state_from_notation(self, text: str) -> "DiceWarsState":
        fields = _fields(text)
        try:
            map_seed = int(fields["m"])
            board = self.map_for(map_seed)
            n = board.areas
            owner = [int(c) for c in fields["o"]]
            dice = [int(c) for c in fields["d"]]
            reserve = [int(v) for v in fields["r"].split(",")]
            quiet, battles, attacks, turns = (int(fields[k]) for k in "qbat")
            player = int(fields["p"])
            stage = fields["s"]
        except (KeyError, ValueError) as exc:
            raise BoardlabError(f"Dice Wars position {text[:80]!r}: {exc} (write it as notation() does: "
                                "dw m=.. o=.. d=.. r=.. q=.. b=.. a=.. t=.. p=.. s=..)") from None
        if len(owner) != n or len(dice) != n or len(reserve) != self.players:
            raise BoardlabError(f"Dice Wars position: {n} areas and {self.players} reserves expected")
        if any(not 0 <= o < self.players for o in owner) or any(not 1 <= d <= MAX_DICE for d in dice):
            raise BoardlabError("Dice Wars position: owners are seats 0..players-1 and dice 1..8")
        if not 0 <= player < self.players or any(not 0 <= r <= RESERVE_CAP for r in reserve):
            raise BoardlabError("Dice Wars position: the seat to move or a reserve is out of range")
        state = DiceWarsState(self, None, board, owner, dice)
        state.reserve = reserve
        state.quiet, state.battles, state.attacks, state.turns, state.player = quiet, battles, attacks, turns, player
        kind, _, arg = stage.partition(":")
        if kind == "play":
            state.phase = PLAY
        elif kind == "battle":
            src, _, dst = arg.partition(">")
            try:
                state.pending = (int(src) - 1, int(dst) - 1)
            except ValueError:
                raise BoardlabError(f"Dice Wars position: battle {arg!r} is not written as 3>7") from None
            state.phase = BATTLE
        elif kind == "place":
            state.phase = PLACE
            state.to_place = int(arg)
        elif kind in ENDINGS:
            state.phase = OVER
            state.end = kind
        else:
            raise BoardlabError(f"Dice Wars position: unknown stage {stage!r}")
        state.start = state.notation()
        return state

    def player_of_notation(self, text: str) -> int:
        fields = _fields(text)
        stage = fields.get("s", "")
        if stage.split(":")[0] in ENDINGS:
            return TERMINAL
        if stage.startswith(("battle", "place")):
            return CHANCE
        try:
            return int(fields["p"])
        except (KeyError, ValueError):
            raise BoardlabError(f"Dice Wars position {text[:80]!r} names no seat to move") from None

    def players_of_notations(self, texts) -> np.ndarray:
        out = np.full(len(texts), UNKNOWN_PLAYER, dtype=np.int8)
        for i, text in enumerate(texts):
            try:
                out[i] = self.player_of_notation(text)
            except BoardlabError:
                pass
        return out

    # --- hooks -------------------------------------------------------------------
    def observation_tensor_shape(self) -> tuple[int]:
        """See the module docstring ("Observation tensor")."""
        a, p = self.areas, self.players
        return (a * (p + 3) + a * (a - 1) // 2 + 6 * p + len(TENSOR_STAGES) + 3 + self.odds_per_seat * p,)

    def default_agent(self) -> str | None:
        # expectiminimax over the trained board value, ~50 ms a decision (docs/dicewars-emm.md)
        return "dw-emm"

    def playout_kernel(self):
        """The compiled (numba) rules and random playouts for MCTS (the bots' compiled games: :mod:`boardlab.bots.dicewars.compiled`)."""
        if self._kernel is None:
            from boardlab.games.dicewars.kernel import DiceWarsKernel

            self._kernel = DiceWarsKernel(self)
        return self._kernel


@lru_cache(maxsize=64)
def upper_adjacency(adjacent: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """The upper triangle (``a < b``, row by row) of a map's adjacency matrix, as float32."""
    n = len(adjacent)
    m = np.zeros((n, n), dtype=np.float32)
    for a, near in enumerate(adjacent):
        m[a, list(near)] = 1.0
    out = m[np.triu_indices(n, 1)]
    out.flags.writeable = False
    return out


def _fields(text: str) -> dict[str, str]:
    parts = text.strip().split()
    if not parts or parts[0] != "dw":
        raise BoardlabError(f"not a Dice Wars position: {text[:80]!r} (it starts with 'dw')")
    out = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if not eq:
            raise BoardlabError(f"Dice Wars position: {part!r} is not key=value")
        out[key] = value
    return out


class DiceWarsState(State):
    __slots__ = ("game", "seed", "history", "map", "adjacent", "owner", "dice", "reserve", "player", "phase",
                 "pending", "to_place", "quiet", "battles", "attacks", "turns", "end", "start",
                 "last_battle", "turn_battles", "placed")

    def __init__(self, game: DiceWars, seed: int | None, board: Map, owner: list[int], dice: list[int]) -> None:
        self.game = game
        self.seed = seed
        self.history: list[int] = []
        self.map = board
        self.adjacent = board.adjacent
        self.owner = list(owner)
        self.dice = list(dice)
        self.reserve = [0] * game.players
        self.player = 0
        self.phase = PLAY
        self.pending: tuple[int, int] | None = None
        self.to_place = 0
        self.quiet = 0  # end turns since the last battle
        self.battles = 0  # battles fought in the game
        self.attacks = 0  # battles of the player to move in this turn
        self.turns = 0  # turns ended in the game
        self.end = ""
        self.start: str | None = None
        #: (battle number, attacker, src, dst, attack dice, defence dice, won) of the last battle
        self.last_battle: tuple | None = None
        #: the battles of the turn in progress (or of the turn that just ended, during its placements)
        self.turn_battles: list[tuple] = []
        #: (player, [areas that got a die, in order]) of the last reinforcement
        self.placed: tuple[int, list[int]] | None = None

    # --- protocol --------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == PLAY:
            return self.player
        if self.phase == OVER:
            return TERMINAL
        return CHANCE

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        if self.phase == PLAY:
            return [END_TURN, *self.attacks_of(self.player)]
        if self.phase == OVER:
            return []
        return [a for a, _ in self.chance_outcomes()]

    def attacks_of(self, player: int) -> list[int]:
        """Every legal attack of ``player`` (action numbers, ascending)."""
        owner, dice, adjacent, n = self.owner, self.dice, self.adjacent, len(self.owner)
        out = []
        for src in range(n):
            if owner[src] == player and dice[src] >= 2:
                base = 1 + src * n
                out.extend(base + dst for dst in adjacent[src] if owner[dst] != player)
        return out

    def attack_probabilities(self) -> dict[int, float]:
        """The exact win probability of every legal attack of the player to move."""
        if self.phase != PLAY:
            return {}
        return {a: self.win_probability(a) for a in self.attacks_of(self.player)}

    def win_probability(self, action: int) -> float:
        src, dst = self.game.attack_of(action)
        return float(WIN[self.dice[src], self.dice[dst]])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == BATTLE:
            src, dst = self.pending  # type: ignore[misc]
            p = float(WIN[self.dice[src], self.dice[dst]])
            return [(o, q) for o, q in ((LOSS, 1.0 - p), (WIN_OUTCOME, p)) if q > 0.0]
        if self.phase == PLACE:
            room = self.room(self.player)
            return [(a, 1.0 / len(room)) for a in room]
        raise BoardlabError("Dice Wars: not a chance node")

    def room(self, player: int) -> list[int]:
        """``player``'s areas with fewer than 8 dice."""
        return [a for a, o in enumerate(self.owner) if o == player and self.dice[a] < MAX_DICE]

    def apply_action(self, action: int) -> None:
        action = int(action)
        if self.phase == PLAY:
            if action == END_TURN:
                self._end_turn()
            elif 1 <= action < self.game.num_distinct_actions():
                src, dst = self.game.attack_of(action)
                if self.owner[src] != self.player or self.dice[src] < 2 or self.owner[dst] == self.player \
                        or dst not in self.adjacent[src]:
                    raise self._illegal(action)
                self.pending = (src, dst)
                self.phase = BATTLE
            else:
                raise self._illegal(action)
        elif self.phase == BATTLE:
            if action not in [a for a, _ in self.chance_outcomes()]:
                raise self._illegal(action)
            self._resolve(action == WIN_OUTCOME)
        elif self.phase == PLACE:
            if not 0 <= action < len(self.owner) or self.owner[action] != self.player or self.dice[action] >= MAX_DICE:
                raise self._illegal(action)
            self._place(action)
        else:
            raise self._illegal(action)
        self.history.append(action)

    def _resolve(self, won: bool) -> None:
        src, dst = self.pending  # type: ignore[misc]
        p = self.player
        atk, dfn = self.dice[src], self.dice[dst]
        self.battles += 1
        self.attacks += 1
        self.quiet = 0
        self.last_battle = (self.battles, p, src, dst, atk, dfn, won)
        self.turn_battles.append(self.last_battle)
        self.pending = None
        self.phase = PLAY
        if won:
            self.owner[dst] = p
            self.dice[dst] = atk - 1
        self.dice[src] = 1
        if won and all(o == p for o in self.owner):
            self.phase, self.end = OVER, "won"
        elif self.battles >= MAX_BATTLES:
            self.phase, self.end = OVER, "battle-limit"

    def _end_turn(self) -> None:
        p = self.player
        self.turns += 1
        self.quiet += 1
        self.attacks = 0
        amount = min(self.reserve[p] + self.largest_region(p), RESERVE_CAP)
        self.reserve[p] = 0
        self.placed = (p, [])
        self.to_place = amount
        if amount > 0 and self.room(p):
            self.phase = PLACE
        else:
            self._next_turn()

    def _place(self, area: int) -> None:
        self.dice[area] += 1
        self.to_place -= 1
        if self.placed is not None:
            self.placed[1].append(area)
        if self.to_place == 0 or not self.room(self.player):
            self._next_turn()

    def _next_turn(self) -> None:
        self.reserve[self.player] = self.to_place  # what found no room (at most 64)
        self.to_place = 0
        alive = self.alive()
        if self.quiet // len(alive) >= QUIET_ROUNDS:
            self.phase, self.end = OVER, "stalled"
            return
        n = self.game.players
        nxt = (self.player + 1) % n
        while nxt not in alive:
            nxt = (nxt + 1) % n
        self.player = nxt
        self.phase = PLAY
        self.turn_battles = []

    def clone(self) -> "DiceWarsState":
        other = DiceWarsState.__new__(DiceWarsState)
        other.game, other.seed, other.history = self.game, self.seed, list(self.history)
        other.map, other.adjacent = self.map, self.adjacent
        other.owner, other.dice, other.reserve = list(self.owner), list(self.dice), list(self.reserve)
        other.player, other.phase, other.pending, other.to_place = self.player, self.phase, self.pending, self.to_place
        other.quiet, other.battles, other.attacks, other.turns = self.quiet, self.battles, self.attacks, self.turns
        other.end, other.start, other.last_battle = self.end, self.start, self.last_battle
        other.turn_battles = list(self.turn_battles)
        other.placed = None if self.placed is None else (self.placed[0], list(self.placed[1]))
        return other

    # --- facts -------------------------------------------------------------------------
    def alive(self) -> list[int]:
        """The seats that still own an area, in seat order."""
        have = set(self.owner)
        return [p for p in range(self.game.players) if p in have]

    def regions(self, player: int) -> list[list[int]]:
        """``player``'s connected regions (lists of areas, each ascending), largest first then by first area."""
        seen = set()
        out = []
        for a in range(len(self.owner)):
            if self.owner[a] != player or a in seen:
                continue
            region = [a]
            seen.add(a)
            todo = [a]
            while todo:
                x = todo.pop()
                for y in self.adjacent[x]:
                    if self.owner[y] == player and y not in seen:
                        seen.add(y)
                        region.append(y)
                        todo.append(y)
            out.append(sorted(region))
        out.sort(key=lambda r: (-len(r), r[0]))
        return out

    def largest_region(self, player: int) -> int:
        """The size of ``player``'s largest connected region (the engine's score); 0 when eliminated."""
        regions = self.regions(player)
        return len(regions[0]) if regions else 0

    def largest_regions(self) -> list[int]:
        """:meth:`largest_region` of every seat, in one pass over the map."""
        return [max(sizes, default=0) for sizes in self.region_labels()[1]]

    def region_labels(self) -> tuple[list[int], list[list[int]]]:
        """Each area's region among its owner's connected regions (numbered from 0 in area order), and
        per seat the sizes of its regions in that order."""
        owner, adjacent = self.owner, self.adjacent
        label = [-1] * len(owner)
        sizes: list[list[int]] = [[] for _ in range(self.game.players)]
        for a, p in enumerate(owner):
            if label[a] >= 0:
                continue
            label[a] = len(sizes[p])
            size, todo = 1, [a]
            while todo:
                for y in adjacent[todo.pop()]:
                    if label[y] < 0 and owner[y] == p:
                        label[y] = len(sizes[p])
                        size += 1
                        todo.append(y)
            sizes[p].append(size)
        return label, sizes

    def _seat_odds(self, label: list[int], sizes: list[list[int]]) -> np.ndarray:
        """The inputs of ``features=odds``, (players, 3) in seat order: each seat's expected losses before
        its next turn (the sum over its areas of the chance that some adjacent enemy area of more than one
        die, each attacking once, takes it), the same over its largest region (the first in area order
        when several are largest) and its number of regions; ``label``, ``sizes``: :meth:`region_labels`."""
        owner, dice, adjacent = self.owner, self.dice, self.adjacent
        largest = [s.index(max(s)) if s else -1 for s in sizes]
        odds = np.zeros((self.game.players, ODDS_PER_SEAT))
        odds[:, 2] = [len(s) for s in sizes]
        for a, p in enumerate(owner):
            keep = 1.0
            for b in adjacent[a]:
                if owner[b] != p and dice[b] > 1:
                    keep *= 1.0 - float(WIN[dice[b], dice[a]])
            odds[p, 0] += 1.0 - keep
            if label[a] == largest[p]:
                odds[p, 1] += 1.0 - keep
        return odds

    def player_dice(self, player: int) -> int:
        return sum(d for d, o in zip(self.dice, self.owner) if o == player)

    def winner(self) -> int | None:
        return self.owner[0] if self.end == "won" else None

    def returns(self) -> list[float]:
        n = self.game.players
        if self.phase != OVER:
            return [0.0] * n
        if self.end == "won":
            w = self.owner[0]
            return [1.0 if p == w else -1.0 for p in range(n)]
        return [-1.0] * n  # cancelled: everybody loses

    def scores(self) -> list[float]:
        return [float(self.largest_region(p)) for p in range(self.game.players)]

    def end_reason(self) -> str | None:
        """How the game ended: ``won``, ``stalled`` (8 rounds without a battle) or ``battle-limit``
        (10,000 battles); None while it goes on. The last two are the engine's cancelled games."""
        return self.end or None

    # --- labels ------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if self.phase == BATTLE:
            return "win" if action == WIN_OUTCOME else "loss"
        if self.phase == PLACE:
            return f"+{action + 1}"
        if action == END_TURN:
            return "end"
        src, dst = self.game.attack_of(action)
        return f"{src + 1}>{dst + 1}"

    def string_to_action(self, text: str) -> int:
        text = text.strip().lower()
        if self.phase == PLAY and ">" in text:
            src, _, dst = text.partition(">")
            try:
                action = self.game.attack_action(int(src) - 1, int(dst) - 1)
            except ValueError:
                action = -1
            if action in self.legal_actions():
                return action
        return super().string_to_action(text)

    def action_info(self, action: int) -> dict[str, Any]:
        if self.phase != PLAY:
            return {}
        if action == END_TURN:
            return {"end_turn": True}
        src, dst = self.game.attack_of(action)
        return {"from": src, "to": dst, "attack_dice": self.dice[src], "defence_dice": self.dice[dst],
                "win_probability": round(self.win_probability(action), 6)}

    def start_position(self) -> str | None:
        return self.start

    def stage(self) -> str:
        if self.phase == PLAY:
            return "play"
        if self.phase == BATTLE:
            src, dst = self.pending  # type: ignore[misc]
            return f"battle:{src + 1}>{dst + 1}"
        if self.phase == PLACE:
            return f"place:{self.to_place}"
        return self.end

    def notation(self) -> str:
        return (f"dw m={self.map.seed} o={''.join(map(str, self.owner))} d={''.join(map(str, self.dice))} "
                f"r={','.join(map(str, self.reserve))} q={self.quiet} b={self.battles} a={self.attacks} "
                f"t={self.turns} p={self.player} s={self.stage()}")

    def observation_tensor(self, player: int) -> np.ndarray:
        """See the module docstring ("Observation tensor"): everything, seen from ``player``'s seat."""
        game = self.game
        n, players = len(self.owner), game.players
        owner = np.asarray(self.owner)
        area = np.zeros((n, players + 3), dtype=np.float32)
        area[np.arange(n), (owner - player) % players] = 1.0
        area[:, players] = np.asarray(self.dice, dtype=np.float32) / MAX_DICE
        if self.phase == BATTLE:
            src, dst = self.pending  # type: ignore[misc]
            area[src, players + 1] = 1.0
            area[dst, players + 2] = 1.0
        order = (np.arange(players) + player) % players  # the tensor's seat k is seat order[k]
        owned = np.bincount(owner, minlength=players)[order]
        seats = np.zeros((players, 6), dtype=np.float32)
        if self.phase != OVER:
            seats[(self.player - player) % players, 0] = 1.0
        seats[:, 1] = owned > 0
        seats[:, 2] = owned / n
        seats[:, 3] = np.bincount(owner, weights=self.dice, minlength=players)[order] / (MAX_DICE * n)
        label, sizes = self.region_labels()
        seats[:, 4] = np.asarray([max(s, default=0) for s in sizes], dtype=np.float32)[order] / n
        seats[:, 5] = np.asarray(self.reserve, dtype=np.float32)[order] / RESERVE_CAP
        rest = np.zeros(len(TENSOR_STAGES) + 3, dtype=np.float32)
        rest[TENSOR_STAGES.index(self.end if self.phase == OVER else TENSOR_STAGES[self.phase])] = 1.0
        rest[-3] = self.to_place / RESERVE_CAP
        rest[-2] = min(1.0, self.quiet / (QUIET_ROUNDS * max(1, int(np.count_nonzero(owned)))))
        rest[-1] = min(1.0, self.battles / MAX_BATTLES)
        parts = [area.ravel(), upper_adjacency(self.adjacent), seats.ravel(), rest]
        if game.odds_per_seat:
            parts.append((self._seat_odds(label, sizes)[order] / n).astype(np.float32).ravel())
        return np.concatenate(parts)

    def roll_faces(self, battle: tuple) -> tuple[list[int], list[int]]:
        """The dice shown for a battle: drawn conditioned on its outcome from the stream of
        (game seed, battle number), so they replay with the record."""
        number, _, _, _, atk, dfn, won = battle
        rng = np.random.default_rng(derive_seed(0 if self.seed is None else int(self.seed), "roll", number))
        return dice_for_outcome(atk, dfn, won, rng)

    def log_text(self, action: int) -> tuple[str, bool]:
        """Attacks with their rolls on one line (``3>7: 5 v 3, won``); a turn's end with the areas
        its new dice went to (``end turn +16 +3``)."""
        if self.phase == BATTLE:
            after = self.clone()
            after.apply_action(action)
            faces_a, faces_d = after.roll_faces(after.last_battle)
            return f": {sum(faces_a)} v {sum(faces_d)}, {'won' if action == WIN_OUTCOME else 'lost'}", True
        if self.phase == PLACE:
            return f" +{action + 1}", True
        if action == END_TURN:
            return "end turn", False
        return self.action_to_string(action), False

    def _battle_view(self, battle: tuple) -> dict[str, Any]:
        number, player, src, dst, atk, dfn, won = battle
        faces_a, faces_d = self.roll_faces(battle)
        return {"number": number, "player": player, "from": src, "to": dst, "won": won,
                "attack": faces_a, "defence": faces_d, "attack_sum": sum(faces_a), "defence_sum": sum(faces_d)}

    def observation(self, player: int | None = None) -> dict[str, Any]:
        n = self.game.players
        board = {
            "map": self.map.to_dict(),
            "owner": list(self.owner),
            "dice": list(self.dice),
            "reserve": list(self.reserve),
            "player": self.player,
            "stage": self.stage(),
            "pending": list(self.pending) if self.pending else None,
            "to_place": self.to_place,
            "largest_region": [self.largest_region(p) for p in range(n)],
            "areas_owned": [self.owner.count(p) for p in range(n)],
            "total_dice": [self.player_dice(p) for p in range(n)],
            "alive": self.alive(),
            "battles": self.battles,
            "quiet": self.quiet,
            "turns": self.turns,
            "attacks_this_turn": self.attacks,
            "last_battle": self._battle_view(self.last_battle) if self.last_battle else None,
            "turn_battles": [self._battle_view(b) for b in self.turn_battles[-16:]],
            "placed": {"player": self.placed[0], "areas": list(self.placed[1])} if self.placed else None,
            "end": self.end or None,
        }
        return {"to_move": self.current_player(), "text": str(self), "board": board, "result": self.result()}

    def end_description(self) -> str | None:
        if self.end == "won":
            return f"{self.game.player_name(self.owner[0])} conquered every area"
        return self.result() or None

    def result(self) -> str:
        if self.end == "won":
            return f"{self.game.player_name(self.owner[0])} wins"
        if self.end == "stalled":
            return "cancelled: 8 rounds without a battle"
        if self.end == "battle-limit":
            return "cancelled: 10,000 battles"
        return ""

    def __str__(self) -> str:
        n = self.game.players
        lines = []
        for p in range(n):
            mine = [a for a, o in enumerate(self.owner) if o == p]
            if not mine:
                lines.append(f"{self.game.player_name(p)}: out")
                continue
            areas = " ".join(f"{a + 1}:{self.dice[a]}" for a in mine)
            lines.append(f"{self.game.player_name(p)}: {len(mine)} areas, {self.player_dice(p)} dice, "
                         f"region {self.largest_region(p)}, reserve {self.reserve[p]} | {areas}")
        if self.phase == OVER:
            lines.append(self.result())
        elif self.phase == BATTLE:
            src, dst = self.pending  # type: ignore[misc]
            lines.append(f"{self.game.player_name(self.player)} attacks {src + 1} ({self.dice[src]}) -> {dst + 1} ({self.dice[dst]})")
        elif self.phase == PLACE:
            lines.append(f"{self.game.player_name(self.player)} places {self.to_place} more dice")
        else:
            lines.append(f"{self.game.player_name(self.player)} to move")
        return "\n".join(lines)
