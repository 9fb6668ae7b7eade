"""Ticket to Ride (Alan R. Moon, Days of Wonder 2004) on the USA map, 2 to 5 players.

Rules (``data/tickettoride/usa.json`` and the rulebook): each player has 45
trains, 4 train cards and 3 destination tickets of which they keep at least 2.
110 train cards: 12 of each of 8 colours and 14 locomotives (wild). Five cards
lie face up. On a turn a player does one of three things:

* **draw train cards**: two cards, each face up or from the deck; a face-up
  locomotive taken as the first card is the whole draw, and a face-up
  locomotive can never be the second card; a taken face-up card is replaced
  from the deck at once;
* **claim a route**: pay as many cards as the route is long, all of the
  route's colour (any one colour for a gray route), locomotives standing in for
  any of them; a double route's second track is open only in games of 4-5
  players and never to the player who holds the first;
* **draw destination tickets**: 3 from the ticket deck (fewer when fewer are
  left), keep at least one, return the others to the bottom.

When a player ends a turn with 0, 1 or 2 trains, every player, that player
included, has one more turn. Routes score 1/2/4/7/10/15 by length; a ticket
scores its points when its cities are joined by the player's own routes and
loses them otherwise; the longest continuous path (each route once, cities may
repeat) earns 10 points, shared by every tied player. The highest score wins;
ties go to the most completed tickets, then to the holder of the longest path.

Presets (the ``variant`` parameter): ``official`` (the rules above) and
``study``, the study's game (Łabno 2018): no longest-path bonus, everything
else the same.

Decisions of the rules the rulebook leaves open (docs/tickettoride.md explains each):

* **Randomness is the seed** (``chance="sampled"``, as No Thanks!):
  ``new_initial_state(seed)`` shuffles the 110 cards and the 30 tickets with
  ``numpy.random.default_rng(seed)``; reshuffle ``e`` of the discards (laid out
  by colour) is a Fisher-Yates shuffle driven by the xorshift64* stream
  :func:`shuffle_stream` ``(seed, e)``, which the compiled kernel reproduces
  exactly. A record (seed + actions) replays exactly.
* **Three face-up locomotives**: whenever the face-up row holds 3 or more
  locomotives, all five are discarded and five new cards are laid, again and
  again, as long as it happens; a draw pile that runs out is refilled by
  shuffling the discards (the wiped cards included). When the cards outside
  the players' hands (face-up row, deck and discards) hold too few
  non-locomotives for any clean row (fewer than the row's size minus 2), the
  row stays as it is. (A bound of :data:`MAX_WIPES` wipes in a row stops a
  pathological loop; with a clean row possible each wipe succeeds with
  positive probability.)
* The face-up row is refilled while any card is left in the deck or the
  discards; a slot stays empty only when both are empty.
* The discards are shuffled into a new deck when a card is needed and the deck
  is empty (not before).
* **Nothing to do**: a player who can neither draw a card (deck, discards and
  face-up row empty), nor draw tickets (ticket deck empty), nor claim any route
  must ``pass`` (the only legal action then). When every player has passed in a
  row nobody can ever act again and the game ends and is scored (the rules'
  intent: the game ends when play cannot go on). A pass counts as a turn of the
  last round.
* Initial tickets are chosen one player after another, player 1 first (the
  rulebook has everyone choose at once; the choices are secret either way,
  only the number kept is public).
* The second card is a separate decision of the same player; when no second
  card can be taken (no non-locomotive face-up card and nothing to draw) the
  turn ends after the first.
* Two face-up cards of one colour are the same choice: only the leftmost is a
  legal action. Of a double route whose two tracks are both gray, only the
  first free track is offered (the two are interchangeable).
* Returns are win shares: the winners (after the tie-breaks) share 1.
  :meth:`TicketToRideState.scores` gives the points.

Action encoding (``num_distinct_actions() = 6315``):

===========================  ==================================================
``0..4``                     take the face-up card in slot ``k``
``5``                        draw the top card of the deck
``6``                        draw destination tickets
``7``                        pass (only when nothing else is legal)
``8..14``                    keep the offered tickets of bit mask ``m`` (``7 + m``)
``15 + 63*t + 7*c + k``      claim track ``t`` paying ``len - k`` cards of colour
                             ``c`` (0..7) and ``k`` locomotives; ``c = 8`` with
                             ``k = len``: locomotives only
===========================  ==================================================

Labels (:meth:`~TicketToRideState.action_to_string`) show nothing private:
``draw from deck`` never names the card, ``keep tickets 1+3`` names the slots
of the offer, not the tickets.

Observation tensor (:meth:`TicketToRideState.observation_tensor`): a float32
vector of ``100 * (players + 1) + 6 * players + 231`` entries (4 players: 755),
values in 0..1, holding only what the observing seat may see (what
:meth:`~TicketToRideState.observation` shows it), so it stays the same under
``resample(seat, rng)``. Seats are rotated so that the observer comes first,
then the next seat in turn order. In order:

* per track (100 rows of ``players + 1``): unclaimed, then its owner one-hot (rotated);
* the observer's hand: the count of each of the 9 card kinds / the kind's
  cards in the game (12, locomotives 14);
* the face-up row: 5 slots of 9 (the card kind one-hot; an empty slot all
  zero), in slot order, as actions 0-4 name them;
* the discard pile: the count of each kind / the kind's cards in the game;
* the observer's tickets: 30 entries, 1 for each ticket it holds; 30 more, 1
  for each of them already completed by its own routes;
* the tickets on offer to the observer: 3 slots of 30 (one-hot, in the order
  the keep actions' bit masks name them; all zero without an offer);
* the decision pending, one-hot: setup tickets, turn, second card, keep
  tickets, over; then the first card of a two-card draw when it was taken face
  up (8 colours one-hot; all zero when it was drawn blind);
* per seat (rotated, 6 each): its turn (all zero at the end), trains / 45,
  cards held / 110, tickets held / 30, tickets on offer / 3, route points /
  112.5 (45 trains in 6-train routes);
* the deck / 110, the ticket deck / 30, whether the last round has begun, its
  turns left / players, and passes in a row / players;
* with ``features=plan`` only (163 more entries, :func:`plan_entries`): the
  cheapest way left to each of the observer's tickets and the tracks on it,
  from the public owners and its own tickets alone (:mod:`.plan`).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import TERMINAL, Game, GameType, State
from boardlab.core.params import Option, between
from boardlab.core.rng import MASK64, python_random
from boardlab.games.tickettoride import scoring
from boardlab.games.tickettoride.map import CARD_CODES, CARD_NAMES, COLOURS, GRAY, LOCO, NUM_CARD_TYPES, TTRMap, usa_map

#: a notation's card code -> the card's name; notations written before the codes were distinct wrote
#: blue and black both "bl", which reads as either
CARD_OF_CODE = dict(zip(CARD_CODES, CARD_NAMES)) | {"bl": "blue/black"}

FACE_UP = 5
DRAW_DECK = 5
DRAW_TICKETS = 6
PASS = 7
KEEP_BASE = 7          # keep mask m (1..7) is action 7 + m
CLAIM_BASE = 15
PER_TRACK = 63         # 9 colour codes x 7 locomotive counts
NO_COLOUR = 8          # "locomotives only" in a claim action
NUM_ACTIONS = CLAIM_BASE + 100 * PER_TRACK

SETUP, TURN, SECOND, KEEP, OVER = range(5)
PHASES = ("setup", "turn", "second card", "keep tickets", "over")
MAX_WIPES = 1000

VARIANTS = ("official", "study")
FEATURES = ("plain", "plan")
PLAYER_COLOURS = ("#1f5fbf", "#d62728", "#2ca02c", "#e6b800", "#222222")
PLAYER_NAMES = ("Blue", "Red", "Green", "Yellow", "Black")




def plan_entries(tracks: int, tickets: int) -> int:
    """How many entries ``features=plan`` adds to the observation tensor (:mod:`.plan`): two per ticket, one per
    track and three totals."""
    return 2 * tickets + tracks + 3


def shuffle_stream(seed: int, epoch: int) -> list[int]:
    """The generator state of reshuffle ``epoch`` of a game with shuffle seed ``seed`` (splitmix64 of both)."""
    x = ((seed & MASK64) ^ ((epoch * 0x9E3779B97F4A7C15) & MASK64)) & MASK64
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    x ^= x >> 31
    return [x or 1]


def shuffled(cards: list[int], stream: list[int]) -> list[int]:
    """``cards`` in the order of a Fisher-Yates shuffle driven by ``stream`` (as the kernel shuffles)."""
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        j = python_random(stream) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def claim_action(track: int, colour: int, locos: int) -> int:
    """The action that claims ``track`` with ``locos`` locomotives and cards of ``colour`` (NO_COLOUR: none)."""
    return CLAIM_BASE + track * PER_TRACK + colour * 7 + locos


def decode_claim(action: int) -> tuple[int, int, int]:
    """``(track, colour, locos)`` of a claim action."""
    x = action - CLAIM_BASE
    return x // PER_TRACK, (x % PER_TRACK) // 7, x % 7


class TicketToRide(Game):
    game_type = GameType(
        short_name="tickettoride",
        long_name="Ticket to Ride",
        min_players=2,
        max_players=5,
        chance="sampled",  # the shuffles are the seed; see the module docstring
        information="imperfect",
        utility="constant_sum",
        provides_scores=True,
        player_names=PLAYER_NAMES,
        player_colors=PLAYER_COLOURS,
        renderer="boardlab.games:tickettoride/board.js",
        provides=frozenset({"observation_tensor", "information_state_string", "compiled_playouts", "compiled_puct"}),
        min_utility=0.0,  # a win is 1, shared among the winners
    )
    parameters = {
        "players": Option("players", int, 4, "number of players (2-5)", between(2, 5)),
        "variant": Option("variant", str, "official", "official, or study (no longest-path bonus, as the study played)",
                          lambda v: None if v in VARIANTS else f"must be one of {', '.join(VARIANTS)}"),
        "features": Option("features", str, "plain", "the observation tensor: plain (the table as the seat sees it), or "
                           "plan (plus each of its tickets' cheapest way left and the tracks on it, for networks)",
                           lambda v: None if v in FEATURES else f"must be one of {', '.join(FEATURES)}"),
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.players: int = self.params["players"]
        self.variant: str = self.params["variant"]
        self.longest_bonus = self.variant == "official"
        self.board: TTRMap = usa_map()
        self.doubles_open = self.players >= 4
        b = self.board
        #: (track, length, colour, twin, gray twin to skip while free) of every track, as plain ints for speed
        self.track_info = tuple(
            (t, int(b.track_length[t]), int(b.track_colour[t]), int(b.track_twin[t]),
             int(b.track_twin[t]) if 0 <= b.track_twin[t] < t and b.track_colour[b.track_twin[t]] == b.track_colour[t] else -1)
            for t in range(b.num_tracks))
        self.points_of = tuple(int(x) for x in b.route_points)
        #: entries that features=plan adds after the plain observation tensor (0: features=plain)
        self.plan_entries = plan_entries(b.num_tracks, b.num_tickets) if self.params["features"] == "plan" else 0

    def num_players(self) -> int:
        return self.players

    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    def max_game_length(self) -> int:
        """A bound the rules guarantee. Every card drawn comes from the 110 cards or from the cards
        paid for routes (at most 45 trains a player); each ticket draw keeps a ticket for good; each
        claim takes one of 100 tracks; between two other turns each other player may pass once."""
        n = self.players
        b = self.board
        draws = b.num_cards + n * b.trains
        turns = b.num_tickets + b.num_tracks + draws + 1
        return n + 2 * b.num_tickets + b.num_tracks + draws + (n - 1) * turns + n

    def player_of_notation(self, text: str) -> int:
        head = text.split(";", 1)[0]
        if not head.startswith("to_move="):
            raise BoardlabError(f"{text[:40]!r} is not a Ticket to Ride position (it starts with to_move=)")
        return int(head[len("to_move="):])

    def observation_from_notation(self, text: str, player: int | None = None) -> dict[str, Any] | None:
        """The public board a notation writes (``_public()`` and the move count), as the board view
        draws it: the claimed routes, the face-up row, the piles' counts and every player's counts;
        never a hand or a ticket, whoever ``player`` is. An old notation's "bl" card reads "blue/black"
        (see :data:`CARD_OF_CODE`). Unknown here: the first card of a two-card draw, and at the end the
        tickets' scoring. None for a text that is no position of this game."""
        fields: dict[str, str] = {}
        seats: dict[int, dict[str, str]] = {}
        try:
            for part in text.split(";"):
                key, _, value = part.partition("=")
                seat = re.fullmatch(r"p(\d+):(.*)", part)
                if seat:
                    seats[int(seat[1])] = dict(item.split("=", 1) for item in seat[2].split(","))
                else:
                    fields[key] = value
            face_up = [None if c == "-" else CARD_OF_CODE[c] for c in fields["up"].split(",")]
            discards = [int(x) for x in fields["disc"].split(",")]
            phase = fields["phase"].replace("-", " ")
            claimed = [[int(t) for t in seats[p]["routes"].split(".") if t] for p in range(self.players)]
            players = [{"trains": int(seats[p]["tr"]), "cards": int(seats[p]["cards"]), "tickets": int(seats[p]["tix"]),
                        "offer": int(seats[p]["offer"]), "claimed": claimed[p],
                        "routes": sum(self.points_of[self.track_info[t][1]] for t in claimed[p])}
                       for p in range(self.players)]
            to_move, deck, tickets_left, last = (int(fields[k]) for k in ("to_move", "deck", "tix", "last"))
        except (KeyError, ValueError, IndexError):
            return None
        if phase not in PHASES or len(discards) != NUM_CARD_TYPES or len(face_up) != FACE_UP:
            return None
        b = self.board
        owners = [-1] * b.num_tracks
        for p, tracks in enumerate(claimed):
            for t in tracks:
                owners[t] = p
        up = " ".join(c or "-" for c in face_up)
        lines = [f"face up: {up} | deck {deck}, discards {sum(discards)}, tickets {tickets_left}"]
        for p, entry in enumerate(players):
            mark = "*" if p == to_move else " "
            routes = ", ".join(b.track_name(t) for t in entry["claimed"]) or "-"
            lines.append(f"{self.player_name(p)}{mark} trains {entry['trains']:2d}  cards {entry['cards']:2d}  "
                         f"tickets {entry['tickets']}  points {entry['routes']:3d}  routes: {routes}")
        lines.append("game over" if phase == "over" else f"{self.player_name(to_move)} to move ({phase})")
        board = {"map": b.view(), "variant": self.variant, "owners": owners, "doubles_open": self.doubles_open,
                 "phase": phase, "face_up": face_up, "deck": deck, "discards": sum(discards),
                 "discard_counts": dict(zip(CARD_NAMES, discards)), "tickets_left": tickets_left, "players": players,
                 "last_round": last if last >= 0 else None, "first_card": None, "viewer": None}
        return {"to_move": to_move, "text": "\n".join(lines), "board": board, "scores": [entry["routes"] for entry in players],
                "result": "in play" if phase != "over" else "game over (the notation does not score the tickets)"}

    def new_initial_state(self, seed: int | None = None) -> "TicketToRideState":
        if seed is None:
            seed = secrets.randbits(63)
        rng = np.random.default_rng(seed)
        cards = np.repeat(np.arange(len(CARD_NAMES)), self.board.deck)
        deck = [int(c) for c in rng.permutation(cards)]
        tickets = [int(t) for t in rng.permutation(self.board.num_tickets)]
        return TicketToRideState(self, seed, deck, tickets, shuffle_seed=seed)

    def default_agent(self) -> str | None:
        # determinised search over the algorithmic player's playouts (docs/opponents.md)
        return "ttr-ismcts:iterations=1000"

    def playout_kernel(self):
        """The compiled random playouts (:mod:`boardlab.games.tickettoride.kernel`), built once per game object."""
        kernel = self.__dict__.get("_playout_kernel")
        if kernel is None:
            from boardlab.games.tickettoride.kernel import PlayoutKernel  # numba: imported on first use

            kernel = self.__dict__["_playout_kernel"] = PlayoutKernel(self)
        return kernel


    def observation_tensor_shape(self) -> tuple[int]:
        """See the module docstring (observation tensor)."""
        b = self.board
        n = self.players
        return (b.num_tracks * (n + 1) + 2 * NUM_CARD_TYPES + FACE_UP * NUM_CARD_TYPES + 2 * b.num_tickets
                + 3 * b.num_tickets + len(PHASES) + len(COLOURS) + 6 * n + 5 + self.plan_entries,)


class TicketToRideState(State):
    __slots__ = (
        "game", "seed", "history", "board", "n", "deck", "epoch", "faceup", "discards", "hands", "trains",
        "owner", "claimed", "ticket_deck", "tickets", "offers", "ticket_order", "player", "phase", "last_round",
        "passes", "first_card", "shuffle_seed", "draws", "timeline", "epoch_sets", "offered", "points",
        "_legal", "_over_scores",
    )

    def __init__(self, game: TicketToRide, seed: int | None, deck: list[int], ticket_order: list[int],
                 shuffle_seed: int) -> None:
        self.game = game
        self.seed = seed
        self.history: list[int] = []
        board = self.board = game.board
        n = self.n = game.players
        self.shuffle_seed = shuffle_seed
        self.deck = deck                      # draw pile, top card last
        self.epoch = 0                        # reshuffles of the discards so far
        self.discards = [0] * 9               # counts by card kind (the pile is shuffled before reuse)
        self.hands = [[0] * 9 for _ in range(n)]
        self.trains = [board.trains] * n
        self.points = [0] * n                 # route points so far (public)
        self.owner = [-1] * board.num_tracks
        self.claimed: list[list[int]] = [[] for _ in range(n)]
        self.ticket_order = ticket_order      # the shuffled ticket deck at the start (identities by position)
        self.ticket_deck = list(ticket_order)  # top first; returned tickets go to the end
        self.tickets: list[list[int]] = [[] for _ in range(n)]
        self.offers: list[list[int]] = [[] for _ in range(n)]
        self.offered: list[list[int]] = [[] for _ in range(n)]  # every ticket ever offered to each player
        self.player = 0
        self.phase = SETUP
        self.last_round = -1                  # turns left once the last round has started
        self.passes = 0                       # passes in a row
        self.first_card = -1                  # the first card of a two-card draw (for the view)
        # what resampling needs: every card drawn from the deck (epoch, where to, card), each player's
        # public timeline of its hand, and the public make-up of each deck epoch
        self.draws: list[tuple[int, int, int]] = []
        self.timeline: list[list[tuple]] = [[] for _ in range(n)]
        self.epoch_sets: list[list[int]] = [list(int(x) for x in board.deck)]
        self._legal: list[int] | None = None
        self._over_scores = None
        for p in range(n):
            for _ in range(4):
                self._draw_to(p)
        self.faceup = [-1] * FACE_UP
        for k in range(FACE_UP):
            self._refill(k)
        self._wipe_locomotives()
        for p in range(n):
            self.offers[p] = self.ticket_deck[:3]
            del self.ticket_deck[:3]
            self.offered[p].extend(self.offers[p])

    # --- cards -------------------------------------------------------------------
    def _supply(self) -> int:
        """Cards that can still be drawn blind: the deck and the discards."""
        return len(self.deck) + sum(self.discards)

    def _draw_card(self, dest: int) -> int:
        """The top card of the deck (shuffling the discards in first when the deck is empty)."""
        if not self.deck:
            self._reshuffle()
        card = self.deck.pop()
        self.draws.append((self.epoch, dest, card))
        return card

    def _reshuffle(self) -> None:
        cards = [c for c in range(9) for _ in range(self.discards[c])]
        if not cards:
            raise BoardlabError("no card left to draw")  # callers check _supply() first
        self.epoch += 1
        self.deck = shuffled(cards, shuffle_stream(self.shuffle_seed, self.epoch))
        self.epoch_sets.append(self.discards)
        self.discards = [0] * 9

    def _draw_to(self, player: int) -> int:
        card = self._draw_card(player)
        self.hands[player][card] += 1
        self.timeline[player].append(("h", len(self.draws) - 1))
        return card

    def _refill(self, slot: int) -> None:
        self.faceup[slot] = self._draw_card(-1) if self._supply() > 0 else -1

    def _wipe_locomotives(self) -> None:
        """Discard and replace the face-up row while it holds 3 locomotives and a clean row can be laid."""
        for _ in range(MAX_WIPES):
            row = self.faceup
            if row.count(LOCO) < 3:
                return
            shown = [c for c in row if c >= 0]
            total = len(shown) + self._supply()
            size = min(FACE_UP, total)
            non_loco = sum(1 for c in shown if c != LOCO) + sum(1 for c in self.deck if c != LOCO) \
                + sum(self.discards[:8])
            if non_loco < size - 2:
                return  # no clean row can be laid from what is left: the row stays
            for c in shown:
                self.discards[c] += 1
            for k in range(FACE_UP):
                self._refill(k)

    def _can_draw_second(self) -> bool:
        return self._supply() > 0 or any(0 <= c < LOCO for c in self.faceup)

    # --- turns -------------------------------------------------------------------
    def _end_turn(self) -> None:
        self.first_card = -1
        p = self.player
        if self.last_round > 0:
            self.last_round -= 1
        elif self.last_round < 0 and self.trains[p] <= 2:
            self.last_round = self.n
        if self.last_round == 0 or self.passes >= self.n:
            self.phase = OVER
            return
        self.player = (p + 1) % self.n
        self.phase = TURN

    # --- protocol ----------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.phase == OVER else self.player

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == OVER:
            return []
        if phase == SETUP or phase == KEEP:
            offer = len(self.offers[self.player])
            least = min(offer, 2 if phase == SETUP else 1)
            return [KEEP_BASE + m for m in range(1, 1 << offer) if bin(m).count("1") >= least]
        out = []
        seen = set()
        second = phase == SECOND
        for k, c in enumerate(self.faceup):
            if c >= 0 and c not in seen and not (second and c == LOCO):
                seen.add(c)
                out.append(k)
        if self._supply() > 0:
            out.append(DRAW_DECK)
        if second:
            return out
        if self.ticket_deck:
            out.append(DRAW_TICKETS)
        out.extend(self._claims())
        if not out:
            out.append(PASS)
        return out

    def _claims(self) -> list[int]:
        """Every legal claim action of the player to move."""
        p = self.player
        hand = self.hands[p]
        locos = hand[LOCO]
        best = max(hand[:8])
        trains = self.trains[p]
        owner = self.owner
        doubles = self.game.doubles_open
        out: list[int] = []
        extend = out.extend
        for t, length, colour, tw, gray_twin in self.game.track_info:
            if owner[t] >= 0 or length > trains:
                continue
            if colour >= 0:
                have = hand[colour]
                if have + locos < length:
                    continue
            elif best + locos < length:
                continue
            if tw >= 0:
                other = owner[tw]
                if other == p or (other >= 0 and not doubles):
                    continue
                if gray_twin >= 0 and other < 0:
                    continue  # two gray tracks: the first free one stands for both
            base = CLAIM_BASE + t * PER_TRACK
            top = locos if locos < length else length - 1
            if colour >= 0:
                if have:
                    start = base + colour * 7
                    extend(range(start + (length - have if length > have else 0), start + top + 1))
            else:
                for c in range(8):
                    have = hand[c]
                    if have:
                        start = base + c * 7
                        extend(range(start + (length - have if length > have else 0), start + top + 1))
            if locos >= length:
                out.append(base + NO_COLOUR * 7 + length)
        return out

    def _claim_problem(self, action: int) -> str | None:
        """Why claim ``action`` is illegal for the player to move (None when it is legal)."""
        b = self.board
        t, c, k = decode_claim(action)
        if t >= b.num_tracks:
            return "no such track"
        p = self.player
        length = int(b.track_length[t])
        colour = int(b.track_colour[t])
        if self.owner[t] >= 0:
            return f"{b.track_name(t)} is taken"
        if length > self.trains[p]:
            return f"{length} trains needed, {self.trains[p]} left"
        tw = int(b.track_twin[t])
        if tw >= 0:
            other = self.owner[tw]
            if other == p:
                return "a player may not hold both tracks of a double route"
            if other >= 0 and not self.game.doubles_open:
                return "with 2 or 3 players only one track of a double route is used"
            if other < 0 and tw < t and b.track_colour[tw] == colour:
                return f"claim the first track of {b.track_name(t)}"
        hand = self.hands[p]
        if c == NO_COLOUR:
            if k != length:
                return "a payment without colour cards is all locomotives"
        elif k >= length or (colour != GRAY and c != colour):
            return "wrong payment"
        if hand[LOCO] < k or (c != NO_COLOUR and hand[c] < length - k):
            return "not enough cards"
        return None

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == OVER or not isinstance(action, (int, np.integer)) or action < 0:
            raise self._illegal(action)
        action = int(action)
        p = self.player
        if phase == SETUP or phase == KEEP:
            if action not in self.legal_actions():
                raise self._illegal(action)
            mask = action - KEEP_BASE
            offer = self.offers[p]
            kept = [t for i, t in enumerate(offer) if mask >> i & 1]
            back = [t for i, t in enumerate(offer) if not mask >> i & 1]
            self.tickets[p].extend(kept)
            self.ticket_deck.extend(back)
            self.offers[p] = []
            self.history.append(action)
            self._legal = None
            if phase == SETUP:
                if p + 1 < self.n:
                    self.player = p + 1
                else:
                    self.player = 0
                    self.phase = TURN
            else:
                self.passes = 0
                self._end_turn()
            return
        if action < FACE_UP:
            c = self.faceup[action]
            if c < 0 or (phase == SECOND and c == LOCO) or c in self.faceup[:action]:
                raise self._illegal(action)
            self.hands[p][c] += 1
            self.timeline[p].append(("k", c))
            self._refill(action)
            self._wipe_locomotives()
            self._after_card(c if c != LOCO else -2, phase)
        elif action == DRAW_DECK:
            if self._supply() == 0:
                raise self._illegal(action)
            self._draw_to(p)
            self._after_card(-1, phase)
        elif phase == SECOND:
            raise self._illegal(action)
        elif action == DRAW_TICKETS:
            if not self.ticket_deck:
                raise self._illegal(action)
            self.offers[p] = self.ticket_deck[:3]
            del self.ticket_deck[:3]
            self.offered[p].extend(self.offers[p])
            self.phase = KEEP
        elif action == PASS:
            if self._compute_legal() != [PASS]:
                raise self._illegal(action)
            self.passes += 1
            self._end_turn()
        elif CLAIM_BASE <= action < NUM_ACTIONS:
            problem = self._claim_problem(action)
            if problem is not None:
                raise IllegalActionError(f"claim {self._claim_label(action)}: {problem}")
            t, c, k = decode_claim(action)
            length = int(self.board.track_length[t])
            hand = self.hands[p]
            spend = [0] * 9
            if c != NO_COLOUR:
                spend[c] = length - k
            spend[LOCO] = k
            for kind in (c, LOCO) if c != NO_COLOUR else (LOCO,):
                hand[kind] -= spend[kind]
                self.discards[kind] += spend[kind]
            self.timeline[p].append(("s", tuple(spend)))
            self.owner[t] = p
            self.claimed[p].append(t)
            self.trains[p] -= length
            self.points[p] += int(self.board.route_points[length])
            # the paid cards are discards now: empty face-up slots are filled again, and three
            # locomotives left face up for want of a clean row may be replaced now
            if -1 in self.faceup:
                for slot in range(FACE_UP):
                    if self.faceup[slot] < 0:
                        self._refill(slot)
            self._wipe_locomotives()
            self.passes = 0
            self._end_turn()
        else:
            raise self._illegal(action)
        self.history.append(action)
        self._legal = None

    def _after_card(self, card: int, phase: int) -> None:
        """After a card is taken: a face-up locomotive (-2) or a second card ends the turn."""
        self.passes = 0
        if phase == SECOND or card == -2:
            self._end_turn()
        elif self._can_draw_second():
            self.phase = SECOND
            self.first_card = card  # -1: drawn blind
        else:
            self._end_turn()

    def clone(self) -> "TicketToRideState":
        o = TicketToRideState.__new__(TicketToRideState)
        o.game = self.game
        o.seed = self.seed
        o.history = self.history.copy()
        o.board = self.board
        o.n = self.n
        o.deck = self.deck.copy()
        o.epoch = self.epoch
        o.faceup = self.faceup.copy()
        o.discards = self.discards.copy()
        o.hands = [h.copy() for h in self.hands]
        o.trains = self.trains.copy()
        o.points = self.points.copy()
        o.owner = self.owner.copy()
        o.claimed = [c.copy() for c in self.claimed]
        o.ticket_deck = self.ticket_deck.copy()
        o.tickets = [t.copy() for t in self.tickets]
        o.offers = [t.copy() for t in self.offers]
        o.offered = [t.copy() for t in self.offered]
        o.ticket_order = self.ticket_order
        o.player = self.player
        o.phase = self.phase
        o.last_round = self.last_round
        o.passes = self.passes
        o.first_card = self.first_card
        o.shuffle_seed = self.shuffle_seed
        o.draws = self.draws.copy()
        o.timeline = [t.copy() for t in self.timeline]
        o.epoch_sets = self.epoch_sets.copy()
        o._legal = self._legal
        o._over_scores = self._over_scores
        return o

    # --- scores ------------------------------------------------------------------
    def tickets_done(self, player: int) -> list[bool]:
        """Whether each of ``player``'s kept tickets is complete now (their cities joined by own routes)."""
        return scoring.tickets_done(self.board, self.claimed[player], self.tickets[player])

    def longest_paths(self) -> list[int]:
        return [scoring.longest_path(self.board, self.claimed[p]) for p in range(self.n)]

    def final_tally(self) -> dict[str, Any]:
        """Everything the final scoring counts, per player: route points, tickets completed and failed
        (and their points), longest path and bonus, total. Valid at any time (the score if the game ended now)."""
        if self._over_scores is not None and self.phase == OVER:
            return self._over_scores
        b = self.board
        longest = self.longest_paths()
        bonus_holders = []
        if self.game.longest_bonus and max(longest) > 0:
            top = max(longest)
            bonus_holders = [p for p in range(self.n) if longest[p] == top]
        players = []
        for p in range(self.n):
            done = self.tickets_done(p)
            gained = sum(int(b.ticket_points[t]) for t, d in zip(self.tickets[p], done) if d)
            lost = sum(int(b.ticket_points[t]) for t, d in zip(self.tickets[p], done) if not d)
            bonus = b.longest_bonus if p in bonus_holders else 0
            players.append({
                "routes": self.points[p], "tickets_done": sum(done), "tickets_failed": len(done) - sum(done),
                "ticket_points": gained, "ticket_penalty": lost, "longest": longest[p], "bonus": bonus,
                "score": self.points[p] + gained - lost + bonus,
            })
        tally = {"players": players, "bonus_holders": bonus_holders}
        if self.phase == OVER:
            self._over_scores = tally
        return tally

    def scores(self) -> list[int]:
        """Each player's points by the rules: routes, tickets (+/-), the longest-path bonus (official)."""
        return [p["score"] for p in self.final_tally()["players"]]

    def winners(self) -> list[int]:
        """The winners after the tie-breaks (most points, then most completed tickets, then the longest
        path bonus in the official game); empty until the end."""
        if self.phase != OVER:
            return []
        tally = self.final_tally()
        keys = [(p["score"], p["tickets_done"], p["bonus"] > 0) for p in tally["players"]]
        best = max(keys)
        return [p for p, key in enumerate(keys) if key == best]

    def returns(self) -> list[float]:
        out = [0.0] * self.n
        winners = self.winners()
        for p in winners:
            out[p] = 1.0 / len(winners)
        return out

    def statistics(self) -> dict[str, Any]:
        """Per-player facts of the final scoring for experiment tables (JSON ready)."""
        tally = self.final_tally()
        return {key: [p[key] for p in tally["players"]]
                for key in ("score", "routes", "tickets_done", "tickets_failed", "ticket_points", "ticket_penalty",
                            "longest", "bonus")} | {"trains_left": list(self.trains), "turns": len(self.history)}

    # --- labels ------------------------------------------------------------------
    def _claim_label(self, action: int) -> str:
        b = self.board
        t, c, k = decode_claim(action)
        if t >= b.num_tracks:
            return f"claim {action}"
        length = int(b.track_length[t])
        colour = b.colour_name(int(b.track_colour[t]))
        pay = []
        if c != NO_COLOUR and length - k > 0:
            pay.append(f"{length - k} {COLOURS[c] if c < 8 else '?'}")
        if k:
            pay.append(f"{k} locomotive{'s' if k > 1 else ''}")
        return f"claim {b.track_name(t)} {colour} {length} with {' + '.join(pay)}"

    def action_to_string(self, action: int) -> str:
        if 0 <= action < FACE_UP:
            c = self.faceup[action]
            return f"take face-up {CARD_NAMES[c]}" if c >= 0 else f"take face-up slot {action + 1}"
        if action == DRAW_DECK:
            return "draw from deck"
        if action == DRAW_TICKETS:
            return "draw tickets"
        if action == PASS:
            return "pass"
        if KEEP_BASE < action < CLAIM_BASE:
            mask = action - KEEP_BASE
            slots = [str(i + 1) for i in range(3) if mask >> i & 1]
            return f"keep ticket{'s' if len(slots) > 1 else ''} {'+'.join(slots)}"
        if CLAIM_BASE <= action < NUM_ACTIONS:
            return self._claim_label(action)
        return str(action)

    def string_to_action(self, text: str) -> int:
        """A move as :meth:`action_to_string` writes it (a plain hyphen may stand for the dash between
        two cities, spaces and case do not matter), or the action's number."""
        wanted = " ".join(text.replace("\u2013", "-").split()).lower()
        legal = self.legal_actions()
        if wanted.isdigit() and int(wanted) in legal:
            return int(wanted)
        for action in legal:
            if " ".join(self.action_to_string(action).replace("\u2013", "-").split()).lower() == wanted:
                return action
        shown = ", ".join(self.action_to_string(a) for a in legal[:12]) + (", ..." if len(legal) > 12 else "")
        raise IllegalActionError(f"{text!r} is not a legal move here (legal: {shown})")

    def action_info(self, action: int) -> dict[str, Any]:
        """What a board view needs to draw a legal move (sent only to the player who may make it)."""
        if 0 <= action < FACE_UP:
            return {"kind": "faceup", "slot": action, "card": CARD_NAMES[self.faceup[action]]}
        if action == DRAW_DECK:
            return {"kind": "deck"}
        if action == DRAW_TICKETS:
            return {"kind": "tickets"}
        if action == PASS:
            return {"kind": "pass"}
        if KEEP_BASE < action < CLAIM_BASE:
            mask = action - KEEP_BASE
            offer = self.offers[self.player]
            return {"kind": "keep", "mask": mask, "tickets": [t for i, t in enumerate(offer) if mask >> i & 1]}
        t, c, k = decode_claim(action)
        length = int(self.board.track_length[t])
        return {"kind": "claim", "track": t, "colour": COLOURS[c] if c < 8 else None,
                "cards": length - k if c < 8 else 0, "locomotives": k}

    # --- views -------------------------------------------------------------------
    def _public(self) -> str:
        """The public position in one line (the notation): everything every seat sees."""
        parts = [f"to_move={self.current_player()}", f"phase={PHASES[self.phase].replace(' ', '-')}",
                 "up=" + ",".join(CARD_CODES[c] if c >= 0 else "-" for c in self.faceup),
                 f"deck={len(self.deck)}", "disc=" + ",".join(map(str, self.discards)),
                 f"tix={len(self.ticket_deck)}", f"last={self.last_round}"]
        for p in range(self.n):
            parts.append(f"p{p}:tr={self.trains[p]},cards={sum(self.hands[p])},tix={len(self.tickets[p])},"
                         f"offer={len(self.offers[p])},routes={'.'.join(map(str, self.claimed[p]))}")
        return ";".join(parts)

    def notation(self) -> str:
        return self._public() + f";moves={len(self.history)}"

    def information_state_string(self, player: int | None = None) -> str:
        """What ``player`` knows: the actions so far, every card laid face up (in order), and its own
        blind draws and offered tickets; at the end everybody's tickets (they are scored in public)."""
        reveals = [card for _, dest, card in self.draws if dest < 0]
        parts = [self._public(), "h=" + ",".join(map(str, self.history)), "up=" + "".join(map(str, reveals))]
        if player is not None:
            own = [card for _, dest, card in self.draws if dest == player]
            parts.append(f"me={player}:{''.join(map(str, own))}:{','.join(map(str, self.offered[player]))}")
        if self.phase == OVER:
            parts.append("tickets=" + "/".join(",".join(map(str, t)) for t in self.tickets))
        return "|".join(parts)

    def resample(self, player: int, rng: Any) -> "TicketToRideState":
        """A state ``player`` cannot tell from this one, its hidden part drawn from ``rng``: the order of
        the deck, the cards each opponent drew blind (so its hand), the opponents' tickets and offers,
        and the order of future reshuffles. See :mod:`boardlab.games.tickettoride.hidden`."""
        from boardlab.games.tickettoride.hidden import resample

        return resample(self, player, rng)

    def redraw_unseen(self, rng: np.random.Generator) -> "TicketToRideState":
        """See :func:`boardlab.games.tickettoride.hidden.redraw_unseen`."""
        from boardlab.games.tickettoride.hidden import redraw_unseen

        return redraw_unseen(self, rng)

    def observation_tensor(self, player: int) -> np.ndarray:
        """See the module docstring (observation tensor): the public table and ``player``'s own cards
        and tickets, seats rotated so that ``player`` comes first."""
        b = self.board
        n = self.n
        tracks, tickets = b.num_tracks, b.num_tickets
        out = np.zeros(self.game.observation_tensor_shape()[0], dtype=np.float32)
        owners = np.asarray(self.owner)
        out[np.arange(tracks) * (n + 1) + np.where(owners < 0, 0, 1 + (owners - player) % n)] = 1.0
        at = tracks * (n + 1)
        kinds = b.deck.astype(np.float32)
        out[at: at + NUM_CARD_TYPES] = np.asarray(self.hands[player], dtype=np.float32) / kinds
        at += NUM_CARD_TYPES
        for slot, card in enumerate(self.faceup):
            if card >= 0:
                out[at + slot * NUM_CARD_TYPES + card] = 1.0
        at += FACE_UP * NUM_CARD_TYPES
        out[at: at + NUM_CARD_TYPES] = np.asarray(self.discards, dtype=np.float32) / kinds
        at += NUM_CARD_TYPES
        held = self.tickets[player]
        if held:
            out[at + np.asarray(held)] = 1.0
            done = [t for t, d in zip(held, self.tickets_done(player)) if d]
            if done:
                out[at + tickets + np.asarray(done)] = 1.0
        at += 2 * tickets
        for slot, ticket in enumerate(self.offers[player]):
            out[at + slot * tickets + ticket] = 1.0
        at += 3 * tickets
        out[at + self.phase] = 1.0
        at += len(PHASES)
        if self.phase == SECOND and self.first_card >= 0:
            out[at + self.first_card] = 1.0
        at += len(COLOURS)
        trains = float(b.trains)
        most_points = trains * max(float(b.route_points[k]) / k for k in range(1, len(b.route_points)))
        for k in range(n):
            seat = (player + k) % n
            if self.phase != OVER and self.player == seat:
                out[at] = 1.0
            out[at + 1] = self.trains[seat] / trains
            out[at + 2] = sum(self.hands[seat]) / b.num_cards
            out[at + 3] = len(self.tickets[seat]) / tickets
            out[at + 4] = len(self.offers[seat]) / 3
            out[at + 5] = self.points[seat] / most_points
            at += 6
        out[at] = len(self.deck) / b.num_cards
        out[at + 1] = len(self.ticket_deck) / tickets
        if self.last_round >= 0:
            out[at + 2] = 1.0
            out[at + 3] = self.last_round / n
        out[at + 4] = min(self.passes, n) / n
        at += 5
        if self.game.plan_entries:
            self._plan(player, out[at:])
        assert at + self.game.plan_entries == len(out)
        return out

    def _plan(self, player: int, out: np.ndarray) -> None:
        """The entries of ``features=plan`` (:mod:`boardlab.games.tickettoride.plan`) into ``out``."""
        from boardlab.games.tickettoride.plan import plan_features  # numba: imported on first use

        b = self.board
        held = np.asarray(self.tickets[player], dtype=np.int64)
        plan_features(np.asarray(self.owner, dtype=np.int64), player, self.game.doubles_open, self.trains[player], held,
                      np.asarray(self.tickets_done(player), dtype=np.bool_), np.asarray(self.offers[player], dtype=np.int64),
                      b.track_length, b.track_twin, b.track_a, b.track_b, b.ticket_a, b.ticket_b, b.ticket_points,
                      b.num_cities, b.trains, out)

    def ticket_view(self, ticket: int, done: bool | None = None) -> dict[str, Any]:
        b = self.board
        view = {"id": int(ticket), "from": b.cities[b.ticket_a[ticket]], "to": b.cities[b.ticket_b[ticket]],
                "a": int(b.ticket_a[ticket]), "b": int(b.ticket_b[ticket]), "points": int(b.ticket_points[ticket])}
        if done is not None:
            view["done"] = bool(done)
        return view

    def end_description(self) -> str | None:
        if self.phase != OVER:
            return None
        if self.last_round == 0:
            return "the last round after a player's trains ran down to 2 or fewer is over; final scoring"
        return "nobody could draw, claim or take tickets any more; final scoring"

    def result(self) -> str:
        if self.phase != OVER:
            return "in play"
        names = [self.game.player_name(p) for p in self.winners()]
        return f"{names[0]} wins" if len(names) == 1 else "tie between " + ", ".join(names)

    def observation(self, player: int | None = None) -> dict[str, Any]:
        """What ``player`` sees (None: a spectator): the board and the claimed routes, the face-up row,
        the counts of every pile, each player's trains, cards, tickets and route points, and its own
        hand, tickets and offer. Never the deck order, an opponent's cards or tickets, or the seed.
        At the end every ticket is shown with the final scoring."""
        b = self.board
        over = self.phase == OVER
        tally = self.final_tally() if over else None
        players = []
        for p in range(self.n):
            entry = {"trains": self.trains[p], "cards": sum(self.hands[p]), "tickets": len(self.tickets[p]),
                     "offer": len(self.offers[p]), "routes": self.points[p], "claimed": list(self.claimed[p])}
            if tally is not None:
                entry.update(tally["players"][p])
                done = self.tickets_done(p)
                entry["ticket_list"] = [self.ticket_view(t, d) for t, d in zip(self.tickets[p], done)]
            players.append(entry)
        board: dict[str, Any] = {
            "map": b.view(),
            "variant": self.game.variant,
            "owners": list(self.owner),
            "doubles_open": self.game.doubles_open,
            "phase": PHASES[self.phase],
            "face_up": [CARD_NAMES[c] if c >= 0 else None for c in self.faceup],
            "deck": len(self.deck),
            "discards": sum(self.discards),
            "discard_counts": dict(zip(CARD_NAMES, self.discards)),
            "tickets_left": len(self.ticket_deck),
            "players": players,
            "last_round": self.last_round if self.last_round >= 0 else None,
            "first_card": CARD_NAMES[self.first_card] if self.first_card >= 0 else None,
            "viewer": player,
        }
        if player is not None:
            done = self.tickets_done(player)
            board["hand"] = dict(zip(CARD_NAMES, self.hands[player]))
            board["tickets"] = [self.ticket_view(t, d) for t, d in zip(self.tickets[player], done)]
            board["offer"] = [self.ticket_view(t) for t in self.offers[player]]
            board["keep_at_least"] = (min(len(self.offers[player]), 2 if self.phase == SETUP else 1)
                                      if self.offers[player] else 0)
        return {
            "to_move": self.current_player(),
            "text": self.text(player),
            "board": board,
            "scores": self.scores() if over else list(self.points),
            "result": self.result(),
        }

    def text(self, player: int | None = None) -> str:
        """The position for people as ``player`` sees it (None: the public view)."""
        b = self.board
        up = " ".join(CARD_NAMES[c] if c >= 0 else "-" for c in self.faceup)
        lines = [f"face up: {up} | deck {len(self.deck)}, discards {sum(self.discards)}, tickets {len(self.ticket_deck)}"]
        for p in range(self.n):
            mark = "*" if p == self.current_player() else " "
            routes = ", ".join(b.track_name(t) for t in self.claimed[p]) or "-"
            lines.append(f"{self.game.player_name(p)}{mark} trains {self.trains[p]:2d}  cards {sum(self.hands[p]):2d}  "
                         f"tickets {len(self.tickets[p])}  points {self.points[p]:3d}  routes: {routes}")
        if player is not None:
            hand = ", ".join(f"{n} {CARD_NAMES[c]}" for c, n in enumerate(self.hands[player]) if n) or "no cards"
            lines.append(f"your hand: {hand}")
            done = self.tickets_done(player)
            lines.append("your tickets: " + (", ".join(f"{b.ticket_name(t)}{' done' if d else ''}"
                                                       for t, d in zip(self.tickets[player], done)) or "-"))
            if self.offers[player]:
                lines.append("offered: " + ", ".join(f"{i + 1}. {b.ticket_name(t)}" for i, t in enumerate(self.offers[player])))
        if self.phase == OVER:
            lines.append(f"game over: {self.result()}; scores {self.scores()}")
        elif self.last_round >= 0:
            lines.append(f"last round: {self.last_round} turn{'s' if self.last_round != 1 else ''} left")
        if self.phase != OVER:
            lines.append(f"{self.game.player_name(self.player)} to move ({PHASES[self.phase]})")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text(None)

    # --- invariants (tests and the 100,000-game check) ----------------------------
    def check_invariants(self) -> None:
        """Raise AssertionError when the state breaks a rule: cards, trains and tickets conserved,
        no negative count, at most 2 face-up locomotives unless no clean row can be laid."""
        b = self.board
        total = [self.discards[k] + sum(h[k] for h in self.hands) for k in range(9)]
        for c in self.deck:
            total[c] += 1
        for c in self.faceup:
            if c >= 0:
                total[c] += 1
        expected = [int(x) for x in b.deck]
        assert total == expected, f"cards by kind {total} != {expected}"
        assert all(x >= 0 for h in self.hands for x in h) and all(x >= 0 for x in self.discards), "a negative count"
        for p in range(self.n):
            used = sum(int(b.track_length[t]) for t in self.claimed[p])
            assert self.trains[p] + used == b.trains and self.trains[p] >= 0, f"trains of player {p}"
            assert sorted(self.claimed[p]) == sorted(t for t in range(b.num_tracks) if self.owner[t] == p)
        all_tickets = self.ticket_deck + [t for p in range(self.n) for t in self.tickets[p] + self.offers[p]]
        assert sorted(all_tickets) == list(range(b.num_tickets)), "tickets not conserved"
        if self.faceup.count(LOCO) >= 3:
            shown = [c for c in self.faceup if c >= 0]
            size = min(FACE_UP, len(shown) + self._supply())
            non_loco = sum(1 for c in shown if c != LOCO) + sum(1 for c in self.deck if c != LOCO) + sum(self.discards[:8])
            assert non_loco < size - 2, f"3 face-up locomotives left although a clean row can be laid: {self.faceup}"
        if self._supply() > 0:
            assert -1 not in self.faceup, "an empty face-up slot while cards remain"
