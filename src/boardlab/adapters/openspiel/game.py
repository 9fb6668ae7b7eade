"""Every OpenSpiel game as a boardlab game: ``openspiel:GAME`` with GAME's own parameters.

Spec strings (each form reads back to the same game; :meth:`OpenSpielGame.spec`
writes the first)::

    openspiel:hex:board_size=7          # boardlab's form: the game, then its parameters
    openspiel:hex(board_size=7)         # pyspiel's own load_game string
    openspiel:name=hex,board_size=7     # the positional option by its name
    openspiel:turn_based_simultaneous_game:game=goofspiel(num_cards=4)   # a game as a parameter
    openspiel                           # OpenSpiel's tic_tac_toe

Parameters are checked and typed against the game's ``parameter_specification``
(unknown names and wrong types are one-line errors); those equal to their
default are left out of the spec, so ``openspiel:hex:board_size=11`` is
``openspiel:hex``. A parameter value that a spec cannot hold (a string with a
comma, colon, bracket...) is refused.

What the wrapped game declares, read from pyspiel's ``GameType`` and ``Game``:

* players, chance (``explicit``: OpenSpiel's chance nodes with their
  probabilities; games whose chance OpenSpiel only samples are refused),
  information and utility; ``num_distinct_actions`` is the larger of
  OpenSpiel's action count and chance-outcome count (boardlab numbers both in
  one range), ``max_game_length`` counts chance nodes too;
* the state's ``history`` is OpenSpiel's (chance outcomes included), so records
  replay, and ``action_to_string`` OpenSpiel's labels;
* notation: the player to move (a seat number, ``chance`` or ``end``), a
  colon, then the actions from the start (``"1:24 17 30"``) in a game of
  perfect information, read back by ``state_from_notation``; with hidden
  information, OpenSpiel's public observation (perfect recall, no private
  part) where the game offers one, else only the move number: a notation
  never shows a card a seat may not see;
* ``observation(seat)``: OpenSpiel's observation string for that seat (its
  information-state string where there is none), the board as text with
  perfect information; ``observation(None)``, the spectator's, is the public
  text; ``information_state_string`` is OpenSpiel's;
* ``provides``: ``observation_tensor`` where OpenSpiel's game has an
  observation or information-state tensor, ``information_state_string`` with
  hidden information, ``compiled_playouts`` always (below); the utility range is
  OpenSpiel's ``min_utility`` and ``max_utility``;
* ``observation_tensor``: OpenSpiel's observation tensor (its information-state
  tensor where there is none), in OpenSpiel's layout, not boardlab's
  mover-first convention; bounds are not declared by OpenSpiel, so they are
  infinite;
* ``resample(seat, rng)``: OpenSpiel's ``resample_from_infostate``; a game
  with hidden information that does not implement it raises a clear error, so
  determinised search (``mcts``) cannot play it;
* random playouts for ``mcts`` run in OpenSpiel's C++ (``evaluate_bots`` with
  uniform random bots), seeded from the search's stream.

Simultaneous-move games are refused with a hint: OpenSpiel's
``turn_based_simultaneous_game`` makes any of them turn based.
"""

from __future__ import annotations

import difflib
import functools
import math
from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError, require
from boardlab.core.game import CHANCE, TERMINAL, Game, GameType, State
from boardlab.core.params import Option

#: characters a parameter value may not hold outside parentheses (they delimit specs and tree labels)
SPEC_DELIMITERS = set(",:=]\n")
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
MAX_SEATS = 10  # the family's declared range; each game declares its own
#: boardlab's grid board (see boardlab/web/static/grid.js), drawn where the observation tensor is a grid
GRID_RENDERER = "boardlab.web:static/grid.js"
#: moves of a random game played to learn which of a grid's planes are whose pieces
GRID_PROBE_MOVES = 40


def pyspiel_module():
    """pyspiel, or a one-line error naming the extra to install."""
    return require("pyspiel", "open_spiel", "openspiel", "OpenSpiel games and bots")


@functools.lru_cache(maxsize=None)
def _registered_types() -> dict[str, Any]:
    return {t.short_name: t for t in pyspiel_module().registered_games()}


def _game_type_of(name: str) -> Any:
    types = _registered_types()
    if name not in types:
        close = difflib.get_close_matches(name, list(types), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else " (pyspiel.registered_names() lists them)"
        raise SpecError(f"openspiel: no OpenSpiel game {name!r}{hint}")
    return types[name]


def _typed(game: str, key: str, raw: Any, default: Any) -> Any:
    """A parameter value as OpenSpiel wants it, from a spec's text or a record's JSON value."""
    pyspiel = pyspiel_module()
    if isinstance(default, dict):  # a game as a parameter: pyspiel's own game string
        if isinstance(raw, dict):
            return dict(raw)
        try:
            return pyspiel.game_parameters_from_string(str(raw))
        except Exception as exc:  # pyspiel raises its own error type
            raise SpecError(f"openspiel:{game}: parameter {key}={raw!r} is not a game ({_first_line(exc)})") from None
    kind = type(default)
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "1", "yes"):
            return True
        if text in ("false", "0", "no"):
            return False
        raise SpecError(f"openspiel:{game}: parameter {key} must be true or false, not {raw!r}")
    if kind is int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        try:
            return int(str(raw))
        except ValueError:
            raise SpecError(f"openspiel:{game}: parameter {key} must be an integer, not {raw!r}") from None
    if kind is float:
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise SpecError(f"openspiel:{game}: parameter {key} must be a number, not {raw!r}") from None
    return str(raw)


def _first_line(exc: Exception) -> str:
    text = str(exc).replace("OpenSpiel exception: ", "").strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _spec_value(game: str, key: str, value: Any) -> Any:
    """A parameter value as boardlab keeps it (JSON ready, spec ready)."""
    if isinstance(value, (bool, int)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    if isinstance(value, dict):  # a game: pyspiel's string, whose commas sit inside parentheses
        text = pyspiel_module().game_parameters_to_string(value)
        outside = "".join(ch for depth, ch in _depths(text) if depth == 0)
        bad = bool(SPEC_DELIMITERS & set(outside)) or "]" in text
    else:
        text = str(value)
        bad = any(ch in text for ch in ",:=]()\n") or not text.strip()
    if bad:
        raise SpecError(
            f"openspiel:{game}: parameter {key}={text!r} cannot be written in a boardlab spec "
            "(empty, or holding , : = ] or parentheses)"
        )
    return text


def _depths(text: str):
    depth = 0
    for ch in text:
        if ch == ")":
            depth -= 1
        yield depth, ch
        if ch == "(":
            depth += 1


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _chance_mode(game_type: Any) -> str:
    mode = game_type.chance_mode
    pyspiel = pyspiel_module()
    if mode == pyspiel.GameType.ChanceMode.DETERMINISTIC:
        return "deterministic"
    if mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC:
        return "explicit"
    raise SpecError(
        f"openspiel:{game_type.short_name}: its chance is sampled inside OpenSpiel (no chance nodes with "
        "probabilities), which boardlab cannot replay from a record"
    )


class OpenSpielGame(Game):
    """A pyspiel game; ``openspiel:GAME:key=value,...`` (see the module docstring)."""

    game_type = GameType(
        short_name="openspiel",
        long_name="OpenSpiel games (openspiel:GAME)",
        min_players=1, max_players=MAX_SEATS, chance="explicit", information="imperfect", utility="general_sum",
        player_names=tuple(f"Player {p + 1}" for p in range(MAX_SEATS)), player_colors=PALETTE,
        renderer=GRID_RENDERER,
        # what some OpenSpiel game provides, and a utility range that holds them all; each game declares its own
        provides=frozenset({"observation_tensor", "information_state_string", "compiled_playouts"}),
        min_utility=-math.inf, max_utility=math.inf,
    )
    parameters = {
        "name": Option(
            "name", str, "tic_tac_toe",
            "the OpenSpiel game (pyspiel.registered_names()), written right after openspiel: and followed "
            "by its own parameters: openspiel:hex:board_size=7", positional=True,
        ),
    }

    def __init__(self, **params: Any) -> None:
        pyspiel = pyspiel_module()
        given = dict(params)
        raw_name = str(given.pop("name", self.parameters["name"].default)).strip()
        if "(" in raw_name:  # pyspiel's own syntax: hex(board_size=7)
            try:
                inline = pyspiel.game_parameters_from_string(raw_name)
            except Exception as exc:
                raise SpecError(f"openspiel: {raw_name!r} is not an OpenSpiel game string ({_first_line(exc)})") from None
            name = str(inline.pop("name"))
        else:
            name, inline = raw_name, {}
        declared = _game_type_of(name)
        specification = dict(declared.parameter_specification)
        values: dict[str, Any] = {}
        for key, raw in [*inline.items(), *given.items()]:
            if key not in specification:
                known = ", ".join(sorted(specification)) or "none"
                raise SpecError(f"openspiel:{name}: unknown parameter {key!r} (parameters: {known})")
            if key in values:
                raise SpecError(f"openspiel:{name}: parameter {key!r} given twice")
            values[key] = _typed(name, key, raw, specification[key])
        values = {k: v for k, v in sorted(values.items()) if isinstance(v, dict) or v != specification[k]}
        try:
            loaded = pyspiel.load_game(name, values)
        except Exception as exc:
            raise SpecError(f"openspiel:{name}: OpenSpiel refuses these parameters ({_first_line(exc)})") from None
        declared = loaded.get_type()  # a wrapper game (turn_based_simultaneous_game...) takes its facts from its game
        if declared.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise SpecError(
                f"openspiel:{name} is not a turn-based game ({declared.dynamics.name.lower()} moves); boardlab plays "
                f"turns: try openspiel:turn_based_simultaneous_game:game={name}"
            )
        chance = _chance_mode(declared)
        self.pyspiel_game = loaded
        self.pyspiel_type = declared
        self.params = {"name": name, **{k: _spec_value(name, k, v) for k, v in values.items()}}
        self.parameters = {
            **type(self).parameters,
            **{k: Option(k, str if isinstance(d, dict) else type(d), pyspiel.game_parameters_to_string(d) if isinstance(d, dict) and d else d,
                         f"OpenSpiel parameter of {name}") for k, d in specification.items()},
        }
        seats = loaded.num_players()
        low, high = declared.min_num_players, max(declared.max_num_players, seats)
        information = "perfect" if declared.information == pyspiel.GameType.Information.PERFECT_INFORMATION else "imperfect"
        utility = {
            pyspiel.GameType.Utility.ZERO_SUM: "zero_sum",
            pyspiel.GameType.Utility.CONSTANT_SUM: "constant_sum",
            pyspiel.GameType.Utility.GENERAL_SUM: "general_sum",
            pyspiel.GameType.Utility.IDENTICAL: "identical",
        }[declared.utility]
        names = tuple(f"Player {p + 1}" for p in range(high))
        colors = tuple(PALETTE[p % len(PALETTE)] for p in range(high))
        provides = {"compiled_playouts"}  # the rollouts in OpenSpiel's C++ (RolloutKernel)
        if declared.provides_observation_tensor or declared.provides_information_state_tensor:
            provides.add("observation_tensor")
        if information == "imperfect":
            provides.add("information_state_string")  # OpenSpiel's, or its observation string (OpenSpielState)
        self.game_type = GameType(
            short_name="openspiel", long_name=f"{declared.long_name} (OpenSpiel)", min_players=min(low, seats),
            max_players=high, chance=chance, information=information, utility=utility,
            player_names=names, player_colors=colors, renderer=GRID_RENDERER, provides=frozenset(provides),
            min_utility=float(loaded.min_utility()), max_utility=float(loaded.max_utility()),
        )
        self.long_name = self.game_type.long_name
        self.min_players, self.max_players = self.game_type.min_players, self.game_type.max_players
        self.openspiel_name = name
        self._public = None

    def __reduce__(self):
        # pickled as its parameters (worker processes, the web app's AI workers): pyspiel objects,
        # the playout kernel and the public observer are made again on the other side
        return (_game_from_params, (dict(self.params),))

    # --- description -------------------------------------------------------------
    def spec(self) -> str:
        extra = ",".join(f"{k}={_format_value(v)}" for k, v in self.params.items() if k != "name")
        return f"openspiel:{self.params['name']}" + (f":{extra}" if extra else "")

    def load_string(self) -> str:
        """The ``pyspiel.load_game`` string of this game."""
        return str(self.pyspiel_game)

    def num_players(self) -> int:
        return self.pyspiel_game.num_players()

    def num_distinct_actions(self) -> int:
        return max(self.pyspiel_game.num_distinct_actions(), self.pyspiel_game.max_chance_outcomes())

    def max_game_length(self) -> int:
        return self.pyspiel_game.max_game_length() + self.pyspiel_game.max_chance_nodes_in_history()

    def observation_tensor_shape(self) -> tuple[int, ...]:
        if self.pyspiel_type.provides_observation_tensor:
            return tuple(self.pyspiel_game.observation_tensor_shape())
        if self.pyspiel_type.provides_information_state_tensor:
            return tuple(self.pyspiel_game.information_state_tensor_shape())
        return super().observation_tensor_shape()

    def observation_tensor_bounds(self) -> tuple[float, float]:
        return (-math.inf, math.inf)  # OpenSpiel declares none

    def new_initial_state(self, seed: int | None = None) -> "OpenSpielState":
        return OpenSpielState(self, seed, self.pyspiel_game.new_initial_state(), [])

    def playout_kernel(self) -> "RolloutKernel":
        kernel = self.__dict__.get("_kernel")
        if kernel is None:
            kernel = self.__dict__["_kernel"] = RolloutKernel(self)
        return kernel

    # --- notation ------------------------------------------------------------------
    def state_from_notation(self, text: str) -> "OpenSpielState":
        if self.has_hidden_information:
            raise BoardlabError(f"an {self.spec()} notation shows only what is public; it fixes no state")
        mark, colon, moves = text.strip().partition(":")
        try:
            if not colon:
                raise ValueError
            actions = [int(a) for a in moves.split()]
        except ValueError:
            raise BoardlabError(
                f"position {text[:60]!r} is not an {self.spec()} notation (the player to move, ':', then the actions)"
            ) from None
        state = self.state_from_history(actions)
        if mark.strip() != _mark(state.current_player()):
            raise BoardlabError(f"position {text[:60]!r}: after these actions it is {_mark(state.current_player())}'s turn")
        return state  # type: ignore[return-value]

    def player_of_notation(self, text: str) -> int:
        mark = text.strip().partition(":")[0].strip()
        if mark == "end":
            return TERMINAL
        if mark == "chance":
            return CHANCE
        if mark.isdigit() and int(mark) < self.num_players():
            return int(mark)
        raise BoardlabError(f"position {text[:60]!r} does not start with the player to move and ':'")

    def seen_by(self, player: int):
        """A function of a pyspiel state: all that ``player`` sees there (information state and observation
        strings, those the game provides, and the returns once the game is over), or None when the game
        provides neither string."""
        declared = self.pyspiel_type
        info, observation = declared.provides_information_state_string, declared.provides_observation_string
        if not info and not observation:
            return None

        def seen(inner: Any) -> tuple[str, str, tuple[float, ...]]:
            return (inner.information_state_string(player) if info else "",
                    inner.observation_string(player) if observation else "",
                    tuple(inner.returns()) if inner.is_terminal() else ())  # everybody learns the result

        return seen

    def grid_layout(self) -> dict[str, Any] | None:
        """How the observation tensor draws as a grid, or None when it does not: the game must be of
        perfect information with a tensor of planes x rows x columns, each cell shown as the plane set
        there. ``click``: "cell" when the actions are the cells (action = row * columns + column),
        "column" when they are the columns, else None. A random game played once tells which plane
        is empty (the one under the first cell played) and which are whose pieces, and whether the
        tensor's row 0 is the bottom (where a column game's first piece lands)."""
        if "_grid" in self.__dict__:
            return self.__dict__["_grid"]
        layout = None
        shape = self.observation_tensor_shape() if self.pyspiel_type.provides_observation_tensor else ()
        if not self.has_hidden_information and len(shape) == 3 and min(shape) >= 1 and shape[1] * shape[2] > 1:
            planes, rows, cols = (int(n) for n in shape)
            actions = self.pyspiel_game.num_distinct_actions()
            # the cells, perhaps with a pass after them (go, othello); or the columns
            click = "cell" if actions in (rows * cols, rows * cols + 1) else "column" if actions == cols else None
            layout = {"planes": planes, "rows": rows, "cols": cols, "click": click, "flip": False, "empty": None,
                      "owner": {}}
            _probe_grid(self, layout)
        self.__dict__["_grid"] = layout
        return layout

    def public_observer(self):
        """OpenSpiel's observer of the public information with perfect recall, or None when the game has none."""
        if self._public is None:
            pyspiel = pyspiel_module()
            from open_spiel.python.observation import make_observation

            try:
                observer = make_observation(self.pyspiel_game, pyspiel.IIGObservationType(
                    perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
            except Exception:
                observer = None
            self._public = observer if observer is not None and hasattr(observer, "string_from") else False
        return self._public or None


def _cells(state: "OpenSpielState", layout: dict[str, Any]) -> np.ndarray:
    """The plane set in each cell (-1: none or several), rows as in the tensor; a plane set in every
    cell says something of the whole board (go's side to move), not of a cell, and is left out."""
    tensor = np.asarray(state.pyspiel_state.observation_tensor(0), dtype=np.float32)
    tensor = tensor.reshape(layout["planes"], layout["rows"], layout["cols"]) != 0
    tensor[tensor.all(axis=(1, 2))] = False
    return np.where(tensor.sum(axis=0) == 1, tensor.argmax(axis=0), -1)


def _probe_grid(game: OpenSpielGame, layout: dict[str, Any]) -> None:
    """Fill ``layout``'s empty plane, the planes' owners and ``flip`` from one seeded random game."""
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    before = _cells(state, layout)
    owners: dict[int, set[int]] = {}
    empty: set[int] = set()
    for _ in range(GRID_PROBE_MOVES):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        mover = state.current_player()
        state.apply_action(action)
        after = _cells(state, layout)
        if mover < 0 or layout["click"] is None:
            before = after
            continue
        if layout["click"] == "cell":
            placed = [divmod(action, layout["cols"])] if action < layout["rows"] * layout["cols"] else []
        else:  # the cells of the column that changed: where the piece landed
            placed = [(r, action) for r in range(layout["rows"]) if before[r, action] != after[r, action]]
            if len(placed) == 1 and not empty and layout["rows"] > 1:
                layout["flip"] = placed[0][0] == 0  # the first piece fell to row 0: the tensor's row 0 is the bottom
        for r, c in placed:
            if before[r, c] >= 0:
                empty.add(int(before[r, c]))
            if after[r, c] >= 0:
                owners.setdefault(int(after[r, c]), set()).add(mover)
        before = after
    if len(empty) == 1:
        layout["empty"] = empty.pop()
    else:  # no cell was played: the plane that covers most of the start, the last of equals (OpenSpiel's habit)
        counts = np.bincount(_cells(game.new_initial_state(), layout).ravel() + 1, minlength=layout["planes"] + 1)[1:]
        layout["empty"] = int(len(counts) - 1 - np.argmax(counts[::-1])) if counts.max() > 0 else None
    layout["owner"] = {plane: seats.pop() for plane, seats in owners.items() if len(seats) == 1 and plane != layout["empty"]}


def _game_from_params(params: dict[str, Any]) -> OpenSpielGame:
    return OpenSpielGame(**params)


def _state_from_history(game: OpenSpielGame, seed: int | None, history: list[int]) -> "OpenSpielState":
    state = game.new_initial_state(seed)
    for action in history:
        state.apply_action(action)
    return state


def _mark(player: int) -> str:
    return "end" if player == TERMINAL else "chance" if player == CHANCE else str(player)


class OpenSpielState(State):
    """A pyspiel state (``state.pyspiel_state``) with boardlab's protocol around it."""

    __slots__ = ("game", "seed", "history", "pyspiel_state")

    def __init__(self, game: OpenSpielGame, seed: int | None, inner: Any, history: list[int]) -> None:
        self.game = game
        self.seed = seed
        self.history = history
        self.pyspiel_state = inner

    def __reduce__(self):
        # pickled as game, seed and history (a redrawn state's history is a legal one too)
        return (_state_from_history, (self.game, self.seed, list(self.history)))

    # --- protocol ------------------------------------------------------------------
    def current_player(self) -> int:
        player = self.pyspiel_state.current_player()
        return TERMINAL if player == TERMINAL or self.pyspiel_state.is_terminal() else player

    def legal_actions(self) -> list[int]:
        if self.pyspiel_state.is_terminal():
            return []
        return list(self.pyspiel_state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.pyspiel_state.is_chance_node():
            raise BoardlabError(f"{self.game.spec()}: this is not a chance node")
        return [(int(a), float(p)) for a, p in self.pyspiel_state.chance_outcomes()]

    def apply_action(self, action: int) -> None:
        inner = self.pyspiel_state
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or inner.is_terminal():
            raise self._illegal(action)
        action = int(action)
        if action not in inner.legal_actions():
            raise self._illegal(action)
        inner.apply_action(action)
        self.history.append(action)

    def clone(self) -> "OpenSpielState":
        return OpenSpielState(self.game, self.seed, self.pyspiel_state.clone(), self.history.copy())

    def is_terminal(self) -> bool:
        return self.pyspiel_state.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.pyspiel_state.returns()]

    def action_to_string(self, action: int) -> str:
        inner = self.pyspiel_state
        player = inner.current_player()
        try:
            return inner.action_to_string(player if player >= 0 or player == CHANCE else 0, int(action))
        except Exception:
            return str(action)

    def string_to_action(self, text: str) -> int:
        """An OpenSpiel label (``x(2,3)``, ``Call``...) or the action number."""
        word = text.strip()
        legal = self.legal_actions()
        for action in legal:
            if self.action_to_string(action).lower() == word.lower():
                return action
        if word.lstrip("-").isdigit() and int(word) in legal:
            return int(word)
        labels = ", ".join(self.action_to_string(a) for a in legal)
        raise IllegalActionError(f"{word!r} is not a legal move here (legal: {labels})")

    # --- views -----------------------------------------------------------------------
    def public_text(self) -> str:
        """What everybody sees (one line per OpenSpiel line); the whole board with perfect information."""
        if not self.game.has_hidden_information:
            return str(self.pyspiel_state)
        observer = self.game.public_observer()
        if observer is not None:
            return observer.string_from(self.pyspiel_state, 0)
        player = self.current_player()
        who = "game over" if player == TERMINAL else "chance" if player == CHANCE else f"{self.game.player_name(player)} to move"
        return f"move {len(self.history)}: {who}"

    def notation(self) -> str:
        mark = _mark(self.current_player())
        if not self.game.has_hidden_information:
            return f"{mark}:{' '.join(map(str, self.history))}"
        public = " / ".join(line.strip() for line in self.public_text().splitlines() if line.strip())
        return f"{mark}:{public}"

    def _seat_text(self, player: int) -> str:
        inner = self.pyspiel_state
        declared = self.game.pyspiel_type
        if declared.provides_observation_string:
            return inner.observation_string(player)
        if declared.provides_information_state_string:
            return inner.information_state_string(player)
        return self.public_text()

    def observation(self, player: int | None = None) -> dict[str, Any]:
        hidden = self.game.has_hidden_information
        text = self.public_text() if player is None or not hidden else self._seat_text(player)
        data: dict[str, Any] = {"to_move": self.current_player(), "text": text}
        layout = self.game.grid_layout()
        if layout is not None:
            data["board"] = self.grid_board(layout)
        if self.is_terminal():
            data["returns"] = self.returns()
        return data

    def grid_board(self, layout: dict[str, Any]) -> dict[str, Any]:
        """The board for boardlab's grid renderer: each cell the plane set there, top row first; a
        plane of one seat's pieces wears that seat's colour, other planes a colour of their own."""
        cells = _cells(self, layout)
        if layout["flip"]:
            cells = cells[::-1]
        marks: dict[str, str] = {"-1": ""}
        colors: dict[str, str] = {}
        seats = self.game.num_players()
        for plane in range(layout["planes"]):
            if plane == layout["empty"]:
                marks[str(plane)] = ""
                continue
            owner = layout["owner"].get(plane)
            marks[str(plane)] = "\u25cf" if owner is not None else "\u25a0"
            colors[str(plane)] = PALETTE[(owner if owner is not None else seats + plane) % len(PALETTE)]
        return {"grid": cells.tolist(), "marks": marks, "colors": colors}

    def action_info(self, action: int) -> dict[str, Any]:
        layout = self.game.grid_layout()
        if layout is None or layout["click"] is None or self.current_player() < 0 \
                or (layout["click"] == "cell" and action >= layout["rows"] * layout["cols"]):
            return {}  # no cell of its own (a pass): a button
        if layout["click"] == "column":
            return {"column": int(action)}
        r, c = divmod(int(action), layout["cols"])
        return {"cell": [layout["rows"] - 1 - r if layout["flip"] else r, c]}

    def information_state_string(self, player: int | None = None) -> str:
        if not self.game.has_hidden_information:
            return super().information_state_string(player)
        if player is None:
            return self.notation()
        inner = self.pyspiel_state
        if self.game.pyspiel_type.provides_information_state_string:
            return inner.information_state_string(player)
        return self._seat_text(player)

    def observation_tensor(self, player: int) -> np.ndarray:
        if "observation_tensor" not in self.game.provides:
            return super().observation_tensor(player)
        shape = self.game.observation_tensor_shape()
        inner = self.pyspiel_state
        values = inner.observation_tensor(player) if self.game.pyspiel_type.provides_observation_tensor \
            else inner.information_state_tensor(player)
        return np.asarray(values, dtype=np.float32).reshape(shape)

    def resample(self, player: int, rng: np.random.Generator | int) -> "OpenSpielState":
        """A state ``player`` cannot tell from this one, its hidden part drawn from ``rng``.

        OpenSpiel's ``resample_from_infostate`` where the game implements it for this
        state; else :func:`replay_resample`, which replays the history drawing every
        move ``player`` did not see (chance outcomes by their probabilities, others'
        hidden moves uniformly) among those that keep ``player``'s information state,
        backtracking at a dead end within a budget; past the budget, an error.
        """
        if not self.game.has_hidden_information:
            return self.clone()
        if not isinstance(rng, np.random.Generator):
            rng = np.random.default_rng(rng)
        game = self.game
        key = game.load_string()
        if _NATIVE_RESAMPLE.get(key) is not False and self.pyspiel_state.current_player() != CHANCE:
            try:
                other = self.pyspiel_state.resample_from_infostate(player, lambda: float(rng.random()))
            except Exception as exc:  # pyspiel's error type
                if "not implemented" in str(exc).lower():
                    _NATIVE_RESAMPLE[key] = False  # (pyspiel prints its error; once per game is enough)
            else:
                _NATIVE_RESAMPLE[key] = True
                seen = game.seen_by(player)
                # OpenSpiel keeps the information state; boardlab also keeps the observation (some games
                # show more in it, kuhn_poker's showdown), so a draw that changes it is drawn again below
                if seen is None or seen(other) == seen(self.pyspiel_state):
                    return OpenSpielState(game, None, other, [int(a) for a in other.history()])
        drawn = replay_resample(self, player, rng)
        if drawn is None:
            raise BoardlabError(
                f"{game.spec()}: cannot redraw what seat {player} does not see within {RESAMPLE_BUDGET} tries "
                "(OpenSpiel does not implement resample_from_infostate here), so determinised search cannot play it"
            )
        return drawn

    def __str__(self) -> str:
        return self.public_text()


#: whether pyspiel's resample_from_infostate is implemented, by load_game string
_NATIVE_RESAMPLE: dict[str, bool] = {}
#: moves tried by :func:`replay_resample` before it gives up
RESAMPLE_BUDGET = 20_000


def replay_resample(state: OpenSpielState, player: int, rng: np.random.Generator) -> OpenSpielState | None:
    """Replay ``state``'s history from the start, drawing each move ``player`` did not make
    (a chance outcome by its probability, another seat's move uniformly) among those after which
    ``player``'s information state is what it was in ``state``'s history; depth first with
    backtracking, at most :data:`RESAMPLE_BUDGET` moves tried; None past the budget.

    The draw depends only on what ``player`` knows (its information states along the
    game, its own moves, the number of moves). Seats' hidden moves are drawn uniformly,
    not by how they play; chance by its probabilities, conditioned step by step.
    """
    game = state.game
    seen = game.seen_by(player)
    if seen is None:
        return None
    truth = state.history
    probe = game.pyspiel_game.new_initial_state()
    views = [seen(probe)]
    for action in truth:
        probe.apply_action(action)
        views.append(seen(probe))
    budget = [RESAMPLE_BUDGET]

    def candidates(inner: Any, index: int) -> list[int]:
        actor = inner.current_player()
        if actor == player:
            return [truth[index]]
        if actor == CHANCE:
            outcomes = inner.chance_outcomes()
            keys = [rng.random() ** (1.0 / p) if p > 0 else 0.0 for _, p in outcomes]  # weighted order (Efraimidis-Spirakis)
            return [a for _, (a, _) in sorted(zip(keys, outcomes), key=lambda pair: -pair[0])]
        legal = list(inner.legal_actions())
        rng.shuffle(legal)
        return legal

    def extend(inner: Any, index: int) -> Any | None:
        if index == len(truth):
            return inner
        for action in candidates(inner, index):
            if budget[0] <= 0:
                return None
            budget[0] -= 1
            child = inner.clone()
            child.apply_action(action)
            if seen(child) == views[index + 1]:
                found = extend(child, index + 1)
                if found is not None:
                    return found
        return None

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 3 * len(truth) + 100))
    try:
        found = extend(game.pyspiel_game.new_initial_state(), 0)
    finally:
        sys.setrecursionlimit(limit)
    if found is None:
        return None
    return OpenSpielState(game, None, found, [int(a) for a in found.history()])


class RolloutKernel:
    """Random playouts in OpenSpiel's C++ (``pyspiel.evaluate_bots`` with uniform random bots), the
    ``playout_kernel`` of every OpenSpiel game: a search's stream of seeds fixes every playout."""

    def __init__(self, game: OpenSpielGame) -> None:
        self.pyspiel = pyspiel_module()
        self.players = game.num_players()

    def playout_returns(self, state: OpenSpielState, rng: np.ndarray) -> list[float]:
        if state.is_terminal():
            return state.returns()
        seed = _next_seed(rng)
        bots = [self.pyspiel.make_uniform_random_bot(p, (seed + p) & 0x7FFFFFFF) for p in range(self.players)]
        return [float(r) for r in self.pyspiel.evaluate_bots(state.pyspiel_state.clone(), bots, seed)]


def _next_seed(rng: np.ndarray) -> int:
    """Advance the xorshift64* stream of :func:`boardlab.core.rng.kernel_rng` once; a 31-bit seed."""
    mask = 0xFFFFFFFFFFFFFFFF
    x = int(rng[0])
    x ^= x >> 12
    x ^= (x << 25) & mask
    x ^= x >> 27
    rng[0] = x
    return ((x * 0x2545F4914F6CDD1D) & mask) >> 33
