"""Determinisation: a Ticket to Ride world one seat cannot tell from the true one.

What a seat sees: every public action, every card laid face up (in order),
which player drew blind when, the face-up cards each player took, the cards
each player paid for each route, the make-up of every deck (the 110 cards at
the start; after a reshuffle, the discards that were shuffled, which everybody
saw being paid), its own blind draws and every ticket offered to it.

:func:`resample` redraws the rest from exactly that, and from nothing else:

* **cards**: the deck is a sequence of *epochs* (the first shuffle, then one per
  reshuffle of the discards). In each epoch the cards the seat has not seen are
  the epoch's make-up minus the cards laid face up and the seat's own draws;
  they went to the opponents' blind draws of that epoch and, in the current
  epoch, to the cards still in the deck. They are dealt again at random, with
  one constraint: every route an opponent paid for must have been payable when
  it was claimed. Walking each opponent's history in order (blind draws,
  face-up cards taken, cards paid), the colours an opponent must have drawn
  blind by each payment are forced first (onto its earlier blind draws, from an
  epoch that still holds that colour), then the rest is shuffled. The opponent's
  hand is what it drew minus what it paid.
* **tickets**: a ticket's identity is fixed by its position in the first
  shuffle of the ticket deck; the flow of positions (offers from the top, kept
  or returned to the bottom) is public. The positions the seat was offered keep
  their tickets, the others get the unseen tickets at random, and every
  ticket in the deck, in a hand or on offer follows its position.
* **reshuffles to come**: a fresh shuffle seed.

The forced deal can fail only when several opponents need the same scarce
colour from small late epochs; it is retried with random choices, and in the
end dealt from the epochs pooled together (hands and totals stay exact, the
make-up of a late epoch may then differ from what the seat saw).
:data:`stats` counts those pooled deals.

Once the game is over every ticket has been scored in public and the future is
empty: a redraw is a copy without the seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardlab.games.tickettoride.map import LOCO

#: how often the forced deal needed a retry or the pooled fallback (for tests and curiosity)
stats = {"resamples": 0, "retries": 0, "pooled": 0}
ATTEMPTS = 8
#: nodes the forced deal may visit before it gives up on exact epochs
BUDGET = 5000


def _generator(rng: Any) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)):
        return np.random.default_rng(int(rng))
    # random.Random and the like
    return np.random.default_rng(rng.getrandbits(63))


def resample(state, player: int, rng: Any):
    rng = _generator(rng)
    stats["resamples"] += 1
    other = state.clone()
    other.seed = None
    other._legal = None
    other._over_scores = None
    other.shuffle_seed = int(rng.integers(2**62))
    if state.phase == 4:  # OVER: everything that matters has been shown
        return other
    _redraw_tickets(state, other, set(state.offered[player]), rng)
    _redraw_cards(state, other, player, rng)
    return other


class PackedWorlds:
    """Worlds ``player`` cannot tell from ``state``, drawn as :func:`resample` draws them but written
    straight into the kernel's array (:func:`boardlab.games.tickettoride.kernel.pack`), for a search
    that draws one per simulation: what every draw keeps (the unseen cards of each epoch, the colours each
    opponent must have drawn, the tickets' positions) is worked out once. From the same generator
    ``draw`` gives ``pack(resample(state, player, rng))``, and beside it what each opponent privately
    knows in that world (its blind draws and the tickets offered to it: with the public part, which
    every world shares, its information state)."""

    def __init__(self, state, player: int) -> None:
        from boardlab.games.tickettoride.kernel import pack

        if state.phase == 4:
            raise ValueError("PackedWorlds: the game is over, nothing is hidden")
        self.state = state
        self.base = pack(state)
        self.tickets = _TicketProblem(state, set(state.offered[player]))
        self.cards = _CardProblem(state, player)
        self.blind = {q: [i for i, (_, dest, _) in enumerate(state.draws) if dest == q] for q in self.cards.opponents}

    def draw(self, rng: np.random.Generator) -> tuple[np.ndarray, dict[int, tuple[tuple[int, ...], tuple[int, ...]]]]:
        """One world's kernel array, and per opponent its blind draws' cards and offered tickets there."""
        from boardlab.games.tickettoride.kernel import DECK, HANDS, OFFERS, SEED, TDECK, TICKETS

        stats["resamples"] += 1
        state, S = self.state, self.base.copy()
        S[SEED] = np.uint64(int(rng.integers(2**62))).view(np.int64)
        _, mapping = self.tickets.mapping(rng)
        S[TDECK:TDECK + len(state.ticket_deck)] = [mapping[t] for t in state.ticket_deck]
        for p in range(state.n):
            S[TICKETS + 30 * p:TICKETS + 30 * p + len(state.tickets[p])] = [mapping[t] for t in state.tickets[p]]
            S[OFFERS + 3 * p:OFFERS + 3 * p + len(state.offers[p])] = [mapping[t] for t in state.offers[p]]
        assignment = self.cards.deal(rng)
        slots = self.cards.deck_slots
        S[DECK:DECK + slots] = [assignment[j - slots] for j in range(slots)]  # the top card last
        private = {}
        for q in self.cards.opponents:
            S[HANDS + 9 * q:HANDS + 9 * q + 9] = self.cards.hand(q, assignment)
            private[q] = (tuple(assignment[i] for i in self.blind[q]), tuple(mapping[t] for t in state.offered[q]))
        return S, private


def redraw_unseen(state, rng: Any):
    """What no seat has seen drawn afresh (for an undo that must not show the future): the order
    of the deck, the tickets never offered to anybody, and the reshuffles to come. Every hand,
    offer and face-up card stays; ``seed`` is kept."""
    rng = _generator(rng)
    other = state.clone()
    other._legal = None
    other.shuffle_seed = int(rng.integers(2**62))
    if state.phase == 4:  # OVER
        return other
    _redraw_tickets(state, other, {t for offered in state.offered for t in offered}, rng)
    other.deck = [int(c) for c in rng.permutation(np.asarray(state.deck, dtype=np.int64))]
    return other


# --- tickets ------------------------------------------------------------------------
class _TicketProblem:
    """What a redraw of the tickets not in ``seen`` keeps: the positions whose tickets are known, and the
    tickets to deal to the others."""

    def __init__(self, state, seen: set[int]) -> None:
        order = self.order = state.ticket_order
        self.position = {ticket: i for i, ticket in enumerate(order)}
        known = set(self.position[t] for t in seen)
        self.unknown_positions = [i for i in range(len(order)) if i not in known]
        self.unseen = [t for t in range(len(order)) if t not in seen]

    def mapping(self, rng: np.random.Generator) -> tuple[list[int], dict[int, int]]:
        """A new order of the first shuffle and each ticket's new identity (one permutation from ``rng``)."""
        new_order = list(self.order)
        shuffled = rng.permutation(len(self.unseen))
        for pos, k in zip(self.unknown_positions, shuffled):
            new_order[pos] = self.unseen[int(k)]
        return new_order, {ticket: new_order[self.position[ticket]] for ticket in self.order}


def _redraw_tickets(state, other, seen: set[int], rng: np.random.Generator) -> None:
    """Every ticket not in ``seen`` gets one of the unseen tickets, position by position (see the module docstring)."""
    new_order, mapping = _TicketProblem(state, seen).mapping(rng)
    other.ticket_order = new_order
    other.ticket_deck = [mapping[t] for t in state.ticket_deck]
    other.tickets = [[mapping[t] for t in held] for held in state.tickets]
    other.offers = [[mapping[t] for t in offer] for offer in state.offers]
    other.offered = [[mapping[t] for t in offer] for offer in state.offered]


# --- cards --------------------------------------------------------------------------
class _CardProblem:
    """What a redraw of the cards ``player`` has not seen keeps (see the module docstring): per deck epoch
    the unseen cards and the places they went to, and the colours each opponent must have drawn blind."""

    def __init__(self, state, player: int) -> None:
        self.state = state
        epochs = len(state.epoch_sets)
        # unseen cards of each epoch, and the slots they went to (opponents' blind draws, the deck's rest)
        self.pools = [list(s) for s in state.epoch_sets]
        self.slots: list[list[int]] = [[] for _ in range(epochs)]
        for i, (epoch, dest, card) in enumerate(state.draws):
            if dest < 0 or dest == player:
                self.pools[epoch][card] -= 1
            else:
                self.slots[epoch].append(i)
        # the deck's rest belongs to the current epoch; slot ids -1 - k (k-th from the top)
        self.deck_slots = len(state.deck)
        self.slots[state.epoch].extend(-1 - k for k in range(self.deck_slots))
        self.opponents = [q for q in range(state.n) if q != player]
        self.units = _requirements(state, self.opponents)
        # three face-up locomotives left in place say that no clean row could be laid: keep it so
        self.stuck = state.faceup.count(LOCO) >= 3

    def deal(self, rng: np.random.Generator) -> dict[int, int]:
        """A card for every unseen place: blind draw ``i`` (its index in ``state.draws``) or the deck's
        ``k``-th card from the top (``-1 - k``)."""
        state, pools, slots = self.state, self.pools, self.slots
        assignment = None
        for attempt in range(ATTEMPTS):
            if attempt:
                stats["retries"] += 1
            forced = _force(state, self.units, [p.copy() for p in pools], rng)
            if forced is None:
                continue  # a fresh search in another random order often finds what a deep one misses
            assignment = _deal(pools, slots, forced, rng)
            if not self.stuck or not _clean_row_possible(state, assignment, self.deck_slots):
                break
            assignment = None
        if assignment is None:
            stats["pooled"] += 1
            forced = _force(state, self.units, [p.copy() for p in pools], rng, pooled=True)
            assignment = _deal_pooled(pools, slots, forced, rng)
        return assignment

    def hand(self, q: int, assignment: dict[int, int]) -> list[int]:
        """Opponent ``q``'s hand under ``assignment``: what it drew minus what it paid."""
        hand = [0] * 9
        for event in self.state.timeline[q]:
            kind = event[0]
            if kind == "h":
                hand[assignment[event[1]]] += 1
            elif kind == "k":
                hand[event[1]] += 1
            else:
                for c, n in enumerate(event[1]):
                    hand[c] -= n
        if min(hand) < 0:  # cannot happen: the forced deal pays for every route
            raise AssertionError(f"resample gave player {q} the hand {hand}")
        return hand


def _redraw_cards(state, other, player: int, rng: np.random.Generator) -> None:
    problem = _CardProblem(state, player)
    assignment = problem.deal(rng)
    draws = state.draws
    new_draws = list(draws)
    for i, card in assignment.items():
        if i >= 0:
            epoch, dest, _ = draws[i]
            new_draws[i] = (epoch, dest, card)
    other.draws = new_draws
    top = [assignment[-1 - k] for k in range(problem.deck_slots)]
    other.deck = top[::-1]  # the deck list keeps its top card last
    for q in problem.opponents:
        other.hands[q] = problem.hand(q, assignment)


def _clean_row_possible(state, assignment: dict[int, int], deck_slots: int) -> bool:
    shown = [c for c in state.faceup if c >= 0]
    size = min(len(state.faceup), len(shown) + deck_slots + sum(state.discards))
    non_loco = sum(1 for c in shown if c != LOCO) + sum(state.discards[:LOCO])
    non_loco += sum(1 for k in range(deck_slots) if assignment[-1 - k] != LOCO)
    return non_loco >= size - 2


def _requirements(state, opponents: list[int]) -> list[tuple[int, int, list[int]]]:
    """The blind draws each opponent must have had of each colour: one ``(colour, deadline, slots)``
    per card, where ``slots`` are the opponent's blind draws (in order) and only the first
    ``deadline`` of them came before the payment that needs the card."""
    units = []
    for q in opponents:
        taken = [0] * 9      # face-up cards taken so far
        paid = [0] * 9       # cards paid so far
        needed = [0] * 9     # blind draws of each colour needed so far
        slots: list[int] = []
        for event in state.timeline[q]:
            kind = event[0]
            if kind == "h":
                slots.append(event[1])
            elif kind == "k":
                taken[event[1]] += 1
            else:
                for c in range(9):
                    paid[c] += event[1][c]
                    while paid[c] - taken[c] > needed[c]:
                        needed[c] += 1
                        units.append((c, len(slots), slots))
    return units


def _force(state, units, pools: list[list[int]], rng: np.random.Generator,
           pooled: bool = False) -> dict[int, int] | None:
    """Colours forced on opponents' blind draws so that every payment was possible (a depth-first
    search: each needed card comes from an epoch that still holds its colour, on the latest free
    blind draw of that epoch before its deadline), or None when none is found within the search's
    budget. ``pools`` is consumed."""
    draws = state.draws
    forced: dict[int, int] = {}
    if pooled:
        total = [sum(p[c] for p in pools) for c in range(9)]
        for c, deadline, slots in units:
            free = [i for i in slots[:deadline] if i not in forced]
            if total[c] <= 0 or not free:  # cannot happen: the true deal is one solution
                raise AssertionError("no blind draw left for a payment")
            forced[free[-1]] = c
            total[c] -= 1
        return forced
    budget = [BUDGET]

    def place(u: int) -> bool:
        if u == len(units):
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        c, deadline, slots = units[u]
        latest: dict[int, int] = {}
        for i in slots[:deadline]:
            if i not in forced and pools[draws[i][0]][c] > 0:
                latest[draws[i][0]] = i
        options = list(latest.values())
        for k in (rng.permutation(len(options)) if len(options) > 1 else range(len(options))):
            i = options[int(k)]
            epoch = draws[i][0]
            forced[i] = c
            pools[epoch][c] -= 1
            if place(u + 1):
                return True
            del forced[i]
            pools[epoch][c] += 1
        return False

    return forced if place(0) else None


def _deal(pools: list[list[int]], slots: list[list[int]], forced: dict[int, int],
          rng: np.random.Generator) -> dict[int, int]:
    assignment: dict[int, int] = {}
    for epoch, epoch_slots in enumerate(slots):
        rest = list(pools[epoch])
        open_slots = []
        for i in epoch_slots:
            if i in forced:
                assignment[i] = forced[i]
                rest[forced[i]] -= 1
            else:
                open_slots.append(i)
        cards = np.repeat(np.arange(9), rest)
        if len(cards) != len(open_slots) or min(rest) < 0:
            raise AssertionError(f"epoch {epoch}: {len(cards)} unseen cards for {len(open_slots)} places")
        for i, card in zip(open_slots, rng.permutation(cards)):
            assignment[i] = int(card)
    return assignment


def _deal_pooled(pools: list[list[int]], slots: list[list[int]], forced: dict[int, int],
                 rng: np.random.Generator) -> dict[int, int]:
    rest = [sum(p[c] for p in pools) for c in range(9)]
    assignment: dict[int, int] = {}
    open_slots = []
    for epoch_slots in slots:
        for i in epoch_slots:
            if i in forced:
                assignment[i] = forced[i]
                rest[forced[i]] -= 1
            else:
                open_slots.append(i)
    cards = np.repeat(np.arange(9), rest)
    for i, card in zip(open_slots, rng.permutation(cards)):
        assignment[i] = int(card)
    return assignment


__all__ = ["PackedWorlds", "resample", "stats"]
