"""No Thanks! (Thorsten Gimmler, Amigo 2004) for 3 to 7 players.

Rules (the No Thanks! rules, docs/references.md): the 33 cards 3..35 are
shuffled and nine are removed unseen; the other 24 form the stack. Each player
starts with 11 chips (3-5 players), 9 (6 players) or 7 (7 players). The top
card is face up; the player to move either PASSes (puts one chip on the card,
only possible with a chip left; play goes to the next player) or TAKEs the
card with every chip on it, turns the next card and decides again. The game
ends when the last card of the stack is taken. A score is the sum of the
lowest card of each run of consecutive cards, minus one per chip; the lowest
score wins and tied lowest scores share the win.

Project conventions, each a decision the rules leave open:

* **Randomness is the seed.** ``new_initial_state(seed)`` shuffles the 33
  cards with ``numpy.random.default_rng(seed)``; the first nine of the
  permutation are removed and the rest is the stack, top first. Actions are
  only ``TAKE`` (0) and ``PASS`` (1), so a record (seed + actions) replays
  exactly. ``new_initial_state(None)`` draws a fresh seed and stores it in
  ``state.seed``, so even an unseeded game can be replayed. There are no
  chance nodes (the game declares ``chance="sampled"``): search samples the
  unknown cards through :meth:`NoThanksState.resample` (determinisation).
  The seed reveals the whole deck, so it is never part of a player's view.
* **Hidden information** is the set of removed cards and the order of the
  stack below the face-up card. **Chip counts are treated as public**: the
  printed rules keep them hidden, but the imitation study's expert and network
  use the opponents' chips, and a careful player can track every chip from the
  passes anyway (everyone starts with the same count and each PASS and TAKE is
  seen). :meth:`NoThanksState.observation` and ``information_state_string``
  therefore show everything but the stack order and the removed cards, and
  every seat sees the same; the removed cards are shown once the game is over.
  A position's notation is that public view.
* **Returns** are win shares: the players with the lowest score share +1
  (1/k each for k tied winners), everyone else gets 0, so returns sum to 1.
  :meth:`NoThanksState.scores` gives the rule scores themselves.
* Player 0 (shown to people as "Player 1") turns the first card and moves first.

Observation tensor (:meth:`NoThanksState.observation_tensor`): a float32
vector of ``35 + 35 * players`` entries, the public table (what
``observation`` shows, so the same for every seat but for the order), seen
from the observing seat: the face-up card one-hot over the 33 cards (all zero
at the end), the chips on it and the face-down cards left as shares (of all
chips in the game; of 24), then for each seat in turn order starting with the
observer its cards (33 ones and zeros) and its chips as a share, and last
the seat to move one-hot in the same order (all zero at the end).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import TERMINAL, Game, GameType, State
from boardlab.core.params import Option, between

TAKE = 0
PASS = 1
ACTION_NAMES = ("take", "pass")

LOW_CARD = 3
HIGH_CARD = 35
ALL_CARDS = tuple(range(LOW_CARD, HIGH_CARD + 1))  # 33 cards
REMOVED = 9
STACK = len(ALL_CARDS) - REMOVED  # 24


def starting_chips(players: int) -> int:
    """Chips per player: 11 for 3-5 players, 9 for 6, 7 for 7."""
    return {6: 9, 7: 7}.get(players, 11)


def card_mask(cards) -> int:
    """Cards as a bit set: bit ``v`` is set when card ``v`` is held."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def mask_cards(mask: int) -> list[int]:
    """The cards of a bit set, ascending."""
    return [v for v in ALL_CARDS if mask >> v & 1]


def card_points(mask: int) -> int:
    """Points of a hand: the lowest card of each run counts, the rest of the run is free."""
    heads = mask & ~(mask << 1)  # a card whose predecessor is not held starts a run
    total = 0
    while heads:
        low = heads & -heads
        total += low.bit_length() - 1
        heads ^= low
    return total


def runs(cards: list[int]) -> list[list[int]]:
    """Ascending cards split into runs of consecutive numbers."""
    out: list[list[int]] = []
    for card in sorted(cards):
        if out and out[-1][-1] == card - 1:
            out[-1].append(card)
        else:
            out.append([card])
    return out


def format_cards(cards: list[int]) -> str:
    """``3 10-13 20``: runs written as ranges."""
    parts = [str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs(cards)]
    return " ".join(parts) if parts else "-"


class NoThanks(Game):
    game_type = GameType(
        short_name="nothanks",
        long_name="No Thanks!",
        min_players=3,
        max_players=7,
        chance="sampled",  # the shuffle is the seed; see the module docstring
        information="imperfect",
        utility="constant_sum",
        provides_scores=True,
        player_names=tuple(f"Player {p + 1}" for p in range(7)),
        player_colors=("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"),
        renderer="boardlab.games:nothanks/board.js",
        provides=frozenset({"observation_tensor", "information_state_string"}),
        min_utility=0.0,  # a win is 1, shared among the winners
    )
    parameters = {"players": Option("players", int, 4, "number of players (3-7)", between(3, 7))}

    def default_agent(self) -> str | None:
        # determinised MCTS (it searches worlds drawn from what its seat has seen): with 1000
        # iterations it beats the network and the expert at a twentieth of a second a move
        # (docs/opponents.md)
        return "mcts:iterations=1000"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.players: int = self.params["players"]
        self.chips: int = starting_chips(self.players)

    def num_players(self) -> int:
        return self.players

    def num_distinct_actions(self) -> int:
        return 2

    def max_game_length(self) -> int:
        # each PASS moves one chip onto the card, so a card sees at most every chip, then a TAKE
        return STACK * (self.players * self.chips + 1)

    def player_of_notation(self, text: str) -> int:
        head = text.split(";", 1)[0]
        if not head.startswith("to_move="):
            raise BoardlabError(f"{text[:40]!r} is not a No Thanks! position (it starts with to_move=)")
        return int(head[len("to_move="):])

    def observation_from_notation(self, text: str, player: int | None = None) -> dict[str, Any] | None:
        """The public table a notation writes (every seat sees the same one): the observation of a
        state with that table whose unseen cards lie in an arbitrary order, which it never shows; at
        the end the removed cards, which the notation does not name, are left out. None for a text
        that is no table of this game."""
        fields: dict[str, str] = {}
        seats: dict[int, tuple[int, list[int]]] = {}
        try:
            for part in text.split(";"):
                seat = re.fullmatch(r"p(\d+):chips=(\d+),cards=([\d,]*)", part)
                if seat:
                    seats[int(seat[1])] = (int(seat[2]), [int(c) for c in seat[3].split(",") if c])
                else:
                    key, _, value = part.partition("=")
                    fields[key] = value
            to_move, pot, left = int(fields["to_move"]), int(fields["pot"]), int(fields["left"])
            card = None if fields["card"] == "None" else int(fields["card"])
            history = [{"t": TAKE, "p": PASS}[move] for move in fields.get("history", "")]
        except (KeyError, ValueError):
            return None
        taken = [c for p in sorted(seats) for c in seats[p][1]]
        seen = taken + ([card] if card is not None else [])
        if (sorted(seats) != list(range(self.players)) or len(set(seen)) != len(seen) or not set(seen) <= set(ALL_CARDS)
                or (card is None) != (len(taken) == STACK) or len(seen) + left != STACK
                or (card is not None and not 0 <= to_move < self.players)):
            return None
        unseen = [c for c in ALL_CARDS if c not in seen]
        state = NoThanksState(self, None, seen + unseen[: STACK - len(seen)], unseen[STACK - len(seen):])
        state.history = history
        state.pos, state.pot, state.player = len(taken), pot, max(to_move, 0)
        state.chips = [seats[p][0] for p in range(self.players)]
        state.hands = [card_mask(seats[p][1]) for p in range(self.players)]
        seen_view = state.observation(player)
        if state.is_terminal():  # the removed cards of this made-up deck are nobody's knowledge
            seen_view["board"].pop("removed", None)
            seen_view["text"] = "game over\n" + seen_view["text"].split("\n", 1)[1]
        return seen_view

    def observation_tensor_shape(self) -> tuple[int]:
        return (35 + 35 * self.players,)

    def new_initial_state(self, seed: int | None = None) -> "NoThanksState":
        if seed is None:
            seed = secrets.randbits(63)
        order = np.random.default_rng(seed).permutation(np.array(ALL_CARDS))
        removed = sorted(int(c) for c in order[:REMOVED])
        deck = [int(c) for c in order[REMOVED:]]
        return NoThanksState(self, seed, deck, removed)


class NoThanksState(State):
    __slots__ = ("game", "seed", "history", "deck", "removed", "pos", "pot", "chips", "hands", "player")

    def __init__(self, game: NoThanks, seed: int | None, deck: list[int], removed: list[int]) -> None:
        self.game = game
        self.seed = seed
        self.history: list[int] = []
        self.deck = deck  # the 24 stack cards, top first; deck[pos] is face up
        self.removed = removed  # the nine cards out of the game (sorted)
        self.pos = 0
        self.pot = 0  # chips on the face-up card
        self.chips = [game.chips] * game.players
        self.hands = [0] * game.players  # bit sets of taken cards
        self.player = 0

    # --- protocol --------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.pos >= STACK else self.player

    def is_terminal(self) -> bool:
        return self.pos >= STACK

    def legal_actions(self) -> list[int]:
        if self.pos >= STACK:
            return []
        return [TAKE, PASS] if self.chips[self.player] > 0 else [TAKE]

    def apply_action(self, action: int) -> None:
        if self.pos >= STACK:
            raise self._illegal(action)
        p = self.player
        if action == TAKE:
            self.hands[p] |= 1 << self.deck[self.pos]
            self.chips[p] += self.pot
            self.pot = 0
            self.pos += 1  # the taker turns the next card and plays again
        elif action == PASS:
            if self.chips[p] <= 0:
                raise IllegalActionError(f"{self.game.player_name(p)} has no chips left and must take the {self.deck[self.pos]}")
            self.chips[p] -= 1
            self.pot += 1
            self.player = (p + 1) % self.game.players
        else:
            raise self._illegal(action)
        self.history.append(action)

    def clone(self) -> "NoThanksState":
        other = NoThanksState.__new__(NoThanksState)
        other.game = self.game
        other.seed = self.seed
        other.history = self.history.copy()
        other.deck = self.deck  # never mutated in place; resampling builds a new list
        other.removed = self.removed
        other.pos = self.pos
        other.pot = self.pot
        other.chips = self.chips.copy()
        other.hands = self.hands.copy()
        other.player = self.player
        return other

    def scores(self) -> list[int]:
        """Each player's score by the rules (so far): run heads of the cards minus chips."""
        return [card_points(h) - c for h, c in zip(self.hands, self.chips)]

    def winners(self) -> list[int]:
        """Players with the lowest score (all of them on a tie); empty until the end."""
        if not self.is_terminal():
            return []
        scores = self.scores()
        best = min(scores)
        return [p for p, s in enumerate(scores) if s == best]

    def returns(self) -> list[float]:
        out = [0.0] * self.game.players
        winners = self.winners()
        for p in winners:
            out[p] = 1.0 / len(winners)
        return out

    def action_to_string(self, action: int) -> str:
        return ACTION_NAMES[action] if action in (TAKE, PASS) else str(action)

    def string_to_action(self, text: str) -> int:
        word = text.strip().lower()
        aliases = {"take": TAKE, "t": TAKE, "pass": PASS, "p": PASS, "no thanks": PASS, "no thanks!": PASS}
        if word not in aliases:
            raise IllegalActionError(f"{text!r} is not a move of No Thanks! (take or pass)")
        action = aliases[word]
        if action not in self.legal_actions():
            if self.is_terminal():
                raise IllegalActionError("the game is over")
            raise IllegalActionError(f"{self.game.player_name(self.player)} has no chips left and must take")
        return action

    # --- No Thanks! specifics ----------------------------------------------------
    def card(self) -> int | None:
        """The face-up card, or None at the end."""
        return self.deck[self.pos] if self.pos < STACK else None

    def stack_left(self) -> int:
        """Face-down cards still under the face-up one."""
        return max(0, STACK - self.pos - 1)

    def hand(self, player: int) -> list[int]:
        return mask_cards(self.hands[player])

    def seen_cards(self) -> list[int]:
        """Cards anybody has seen: the taken ones and the face-up one."""
        return self.deck[: min(self.pos + 1, STACK)]

    def information_state_string(self, player: int | None = None) -> str:
        """Everything ``player`` knows: the public table (chips included, see module doc); the notation too.

        The stack order and the removed cards are left out; what is drawn
        next is not known to anybody. ``player`` changes nothing since nothing
        is private to one player, but it is part of the protocol.
        """
        parts = [f"to_move={self.current_player()}", f"card={self.card()}", f"pot={self.pot}",
                 f"left={self.stack_left()}"]
        for p in range(self.game.players):
            parts.append(f"p{p}:chips={self.chips[p]},cards={','.join(map(str, self.hand(p)))}")
        parts.append("history=" + "".join("tp"[a] for a in self.history))
        return ";".join(parts)

    def notation(self) -> str:
        return self.information_state_string(None)

    def resample(self, player: int, rng: Any) -> "NoThanksState":
        """A copy whose unseen cards are redrawn: which nine are removed and the stack order.

        ``rng`` is a ``numpy.random.Generator``, a ``random.Random`` or an int seed.
        The copy has the same information state for every player; its ``seed``
        is None because no seed produces the redrawn deck.
        """
        if isinstance(rng, (int, np.integer)):
            rng = np.random.default_rng(int(rng))
        other = self.clone()
        seen = self.seen_cards()
        unseen = sorted(set(ALL_CARDS) - set(seen))
        rng.shuffle(unseen)
        below = STACK - len(seen)
        other.deck = list(seen) + unseen[:below]
        other.removed = sorted(unseen[below:])
        other.seed = None
        return other

    def redraw_unseen(self, rng: np.random.Generator) -> "NoThanksState":
        """The unseen cards redrawn (the stack below the face-up card and the removed nine): every
        seat sees the same table, so what one seat has not seen nobody has. ``seed`` is kept."""
        other = self.resample(0, rng)
        other.seed = self.seed
        return other

    def end_description(self) -> str | None:
        return "the last card was taken: the lowest score wins" if self.is_terminal() else None

    def observation_tensor(self, player: int) -> np.ndarray:
        players = self.game.players
        total = float(self.game.chips * players)
        out = np.zeros(35 + 35 * players, dtype=np.float32)
        card = self.card()
        if card is not None:
            out[card - LOW_CARD] = 1.0
        out[33] = self.pot / total
        out[34] = self.stack_left() / (STACK - 1)
        for k in range(players):
            seat = (player + k) % players
            base = 35 + 34 * k
            hand = self.hands[seat]
            for v in ALL_CARDS:
                if hand >> v & 1:
                    out[base + v - LOW_CARD] = 1.0
            out[base + 33] = self.chips[seat] / total
        if not self.is_terminal():
            out[35 + 34 * players + (self.player - player) % players] = 1.0
        return out

    def result(self) -> str:
        if not self.is_terminal():
            return "in play"
        names = [self.game.player_name(p) for p in self.winners()]
        if len(names) == 1:
            return f"{names[0]} wins"
        return "tie between " + ", ".join(names)

    def observation(self, player: int | None = None) -> dict[str, Any]:
        """The public table, the same for every seat (see the module docstring); the removed
        cards once the game is over. Never the stack order, the removed cards in play, or the seed."""
        scores = self.scores()
        data: dict[str, Any] = {
            "to_move": self.current_player(),
            "text": str(self),  # the table as printed never shows the stack (the removed cards only at the end)
            "board": {
                "card": self.card(),
                "pot": self.pot,
                "stack_left": self.stack_left(),
                "removed_unseen": REMOVED,
                "players": [
                    {"chips": self.chips[p], "cards": self.hand(p), "runs": runs(self.hand(p)), "score": scores[p]}
                    for p in range(self.game.players)
                ],
            },
            "scores": scores,
            "result": self.result(),
        }
        if self.is_terminal():
            data["board"]["removed"] = list(self.removed)
        return data

    def __str__(self) -> str:
        scores = self.scores()
        if self.is_terminal():
            lines = [f"game over; removed cards: {' '.join(map(str, self.removed))}"]
        else:
            lines = [f"card {self.card()} with {self.pot} chip{'s' if self.pot != 1 else ''}; "
                     f"{self.stack_left()} cards face down ({REMOVED} removed unseen)"]
        for p in range(self.game.players):
            mark = "*" if p == self.current_player() else " "
            lines.append(f"{self.game.player_name(p)}{mark} chips {self.chips[p]:2d}  score {scores[p]:3d}  cards {format_cards(self.hand(p))}")
        lines.append(self.result() if self.is_terminal() else f"{self.game.player_name(self.player)} to move")
        return "\n".join(lines)
