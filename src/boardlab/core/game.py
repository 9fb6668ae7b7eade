"""The game protocol, with OpenSpiel's names.

A :class:`Game` holds the rules and parameters; a :class:`State` is one position
and is changed in place by :meth:`State.apply_action`. Actions are small
integers in ``range(game.num_distinct_actions())``. Player ids are ``0..n-1``;
``current_player()`` returns :data:`CHANCE` at chance nodes and
:data:`TERMINAL` when the game is over.

Every state keeps its ``history`` (all actions from the initial state, chance
outcomes included), so a state is fully described by the game, the seed and
the history; that is what game records store.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Mapping, Sequence

from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.params import Option, resolve_options

CHANCE = -1
TERMINAL = -4


class Game:
    """Rules and parameters of one game. Subclasses set the class attributes."""

    name: ClassVar[str] = ""
    long_name: ClassVar[str] = ""
    #: declared parameters; ``make(name, **params)`` checks given values against these
    parameters: ClassVar[Mapping[str, Option]] = {}
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    has_chance: ClassVar[bool] = False
    has_hidden_information: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = resolve_options(f"game {self.name!r}", self.parameters, params)

    # --- description -----------------------------------------------------------
    def num_players(self) -> int:
        return self.min_players

    def num_distinct_actions(self) -> int:
        raise NotImplementedError

    def spec(self) -> str:
        """The spec string that makes this game again, e.g. ``connect4:rows=6,cols=7,k=4``."""
        changed = {k: v for k, v in self.params.items() if v != self.parameters[k].default}
        if not changed:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in changed.items())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    # --- states ----------------------------------------------------------------
    def new_initial_state(self, seed: int | None = None) -> "State":
        raise NotImplementedError

    def state_from_history(self, actions: Sequence[int], seed: int | None = None) -> "State":
        """Replay ``actions`` from the initial state; an illegal one is reported by its index."""
        state = self.new_initial_state(seed)
        for index, action in enumerate(actions):
            try:
                state.apply_action(int(action))
            except IllegalActionError as exc:
                raise IllegalActionError(f"move {index + 1} of the history: {exc}") from None
        return state

    def state_from_moves(self, moves: str | Sequence[str], seed: int | None = None) -> "State":
        """Play moves written as :meth:`State.action_to_string` writes them.

        ``moves`` is a list or one string separated by commas or spaces; an
        illegal move is reported with its position in the list.
        """
        if isinstance(moves, str):
            moves = self.split_moves(moves)
        state = self.new_initial_state(seed)
        for index, text in enumerate(moves):
            try:
                state.apply_action(state.string_to_action(text))
            except IllegalActionError as exc:
                raise IllegalActionError(f"move {index + 1} ({text!r}): {exc}") from None
        return state

    def split_moves(self, text: str) -> list[str]:
        return [part for part in text.replace(",", " ").split() if part]

    def state_from_json(self, doc: str | Mapping[str, Any]) -> "State":
        """Rebuild a state written by :meth:`State.to_json`."""
        data = json.loads(doc) if isinstance(doc, str) else dict(doc)
        if data.get("game") != self.name:
            raise BoardlabError(f"state is for game {data.get('game')!r}, not {self.name!r}")
        if data.get("params", self.params) != self.params:
            raise BoardlabError(
                f"state was made with parameters {data.get('params')}, this game has {self.params}"
            )
        return self.state_from_history(data.get("history", []), data.get("seed"))


class State:
    """One position. Subclasses implement the abstract methods below."""

    game: Game
    history: list[int]
    seed: int | None

    # --- to implement ----------------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self, player: int | None = None) -> list[int]:
        raise NotImplementedError

    def apply_action(self, action: int) -> None:
        raise NotImplementedError

    def clone(self) -> "State":
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def returns(self) -> list[float]:
        """Payoff of each player; all zero until the game is over."""
        raise NotImplementedError

    def action_to_string(self, action: int) -> str:
        return str(action)

    # --- with defaults ---------------------------------------------------------
    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(action, probability)`` pairs at a chance node."""
        raise BoardlabError(f"{self.game.name} has no chance nodes")

    def num_players(self) -> int:
        return self.game.num_players()

    def string_to_action(self, text: str) -> int:
        """Parse a move as a person would type it; the inverse of :meth:`action_to_string`."""
        text = text.strip()
        for action in self.legal_actions():
            if self.action_to_string(action).lower() == text.lower():
                return action
        legal = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        raise IllegalActionError(f"{text!r} is not a legal move here (legal: {legal})")

    def move_number(self) -> int:
        return len(self.history)

    def information_state_string(self, player: int | None = None) -> str:
        """What ``player`` sees; equals ``str(self)`` in games of perfect information."""
        return str(self)

    def resample_from_infostate(self, player: int, rng: Any) -> "State":
        """A state consistent with what ``player`` sees, the hidden part drawn from ``rng``.

        Games of perfect information return a copy of themselves.
        """
        return self.clone()

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game.name,
            "params": self.game.params,
            "seed": self.seed,
            "history": list(self.history),
        }

    def _illegal(self, action: int) -> IllegalActionError:
        if self.is_terminal():
            return IllegalActionError(f"the game is over; action {action} cannot be played")
        legal = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        return IllegalActionError(f"action {action} is not legal here (legal: {legal})")
