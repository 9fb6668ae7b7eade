"""The Ticket to Ride study's algorithmic player (Łabno 2018) as an agent: ``ttr-algorithmic``.

At each decision it prepares its turn (:func:`boardlab.bots.tickettoride.planning.prepare`):
the cheapest route in trains of each of its tickets (ties: more route points;
:func:`scipy.sparse.csgraph.dijkstra`), the *goal* links those routes still
need, the *possible* claims (goal routes, routes of 5 or 6, any route when the
goal is empty), the *fitting* ones (goal routes among them) and the *missing*
ones (goal routes it cannot pay for yet). Then it follows the study's four
flowcharts (their draw.io sources are in the study's repository;
docs/tickettoride.md gives each box, and each place where this player decides
what they leave open, with measurements):

* **action type**: near the end (the last round, or a player with at most 4
  trains) it claims a goal route or else the longest route it can pay for.
  With an unfinished ticket it *accumulates points*: claim when a possible
  route exists, else draw cards, else draw tickets. With every ticket finished:
  draw tickets when it holds at least 8 cards and more than 8 trains, every
  opponent has at least 6 trains and tickets are left; else claim when it holds
  5 cards of one colour and can claim; else draw cards unless the end is near;
  else accumulate points. When nothing of that is possible it claims what it can
  (the study skipped its turn, which the rules forbid when a claim is possible);
* **tickets kept**: the subset (at least the minimum) whose routes add the
  fewest trains to what its unfinished tickets need, ties to the most points;
  subsets that fit in its trains first;
* **cards drawn**: from the deck when every ticket is done or more than 3
  colours are missing; a face-up card of a missing colour when fewer than 4
  cards are missing (``faceup=wanted``: whenever one lies there); a face-up
  locomotive as the first card when exactly one card is missing; else the deck;
  the cards missing are counted against the hand, a gray route needing cards of
  one colour;
* **route claimed**: the shortest fitting route, else the longest possible one;
  paid with as few locomotives as possible and, on gray routes, the colour the
  rest of the goal needs least, then the one it holds most. A route off the goal
  is possible only with spare cards (``spare=false``: with any cards, as the
  study's player did, which starves its tickets: docs/tickettoride.md).

It is deterministic and reads only what its seat may see: its own hand and
tickets and the public board. ``statistics()`` counts *forbidden* decisions (a
flowchart decision the rules do not allow at that moment; the study's games
ended there): the player then takes the first legal fallback; none happen in
the 1,000-game experiment. Its compiled twin (:mod:`boardlab.bots.tickettoride.compiled`)
plays the same moves, and the arena uses it through :meth:`compiled_match`.
"""

from __future__ import annotations

from typing import Any

from boardlab.agents.base import Agent
from boardlab.bots.tickettoride.planning import Plan, Planner, best_claim, choose_tickets, prepare, shortfall
from boardlab.core.game import State
from boardlab.core.params import Option
from boardlab.games.tickettoride.map import LOCO
from boardlab.games.tickettoride.state import (
    DRAW_DECK,
    DRAW_TICKETS,
    KEEP,
    KEEP_BASE,
    PASS,
    SECOND,
    SETUP,
    TicketToRide,
    TicketToRideState,
    decode_claim,
)

_planners: dict[str, Planner] = {}
#: a player with this many trains or fewer may end the game on its next turn
ENDGAME = 4


def planner_for(state: TicketToRideState) -> Planner:
    board = state.board
    planner = _planners.get(board.name)
    if planner is None:
        planner = _planners[board.name] = Planner(board)
    return planner


class TTRAlgorithmicAgent(Agent):
    name = "ttr-algorithmic"
    summary = "the Ticket to Ride study's algorithmic player: ticket routes by shortest paths, the study's flowcharts"
    games = ("tickettoride",)
    options = {
        "seed": Option("seed", int, None, "no effect (the player is deterministic); tells several of them apart in a tournament"),
        "faceup": Option("faceup", str, "study", "when to take a face-up card of a missing colour: study "
                         "(fewer than 4 cards missing) or wanted (whenever one lies there)",
                         lambda v: None if v in ("study", "wanted") else "must be study or wanted"),
        "endgame": Option("endgame", bool, True, "near the end (the last round, or a player with at most 4 trains) "
                          "claim whatever route pays most instead of drawing"),
        "spare": Option("spare", bool, True, "a route off the goal (5 or 6 long) only with spare cards: no locomotive, "
                        "none of a colour the goal still needs (false: the study's player, any cards)"),
        "claim": Option("claim", str, "shortest", "which fitting route first: shortest (the study) or longest",
                        lambda v: None if v in ("shortest", "longest") else "must be shortest or longest"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.forbidden = 0
        self.decisions = 0

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        self.forbidden = 0
        self.decisions = 0

    @classmethod
    def compiled_match(cls, game, agents, seed: int):
        """The whole game in compiled code (:mod:`boardlab.bots.tickettoride.compiled`): the same moves as
        :meth:`step` (the tests compare them), some fifty times faster."""
        from boardlab.agents.base import CompiledMatch
        from boardlab.bots.tickettoride.compiled import compiled_player

        if not isinstance(game, TicketToRide):
            return None
        options = tuple(tuple(sorted((k, v) for k, v in a.config.items() if k != "seed")) for a in agents)
        played = compiled_player(game, options).play(seed)
        stats = [{"decisions": d, "forbidden": f} for d, f in zip(played.decisions, played.forbidden)]
        return CompiledMatch(played.actions, stats)

    def statistics(self) -> dict[str, int]:
        """Decisions made and forbidden decisions (a flowchart choice the rules did not allow)."""
        return {"decisions": self.decisions, "forbidden": self.forbidden}

    # --- the decision -----------------------------------------------------------------
    def step(self, state: State) -> int:
        assert isinstance(state, TicketToRideState)
        self.decisions += 1
        legal = state.legal_actions()
        action = self.choose(state)
        if action not in legal:
            self.forbidden += 1
            action = self._fallback(state, legal)
        return action

    def choose(self, state: TicketToRideState) -> int:
        """The flowcharts' action (which the rules may not allow; :meth:`step` checks)."""
        p = state.current_player()
        planner = planner_for(state)
        phase = state.phase
        if phase == SETUP or phase == KEEP:
            least = 2 if phase == SETUP else 1
            offer = state.offers[p]
            return KEEP_BASE + choose_tickets(planner, state, p, offer, min(least, len(offer)))
        plan = self._prepared(state, planner, p)
        if phase == SECOND:
            return self._card(state, plan, second=True)
        return self._turn(state, plan, planner)

    def _prepared(self, state: TicketToRideState, planner: Planner, p: int, spare: bool | None = None) -> Plan:
        """The turn preparation, recomputed at every decision of a turn (a card drawn changes the hand)."""
        return prepare(planner, state, p, self.config["spare"] if spare is None else spare)

    def _turn(self, state: TicketToRideState, plan: Plan, planner: Planner) -> int:
        p = plan.player
        hand = state.hands[p]
        can_draw = state._supply() > 0 or any(c >= 0 for c in state.faceup)
        tickets_left = bool(state.ticket_deck)
        others = [state.trains[q] for q in range(state.n) if q != p]
        near_end = state.last_round >= 0 or min(others) <= ENDGAME or state.trains[p] <= ENDGAME
        if self.config["endgame"] and near_end:
            # the game may end before its next turn: cards left in hand are worth nothing then
            claim = self._last_claim(state, plan, planner)
            if claim is not None:
                return claim
        if not plan.active:
            if sum(hand) >= 8 and state.trains[p] > 8 and min(others) >= 6 and tickets_left:
                return DRAW_TICKETS
            if max(hand[:LOCO]) >= 5 and plan.possible:
                return self._claim(state, plan, planner)
            if can_draw and not near_end:
                return self._card(state, plan, second=False)
        # accumulate points
        if plan.possible:
            return self._claim(state, plan, planner)
        if can_draw:
            return self._card(state, plan, second=False)
        if tickets_left:
            return DRAW_TICKETS
        # nothing the flowchart asks for can be done (no card left anywhere, no ticket): the study's
        # player would skip its turn, which the rules allow only when nothing else is; claim instead
        claim = self._last_claim(state, plan, planner)
        return PASS if claim is None else claim

    def _last_claim(self, state: TicketToRideState, plan: Plan, planner: Planner) -> int | None:
        """Near the end: a goal route if one can be paid, else the route worth most that it can pay for."""
        if plan.fitting:
            return self._claim(state, plan, planner)
        p = plan.player
        options = [best_claim(planner, state, p, link, plan) for link, s in enumerate(plan.status) if s == 0]
        options = [a for a in options if a is not None]
        if not options:
            return None
        return max(options, key=lambda a: planner.track_length[decode_claim(a)[0]])

    def _claim(self, state: TicketToRideState, plan: Plan, planner: Planner) -> int:
        if plan.fitting:
            pool = plan.fitting
            longest = self.config["claim"] == "longest"
        else:
            pool = plan.possible
            longest = True
        lengths = [planner.track_length[decode_claim(a)[0]] for a in pool]
        target = max(lengths) if longest else min(lengths)
        return pool[lengths.index(target)]

    def _card(self, state: TicketToRideState, plan: Plan, second: bool) -> int:
        p = plan.player
        faceup = state.faceup
        supply = state._supply() > 0
        takeable = [k for k, c in enumerate(faceup) if c >= 0 and not (second and c == LOCO)]
        if not plan.active or not plan.missing:
            return DRAW_DECK if supply else self._any_faceup(state, takeable)
        short = shortfall(planner_for(state), state, p, plan.missing)
        wanted = [c for c in range(8) if short[c] > 0]
        missing = sum(short)
        if missing == 0:
            return DRAW_DECK if supply else self._any_faceup(state, takeable)
        if len(wanted) > 3 and supply:
            return DRAW_DECK
        # the face-up card of the most missing colour
        order = sorted(wanted, key=lambda c: -short[c])
        if missing < 4 or self.config["faceup"] == "wanted":
            for c in order:
                for k in takeable:
                    if faceup[k] == c:
                        return self._leftmost(faceup, k)
        if missing == 1 and not second:
            for k in takeable:
                if faceup[k] == LOCO:
                    return self._leftmost(faceup, k)
        if supply:
            return DRAW_DECK
        return self._any_faceup(state, takeable)

    @staticmethod
    def _leftmost(faceup: list[int], k: int) -> int:
        return faceup.index(faceup[k])

    def _any_faceup(self, state: TicketToRideState, takeable: list[int]) -> int:
        """The leftmost face-up card, a locomotive last, when nothing can be drawn blind (the study took
        one at random; this player is deterministic, so that its compiled twin plays the same games)."""
        non_loco = [k for k in takeable if state.faceup[k] != LOCO]
        pool = non_loco or takeable
        if not pool:
            return DRAW_DECK  # nothing at all: the caller's fallback decides
        return pool[0]

    def _fallback(self, state: TicketToRideState, legal: list[int]) -> int:
        """After a forbidden decision: claim the longest route it can pay for, else a card, else tickets."""
        planner = planner_for(state)
        p = state.current_player()
        claims = [a for a in legal if a >= 15]
        if claims:
            plan = self._prepared(state, planner, p, spare=False)
            options = [best_claim(planner, state, p, link, plan) for link in range(planner.board.num_links)]
            options = [a for a in options if a is not None and a in claims]
            if options:
                return max(options, key=lambda a: planner.track_length[decode_claim(a)[0]])
        for preferred in (DRAW_DECK, *range(5), DRAW_TICKETS, PASS):
            if preferred in legal:
                return preferred
        return legal[0]
