"""The game protocol, with OpenSpiel's names.

A :class:`Game` holds the rules and parameters; a :class:`State` is one position
and is changed in place by :meth:`State.apply_action`. Actions are small
integers in ``range(game.num_distinct_actions())``. Player ids are ``0..n-1``;
``current_player()`` returns :data:`CHANCE` at chance nodes and
:data:`TERMINAL` when the game is over.

A game declares what it is in a :class:`GameType` (players, chance, hidden
information, utility and its range, scores, how seats are named and coloured,
its board view for the browser) and what it provides beyond the protocol
(``provides``: an observation tensor, compiled playouts or search engines...,
see :data:`CAPABILITIES`), as OpenSpiel's ``GameType`` does. Generic code
(search, arena, web, command line) reads these facts and calls the hooks
below, whose defaults fit a simple game; it never asks for a game by name, and
it asks the declaration, not a hook, whether something is offered.

Every state keeps its ``history`` (all actions from its start, chance outcomes
included). A state starts either from ``game.new_initial_state(seed)`` or from
a set-up position (:meth:`State.start_position` gives its notation), so a
state is fully described by the game, the seed or start position, and the
history; that is what game records store.

Per-player views: :meth:`State.observation` is what one seat may see, JSON
ready; :meth:`State.information_state_string` the same as one string;
:meth:`State.observation_tensor` the same as numbers, for networks (when the
game provides ``observation_tensor``: :meth:`Game.observation_tensor_shape`);
:meth:`State.resample` deals a full state consistent with what a seat has
seen, for determinised search. In a game of perfect information all but the
tensor are the full state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from boardlab.core.errors import BoardlabError, FormatError, IllegalActionError
from boardlab.core.params import Option, format_spec, resolve_options

#: ``current_player()`` at a chance node
CHANCE = -1
#: a player code for "not known" (tree files that do not say whose turn it is)
UNKNOWN_PLAYER = -3
#: ``current_player()`` once the game is over
TERMINAL = -4

CHANCE_MODES = ("deterministic", "explicit", "sampled")
INFORMATION = ("perfect", "imperfect")
UTILITIES = ("zero_sum", "constant_sum", "general_sum", "identical")

#: what a game may provide beyond the protocol, declared in ``GameType.provides``; the conformance
#: suite checks each declared one against its behaviour, and that an undeclared one is not offered
CAPABILITIES = {
    "observation_tensor": "Game.observation_tensor_shape() and State.observation_tensor(player): what a seat sees, "
                          "as numbers for networks",
    "information_state_string": "State.information_state_string(player) of the game's own (required with hidden "
                                "information; otherwise the history)",
    "compiled_playouts": "Game.playout_kernel(): compiled random playouts for search",
    "compiled_uct": "a whole compiled UCT search, the boardlab.engines entry GAME.uct",
    "compiled_puct": "a whole compiled PUCT search guided by a DenseNetwork, the boardlab.engines entry GAME.puct",
    "grading_solver": "a set of solved positions that grades an agent's moves, the boardlab.engines entry GAME.grading",
    "symmetries": "Game.symmetries(): exact symmetries of the game, for training augmentation",
}
#: capabilities that only make sense with another one
REQUIRES = {"symmetries": "observation_tensor", "compiled_puct": "observation_tensor"}


@dataclass(frozen=True)
class GameType:
    """What a game is, declared once by its class (``game_type = GameType(...)``).

    * ``chance``: ``deterministic`` (no chance nodes), ``explicit`` (chance
      nodes with exact outcome probabilities: ``state.chance_outcomes()``) or
      ``sampled`` (the randomness is fixed by the seed at the start, as a
      shuffled deck, and never shows up as chance nodes);
    * ``information``: ``perfect`` or ``imperfect`` (some seat may not see
      everything; then the state must implement ``observation``,
      ``information_state_string`` and ``resample`` for real);
    * ``utility``: ``zero_sum``, ``constant_sum``, ``general_sum`` or ``identical``;
    * ``provides_scores``: ``state.scores()`` gives the rules' points as well as
      the win/loss ``returns()``;
    * ``player_names`` and ``player_colors``: how people call each seat and the
      colour of its pieces (CSS), for boards, legends and tree viewers; a game
      with a variable number of players names as many seats as it allows;
    * ``renderer``: ``"package:path/in/package.js"``, an ES module that draws
      the board in the browser (see docs/adding-a-game.md); None shows the
      state's text and one button per legal move;
    * ``provides``: the :data:`CAPABILITIES` the game offers (a game whose
      parameters leave one out narrows :attr:`Game.provides`); a game with
      hidden information must provide ``information_state_string`` (the
      conformance suite says so);
    * ``min_utility`` and ``max_utility``: the range every final return lies in
      (boardlab's games: -1 for a loss, 1 for a win; 0 to 1 for a shared win).
    """

    short_name: str
    long_name: str
    min_players: int = 2
    max_players: int = 2
    chance: str = "deterministic"
    information: str = "perfect"
    utility: str = "zero_sum"
    provides_scores: bool = False
    player_names: tuple[str, ...] = ()
    player_colors: tuple[str, ...] = ()
    renderer: str | None = None
    provides: frozenset[str] = frozenset()
    min_utility: float = -1.0
    max_utility: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "provides", frozenset(self.provides))  # any collection of names
        problems = []
        unknown = sorted(self.provides - CAPABILITIES.keys())
        if unknown:
            problems.append(f"provides {', '.join(map(repr, unknown))}: not a capability ({', '.join(CAPABILITIES)})")
        for capability, needed in REQUIRES.items():
            if capability in self.provides and needed not in self.provides:
                problems.append(f"provides {capability} without {needed}")
        if not self.min_utility <= self.max_utility:
            problems.append(f"utility range {self.min_utility}..{self.max_utility} is not a range")
        if not self.short_name or any(c in self.short_name for c in ":,=[] "):
            problems.append(f"short_name {self.short_name!r} must be a plain word")
        if not 1 <= self.min_players <= self.max_players:
            problems.append(f"players {self.min_players}..{self.max_players} is not a range")
        for field, value, allowed in (("chance", self.chance, CHANCE_MODES), ("information", self.information, INFORMATION),
                                      ("utility", self.utility, UTILITIES)):
            if value not in allowed:
                problems.append(f"{field} {value!r} is not one of {', '.join(allowed)}")
        if problems:
            raise ValueError(f"GameType of {self.short_name!r}: " + "; ".join(problems))

    @property
    def has_chance(self) -> bool:
        return self.chance == "explicit"

    @property
    def has_hidden_information(self) -> bool:
        return self.information == "imperfect"

    @property
    def has_secrets(self) -> bool:
        """Whether something in the game is unknown to some seat or to everybody: hidden cards, a
        shuffled deck or dice to come. Such a game's seed and future must stay with the server."""
        return self.chance != "deterministic" or self.information == "imperfect"

    def player_name(self, player: int) -> str:
        if 0 <= player < len(self.player_names):
            return self.player_names[player]
        return f"Player {player + 1}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.short_name, "long_name": self.long_name, "players": [self.min_players, self.max_players],
            "chance": self.chance, "information": self.information, "utility": self.utility,
            "provides_scores": self.provides_scores, "player_names": list(self.player_names),
            "player_colors": list(self.player_colors), "renderer": self.renderer,
        }


class Game:
    """Rules and parameters of one game. Subclasses set ``game_type`` and ``parameters``."""

    game_type: ClassVar[GameType]
    #: declared parameters; ``make(name, **params)`` checks given values against these
    parameters: ClassVar[Mapping[str, Option]] = {}
    # copied from game_type so that ``game.name`` reads as in OpenSpiel
    name: ClassVar[str] = ""
    long_name: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("game_type")
        if declared is not None:
            cls.name = declared.short_name
            cls.long_name = declared.long_name
            cls.min_players = declared.min_players
            cls.max_players = declared.max_players

    def __init__(self, **params: Any) -> None:
        self.params = resolve_options(f"game {self.name!r}", self.parameters, params)

    # --- description -----------------------------------------------------------
    @property
    def has_chance(self) -> bool:
        return self.game_type.has_chance

    @property
    def has_hidden_information(self) -> bool:
        return self.game_type.has_hidden_information

    def num_players(self) -> int:
        return self.min_players

    def num_distinct_actions(self) -> int:
        raise NotImplementedError

    def max_game_length(self) -> int:
        """The most actions (chance outcomes included) a game can last."""
        raise NotImplementedError

    def player_name(self, player: int) -> str:
        return self.game_type.player_name(player)

    @property
    def provides(self) -> frozenset[str]:
        """The capabilities this game offers: its type's, unless its parameters leave one out (then it
        overrides this with a subset: Connect Four's grading set is of the standard board only)."""
        return self.game_type.provides

    def has_default_parameters(self) -> bool:
        """Whether every parameter has its declared default (the game ``make(name)`` gives)."""
        return self.params == resolve_options(f"game {self.name!r}", self.parameters, {})

    def spec(self) -> str:
        """The spec string that makes this game again, e.g. ``connect4:rows=5,cols=6``."""
        return format_spec(self.name, self.params, self.parameters)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    # --- hooks generic code calls (defaults fit a game without them) -------------
    def playout_kernel(self) -> Any:
        """The compiled random-playout kernel of a game that provides ``compiled_playouts``
        (``kernel.playout_returns(state, rng)`` with ``rng = core.rng.kernel_rng(seed)``); search plays
        random moves in Python in the others."""
        raise BoardlabError(f"game {self.spec()} has no compiled playouts (it does not provide compiled_playouts)")

    def default_evaluator(self) -> str | None:
        """The name of the leaf evaluator search uses by default (``mcts:eval=none``
        forces random playouts), or None for random playouts."""
        return None

    def default_agent(self) -> str | None:
        """The agent spec the web page offers first for this game (its strongest cheap
        player), or None: MCTS with the game's defaults."""
        return None

    def observation_tensor_shape(self) -> tuple[int, ...]:
        """The shape of :meth:`State.observation_tensor`, in a game that provides
        ``observation_tensor`` (there is no generic one, since only the game knows what a seat may
        see and how a board is laid out). PettingZoo environments and networks need one.

        The convention of boardlab's games: a board is channel-first planes
        ``(channels, rows, cols)`` seen from the perspective of the seat that
        observes (its own pieces in the first planes, the board turned so that
        its side is at the bottom where that matters, a plane or entry that says
        whether it is that seat's turn); a game without a grid gives a flat
        vector. Values lie within :meth:`observation_tensor_bounds`. Each game's
        docstring says its layout.
        """
        raise BoardlabError(f"game {self.spec()} offers no observation tensor (it does not provide observation_tensor)")

    def symmetries(self) -> list[Symmetry]:
        """The game's symmetries other than the identity, for training augmentation (see
        :class:`Symmetry` for what each must satisfy), in a game that provides ``symmetries``; by
        default none, only the identity.

        Declare one only when it is exact for every parameter value: the conformance suite
        plays random games both ways and fails the game on the first difference.
        """
        return []

    def observation_tensor_bounds(self) -> tuple[float, float]:
        """The lowest and highest value an observation tensor may hold (boardlab's games: 0 and 1)."""
        return (0.0, 1.0)

    # --- states ----------------------------------------------------------------
    def new_initial_state(self, seed: int | None = None) -> "State":
        raise NotImplementedError

    def state_from_history(self, actions: Sequence[int], seed: int | None = None, start: str | None = None,
                           redraws: Sequence[tuple[int, int]] = ()) -> "State":
        """Replay ``actions`` from the initial state (or the set-up position ``start``);
        an illegal one is reported by its index. ``redraws`` are ``(ply, seed)`` pairs: before
        action ``ply`` (or at the end, for ``ply == len(actions)``) what no seat has seen is
        drawn afresh with :meth:`State.redraw_unseen` from ``seed`` (the web app does so after an undo)."""
        state = self.new_initial_state(seed) if start is None else self._setup_state(start, seed)
        return replay_actions(state, actions, redraws)

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

    def state_from_notation(self, text: str) -> "State":
        """The state a :meth:`State.notation` describes (a position in the game's own notation).

        The default notation is the moves from the start, as
        :meth:`state_from_moves` reads them. Games of imperfect information,
        whose notation shows only what is public, raise :class:`BoardlabError`.
        """
        if self.has_hidden_information:
            raise BoardlabError(f"a {self.long_name or self.name} notation shows only what is public; it fixes no state")
        return self.state_from_moves(text)

    def observation_from_notation(self, text: str, player: int | None = None) -> dict[str, Any] | None:
        """The observation (with ``board``) ``player`` would have of a position written in the game's
        notation, or None when the notation does not say enough (None: a spectator's, the public view).

        A search tree labels its nodes with notations; the tree viewer draws a node's position with
        this. With perfect information the notation fixes the state; a game whose notation is its
        public view (hidden cards) overrides this to build that view without a full state."""
        if self.has_hidden_information:
            return None
        return self.state_from_notation(text).observation(player)

    def player_of_notation(self, text: str) -> int:
        """Whose turn it is in a position written in the game's notation (or CHANCE / TERMINAL)."""
        return self.state_from_notation(text).current_player()

    def players_of_notations(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`player_of_notation` of many positions (int8); games override it when they can do it faster.

        A text that is not a position of this game gives :data:`UNKNOWN_PLAYER`.
        """
        out = np.full(len(texts), UNKNOWN_PLAYER, dtype=np.int8)
        for index, text in enumerate(texts):
            try:
                out[index] = self.player_of_notation(text)
            except (BoardlabError, ValueError):
                pass
        return out

    def _setup_state(self, start: str, seed: int | None) -> "State":
        # a notation that is a move list gives a state with history and no start position; fine either way
        state = self.state_from_notation(start)
        state.seed = seed
        return state

    def state_from_json(self, doc: str | Mapping[str, Any]) -> "State":
        """Rebuild a state written by :meth:`State.to_json`."""
        if isinstance(doc, str):
            try:
                data = json.loads(doc)
            except json.JSONDecodeError as exc:
                raise FormatError(f"state is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
        else:
            data = dict(doc)
        if not isinstance(data, dict):
            raise FormatError("a state is a JSON object")
        if data.get("game") != self.name:
            raise BoardlabError(f"state is for game {data.get('game')!r}, not {self.name!r}")
        if data.get("params", self.params) != self.params:
            raise BoardlabError(
                f"state was made with parameters {data.get('params')}, this game has {self.params}"
            )
        history = data.get("history", [])
        if not isinstance(history, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in history):
            raise FormatError("state 'history' must be a list of integers")
        start = data.get("start")
        if start is not None and not isinstance(start, str):
            raise FormatError("state 'start' must be a position in the game's notation")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise FormatError("state 'seed' must be an integer or null")
        return self.state_from_history(history, seed, start)


@dataclass(frozen=True, eq=False)
class Symmetry:
    """A transformation of a game onto itself that leaves its value unchanged (Connect Four's mirror).

    Two integer index arrays:

    * ``observation``, a permutation of the indices of the flattened observation
      tensor: the transformed state's tensor is ``obs.reshape(-1)[observation]``
      reshaped back (a gather: entry ``i`` of the transformed tensor is entry
      ``observation[i]`` of the original);
    * ``actions``, a permutation of ``range(game.num_distinct_actions())``:
      action ``a`` of the original is action ``actions[a]`` of the transformed
      state (a scatter: a policy ``p`` becomes ``q`` with ``q[actions[a]] = p[a]``,
      a legal mask likewise), so :meth:`action_values` gathers with the inverse.

    The contract, checked by the conformance suite: the symmetry maps the initial
    state (any seed) to itself, and for every legal sequence of actions, playing
    ``actions[a]`` for each player's action ``a`` (chance outcomes unchanged)
    from the initial state is legal and reaches the transformed state: every
    player's observation tensor is the permuted one, the legal mask the permuted
    one, and the player to move, terminal status and returns are equal.
    """

    observation: np.ndarray
    actions: np.ndarray
    #: the inverse permutation of ``actions`` (set by __post_init__)
    _inverse_actions: np.ndarray = dataclass_field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # read-only: one symmetry's arrays serve every batch it transforms
        for name in ("observation", "actions"):
            array = np.array(getattr(self, name), dtype=np.intp)
            if not is_permutation(array):
                raise BoardlabError(f"Symmetry: {name} must be a permutation of range({array.size}), "
                                    f"not {array.tolist() if array.size <= 20 else 'an array of shape ' + str(array.shape)}")
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        inverse = np.empty_like(self.actions)
        inverse[self.actions] = np.arange(len(self.actions))
        inverse.setflags(write=False)
        object.__setattr__(self, "_inverse_actions", inverse)

    def observations(self, obs: np.ndarray) -> np.ndarray:
        """The transformed observation tensor of one tensor ``obs``, or of each tensor of a batch along its first axis."""
        return obs.reshape(-1, len(self.observation))[:, self.observation].reshape(obs.shape)

    def action_values(self, values: np.ndarray) -> np.ndarray:
        """Per-action arrays (policies, legal masks) of the transformed states: ``values[..., a]`` moves to
        ``[..., actions[a]]``; the last axis is the action axis."""
        return values[..., self._inverse_actions]


def is_permutation(indices: np.ndarray) -> bool:
    """Whether ``indices`` is a one-dimensional permutation of ``range(len(indices))``."""
    return indices.ndim == 1 and np.array_equal(np.sort(indices), np.arange(indices.size))


def replay_actions(state: "State", actions: Sequence[int], redraws: Sequence[tuple[int, int]] = ()) -> "State":
    """Apply ``actions`` to ``state`` (in place unless ``redraws`` replace it, see
    :meth:`Game.state_from_history`); an illegal action is reported by its index."""
    pending = sorted((int(ply), int(seed)) for ply, seed in redraws)
    if pending and not 0 <= pending[0][0] <= pending[-1][0] <= len(actions):
        raise BoardlabError(f"a redraw must come at a ply from 0 to {len(actions)}, not {pending[0][0] if pending[0][0] < 0 else pending[-1][0]}")
    for index, action in enumerate(actions):
        while pending and pending[0][0] == index:
            state = state.redraw_unseen(np.random.default_rng(pending.pop(0)[1]))
        try:
            state.apply_action(int(action))
        except IllegalActionError as exc:
            raise IllegalActionError(f"move {index + 1} of the history: {exc}") from None
    for _, seed in pending:
        state = state.redraw_unseen(np.random.default_rng(seed))
    return state


class State:
    """One position. Subclasses implement the abstract methods below."""

    game: Game
    history: list[int]
    seed: int | None

    # --- to implement ----------------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def legal_actions(self) -> list[int]:
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

    def scores(self) -> list[float]:
        """The rules' points of each player (games that declare ``provides_scores``);
        by default the returns."""
        return [float(r) for r in self.returns()]

    def observation_tensor(self, player: int) -> np.ndarray:
        """What ``player`` may see, as a float32 array of shape ``game.observation_tensor_shape()``
        (see there for the conventions), in a game that provides ``observation_tensor``. Like
        :meth:`observation`, it shows nothing hidden from that seat: it stays the same under
        ``self.resample(player, rng)``. Defined at every state, chance nodes and finished games included."""
        raise BoardlabError(f"game {self.game.spec()} offers no observation tensor (it does not provide observation_tensor)")

    def end_reason(self) -> str | None:
        """How a finished game ended, as one word the arena counts (None while it goes on).

        The default is ``"normal"``. Games whose rules can also end a game another way
        (cancelled after too long without progress, a move limit) name those endings
        (Dice Wars: ``won``, ``stalled``, ``battle-limit``) and say so in their docs."""
        return "normal" if self.is_terminal() else None

    def legal_actions_mask(self) -> np.ndarray:
        """The legal actions as booleans over ``range(game.num_distinct_actions())`` (for networks)."""
        mask = np.zeros(self.game.num_distinct_actions(), dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def string_to_action(self, text: str) -> int:
        """Parse a move as a person would type it; the inverse of :meth:`action_to_string`."""
        text = text.strip()
        for action in self.legal_actions():
            if self.action_to_string(action).lower() == text.lower():
                return action
        legal = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        raise IllegalActionError(f"{text!r} is not a legal move here (legal: {legal})")

    def action_info(self, action: int) -> dict[str, Any]:
        """Extra facts about a legal action for a board view (chess: its UCI squares); JSON ready."""
        return {}

    def move_number(self) -> int:
        return len(self.history)

    def start_position(self) -> str | None:
        """The notation of the set-up position this state's history starts from,
        or None when it starts from ``game.new_initial_state(seed)``."""
        return None

    def statistics(self) -> dict[str, Any] | None:
        """Facts about a finished game for experiment tables, JSON ready (Ticket to Ride: each
        player's tickets completed and failed...), or None. The arena stores them with each game."""
        return None

    def initial(self) -> "State":
        """The state this one's history starts from (the initial state or the set-up position)."""
        start = self.start_position()
        if start is None:
            return self.game.new_initial_state(self.seed)
        return self.game._setup_state(start, self.seed)

    def history_moves(self) -> list[tuple[int, str]]:
        """``(player, label)`` of each move of the history: who played it (CHANCE for chance)
        and :meth:`action_to_string` as it was written when it was played."""
        probe = self.initial()
        moves = []
        for action in self.history:
            moves.append((probe.current_player(), probe.action_to_string(action)))
            probe.apply_action(action)
        return moves

    def history_labels(self) -> list[str]:
        """Each move of the history as :meth:`action_to_string` wrote it when it was played."""
        return [label for _, label in self.history_moves()]

    def notation(self) -> str:
        """The position in the game's own notation, side to move included; read back by
        ``game.state_from_notation``. By default: the moves from the start."""
        if self.start_position() is not None or self.game.has_hidden_information:
            raise NotImplementedError(f"{type(self).__name__} must define notation()")
        return " ".join(self.history_labels())

    def observation(self, player: int | None = None) -> dict[str, Any]:
        """All that ``player`` may see, JSON ready (None: a spectator, who sees what is public).

        Keys every game gives: ``to_move``, ``text`` (the position for people);
        games with a board view add ``board`` (what their renderer draws) and
        more. In a game of perfect information everybody sees everything.
        """
        if self.game.has_hidden_information:
            raise NotImplementedError(f"{type(self).__name__} must define observation()")
        return {"to_move": self.current_player(), "text": str(self)}

    def information_state_string(self, player: int | None = None) -> str:
        """What ``player`` knows, as one string: equal for two states exactly when
        ``player`` cannot tell them apart. The full state (the history) in games of perfect
        information; a game that writes its own provides ``information_state_string``."""
        if self.game.has_hidden_information:
            raise NotImplementedError(f"{type(self).__name__} must define information_state_string()")
        return f"{self.start_position() or ''}|{','.join(map(str, self.history))}"

    def redraw_unseen(self, rng: np.random.Generator) -> "State":
        """A copy in which whatever no seat has seen yet (the order of a shuffled deck, face-down
        tickets, removed cards) is drawn afresh from ``rng``; what any seat has seen stays.

        The web app calls it after an undo, so that taking a move back never shows the future.
        Games whose randomness is fixed by the seed at the start (``chance="sampled"``) must
        implement it; in the others nothing unseen lies in the state (chance outcomes are drawn
        when they come), and the default is a copy. The copy keeps ``seed`` and ``history``."""
        if self.game.game_type.chance == "sampled":
            raise NotImplementedError(f"{type(self).__name__} must define redraw_unseen()")
        return self.clone()

    def log_text(self, action: int) -> tuple[str, bool]:
        """How the move list writes ``action``, about to be played here: ``(text, joins)``; with
        ``joins`` the text is appended to the line of the move before (a roll to the attack it
        decides). By default :meth:`action_to_string` on a line of its own."""
        return self.action_to_string(action), False

    def end_description(self) -> str | None:
        """How a finished game ended, in words for people ("checkmate", "four in a row"), or None
        (while it goes on, or when the result says it all). The web page shows it with the result."""
        return None

    def resample(self, player: int, rng: np.random.Generator | int) -> "State":
        """A full state consistent with what ``player`` has seen, the hidden part drawn from ``rng``
        (for determinised search). It must depend only on ``player``'s information state,
        never on the hidden truth. Games of perfect information return a copy."""
        if self.game.has_hidden_information:
            raise NotImplementedError(f"{type(self).__name__} must define resample()")
        return self.clone()

    # --- records -----------------------------------------------------------------
    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        """The whole state as a record (seed and history): not for a player's eyes
        in a game with hidden information; :meth:`observation` is."""
        data: dict[str, Any] = {
            "game": self.game.name,
            "params": self.game.params,
            "seed": self.seed,
            "history": list(self.history),
        }
        start = self.start_position()
        if start is not None:
            data["start"] = start
        return data

    def _illegal(self, action: int) -> IllegalActionError:
        if self.is_terminal():
            return IllegalActionError(f"the game is over; action {action} cannot be played")
        legal = ", ".join(self.action_to_string(a) for a in self.legal_actions())
        return IllegalActionError(f"action {action} is not legal here (legal: {legal})")
