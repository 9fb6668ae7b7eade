"""The study's neural player as an agent: ``ttr-net`` (torch is imported only to read the model file).

At the first decision of each of its turns the network picks the *type* of
action from the 26 features (:mod:`boardlab.bots.tickettoride.features`): pass, draw
cards, draw tickets or claim. The concrete card, route and tickets come from
the algorithmic player's own flowcharts, as in the study; every other decision
(the second card, which tickets to keep) is the algorithmic player's.

Types the rules do not allow now are masked (``mask=true``, the default): the
agent takes the allowed type the network rates highest, so it never makes a
forbidden move. ``statistics()`` still counts the turns where the unmasked
network would have chosen a forbidden type (``unmasked_forbidden``: the study's
"forbidden moves", after which its games stopped). With ``mask=false`` such a
turn is a forbidden decision (``forbidden``) and the algorithmic player's
fallback plays instead (the game goes on, as the arena needs it to).

The weights are read once per file with ``torch.load(weights_only=True)`` and
played with numpy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from boardlab.bots.tickettoride.algorithmic import TTRAlgorithmicAgent, planner_for
from boardlab.bots.tickettoride.features import (
    CARDS_CLASS,
    CLAIM_CLASS,
    PASS_CLASS,
    TICKETS_CLASS,
    features,
    legal_classes,
)
from boardlab.core.files import load_once_per_version
from boardlab.core.game import Game, State
from boardlab.core.params import Option
from boardlab.games.tickettoride.state import (
    CLAIM_BASE,
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    TURN,
    TicketToRideState,
)

#: the committed model (docs/tickettoride-classifier.md gives the command that made it)
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "ttr_net.pt"

_WEIGHTS: dict[tuple[str, int, int], list[tuple[np.ndarray, np.ndarray]]] = {}


def load_weights(path: str | Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network's layers as numpy arrays, read once per file version (path, size, mtime)."""
    def read(file: Path) -> list[tuple[np.ndarray, np.ndarray]]:
        from boardlab.bots.tickettoride.network import load_model  # torch, only when a network is read

        return load_model(file).numpy_weights()

    return load_once_per_version(_WEIGHTS, Path(path), read, f"ttr-net: no model file at {path}")


def logits(weights: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    h = np.asarray(x, dtype=np.float64)
    for i, (w, b) in enumerate(weights):
        h = h @ w.T + b
        if i < len(weights) - 1:
            h = np.maximum(h, 0.0)
    return h


class TTRNetAgent(TTRAlgorithmicAgent):
    name = "ttr-net"
    summary = "the Ticket to Ride study's classifier (26 features, 180-160, 4 action types) with the algorithm's moves"
    games = ("tickettoride",)
    options = {
        "path": Option("path", str, None, f"model file (default: the committed {DEFAULT_MODEL.name})"),
        "mask": Option("mask", bool, True, "take the best action type the rules allow (false: a forbidden type is "
                       "counted and the algorithmic player's fallback plays)"),
        **TTRAlgorithmicAgent.options,
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.weights = load_weights(self.config["path"] or DEFAULT_MODEL)
        self.turns = 0
        self.unmasked_forbidden = 0
        self.unmasked_by_class = [0, 0, 0, 0]
        self.net_decisions = 0

    def model_files(self, game: Game) -> dict[str, Path]:
        return {"path": Path(self.config["path"] or DEFAULT_MODEL)}

    def reset(self, game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        self.turns = 0
        self.unmasked_forbidden = 0
        self.unmasked_by_class = [0, 0, 0, 0]
        self.net_decisions = 0

    @classmethod
    def compiled_match(cls, game, agents, seed: int):
        return None  # the network has no compiled twin: every move goes through step()

    def statistics(self) -> dict[str, Any]:
        """Decisions, forbidden moves made (0 when masked), and turns where the unmasked network chose a
        type the rules forbade (the study's count), also by the type it chose (pass, cards, tickets, claim)."""
        return {"decisions": self.decisions, "net_decisions": self.net_decisions, "forbidden": self.forbidden,
                "unmasked_forbidden": self.unmasked_forbidden, "unmasked_forbidden_by_type": list(self.unmasked_by_class)}

    def step(self, state: State) -> int:
        assert isinstance(state, TicketToRideState)
        if state.phase != TURN:
            return super().step(state)
        self.decisions += 1
        self.net_decisions += 1
        self.turns += 1
        legal = state.legal_actions()
        planner = planner_for(state)
        plan = self._prepared(state, planner, state.player)
        scores = logits(self.weights, features(state, plan, self.turns)[None, :])[0]
        allowed = legal_classes(legal)
        choice = int(np.argmax(scores))
        if not allowed[choice]:
            self.unmasked_forbidden += 1
            self.unmasked_by_class[choice] += 1
            if not self.config["mask"]:
                self.forbidden += 1
                return self._fallback(state, legal)
            choice = max((c for c in range(len(allowed)) if allowed[c]), key=lambda c: scores[c])
        return self._action_of(state, plan, planner, choice, legal)

    def _action_of(self, state: TicketToRideState, plan, planner, choice: int, legal: list[int]) -> int:
        """The algorithmic player's move of the chosen type (a legal one: the type is allowed)."""
        if choice == PASS_CLASS:
            return PASS
        if choice == TICKETS_CLASS:
            return DRAW_TICKETS
        if choice == CARDS_CLASS:
            action = self._card(state, plan, second=False)
            if action in legal:
                return action
            return next(a for a in (DRAW_DECK, 0, 1, 2, 3, 4) if a in legal)
        assert choice == CLAIM_CLASS
        action = self._claim(state, plan, planner) if plan.possible else self._last_claim(state, plan, planner)
        if action is not None and action in legal:
            return action
        return self._fallback(state, [a for a in legal if a >= CLAIM_BASE])
