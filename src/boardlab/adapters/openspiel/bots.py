"""OpenSpiel's bots as boardlab agents: ``openspiel-mcts``, ``openspiel-random``, ``openspiel-ismcts``, ``openspiel-az``.

Where a bot plays (the :class:`Bridge`), in order of preference:

1. ``openspiel:GAME``: on the wrapped pyspiel state itself (``"pyspiel"``);
2. a boardlab game that registers an OpenSpiel twin (``"twin"``; :mod:`.twin`:
   Connect Four, Kalah, chess): on the twin, a pyspiel state kept in step with
   the boardlab game by translating every move, so the bot is OpenSpiel's
   C++ code on OpenSpiel's C++ rules, checked against boardlab's move for
   move by tests/test_openspiel_agreement.py; where the rule sets part (a
   chess position OpenSpiel has drawn by repetition), that game goes on as in 3;
3. any other boardlab game (``"python"``): OpenSpiel's Python implementation of the same bot
   (``open_spiel.python.algorithms.mcts.MCTSBot``, ``UniformRandomBot``) on a
   :class:`PythonView` of the boardlab state, boardlab's rules underneath.
   Slower (Python all the way), but the same algorithm.

``agent.last_search["where"]`` says which was used for the last move.
Every bot is seeded from the seed the arena gives the agent, so games replay
(OpenSpiel's ISMCTSBot excepted: it does not replay identically from one process to the next).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from boardlab.adapters.openspiel.game import OpenSpielGame, pyspiel_module
from boardlab.adapters.openspiel.twin import twin_of
from boardlab.agents.base import Agent
from boardlab.core.errors import BoardlabError, MissingDependencyError, SpecError
from boardlab.core.game import Game, State
from boardlab.core.params import Option, non_negative, positive


class Bridge:
    """How OpenSpiel bots see one boardlab game: ``where`` is ``"pyspiel"`` (an ``openspiel:`` game's own
    state), ``"twin"`` or ``"python"``."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.pyspiel = pyspiel_module()
        self.twin = None
        if isinstance(game, OpenSpielGame):
            self.where = "pyspiel"
            self.pyspiel_game = game.pyspiel_game
        else:
            twin = twin_of(game)
            self.twin = twin
            self.where = "twin" if twin is not None else "python"
            self.pyspiel_game = self.pyspiel.load_game(twin.game) if twin is not None else None
        self._synced: tuple[State, Any] | None = None  # (a boardlab state, the twin state in its position)

    def pyspiel_state(self, state: State) -> Any | None:
        """The pyspiel state in ``state``'s position, or None where OpenSpiel cannot follow this game."""
        if self.where == "pyspiel":
            return state.pyspiel_state  # type: ignore[attr-defined]
        if self.where != "twin":
            return None
        twin = self.twin
        synced = self._synced
        if synced is not None and _extends(synced[0], state):
            mine, theirs = synced[0].clone(), synced[1].clone()
        else:
            mine = state.initial()
            try:
                start = twin.start(mine)
            except BoardlabError:
                return None
            theirs = self.pyspiel_game.new_initial_state(start) if start is not None else self.pyspiel_game.new_initial_state()
        for action in state.history[len(mine.history):]:
            if twin.diverged(mine, theirs):
                return None
            theirs.apply_action(twin.to_openspiel(mine, action, theirs))
            mine.apply_action(action)
        if twin.diverged(mine, theirs):
            return None
        self._synced = (mine, theirs)
        return theirs.clone()

    def openspiel_player(self, player: int) -> int:
        """OpenSpiel's number of boardlab's seat ``player`` (a twin may number seats otherwise: chess)."""
        return self.twin.seats[player] if self.where == "twin" else player

    def to_boardlab(self, state: State, pyspiel_state: Any, action: int) -> int:
        """The boardlab action for OpenSpiel's ``action`` in the position of both states."""
        if self.where == "twin":
            return self.twin.from_openspiel(state, action, pyspiel_state)
        return int(action)


def _extends(old: State, new: State) -> bool:
    return (old.start_position() == new.start_position() and old.seed == new.seed
            and new.history[: len(old.history)] == old.history)


# --- boardlab states for OpenSpiel's Python bots -----------------------------------------
class PythonView:
    """A boardlab state with the pyspiel names OpenSpiel's Python bots call (boardlab's are
    OpenSpiel's already; this adds the player arguments and the game object)."""

    __slots__ = ("state", "_game")

    def __init__(self, state: State, game: "PythonGameView") -> None:
        self.state = state
        self._game = game

    def clone(self) -> "PythonView":
        return PythonView(self.state.clone(), self._game)

    def current_player(self) -> int:
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return self.state.is_chance_node()

    def is_simultaneous_node(self) -> bool:
        return False

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.state.chance_outcomes()

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self.state.legal_actions()

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        return self.state.legal_actions_mask().astype(int).tolist()

    def apply_action(self, action: int) -> None:
        self.state.apply_action(int(action))

    def returns(self) -> list[float]:
        return list(self.state.returns())

    def action_to_string(self, *args: int) -> str:
        return self.state.action_to_string(args[-1])

    def get_game(self) -> "PythonGameView":
        return self._game

    def __str__(self) -> str:
        return self.state.notation() if not self.state.game.has_hidden_information else repr(self.state)


class PythonGameView:
    """The game object OpenSpiel's Python bots ask for its type, utilities and players."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.pyspiel = pyspiel_module()
        declared = self.pyspiel.GameType
        self._type = _TypeView(declared.Dynamics.SEQUENTIAL, declared.RewardModel.TERMINAL)

    def get_type(self) -> "_TypeView":
        return self._type

    def num_players(self) -> int:
        return self.game.num_players()

    def num_distinct_actions(self) -> int:
        return self.game.num_distinct_actions()

    def max_utility(self) -> float:
        # MCTS-Solver calls a node won when a child reaches this; boardlab declares no bound, so
        # infinity keeps the solver honest (it then proves a node only when every child is proven)
        return math.inf

    def min_utility(self) -> float:
        return -math.inf


class _TypeView:
    def __init__(self, dynamics: Any, reward_model: Any) -> None:
        self.dynamics = dynamics
        self.reward_model = reward_model


# --- agents ------------------------------------------------------------------------------
class OpenSpielAgent(Agent):
    """What the OpenSpiel agents share: the bridge, seeding and ``plays``."""

    perfect_information_only = False

    def reset(self, game: Game, player: int, seed: int | None = None) -> None:
        super().reset(game, player, seed)
        self.bridge = Bridge(game)
        self.bot_seed = int(self.rng.integers(1 << 31))
        self._bots: dict[str, Any] = {}

    @classmethod
    def plays(cls, game: Game) -> str | None:
        try:
            pyspiel_module()
        except MissingDependencyError as exc:
            return f"agent {cls.name!r}: {exc}"
        if cls.perfect_information_only and game.has_hidden_information:
            return (f"agent {cls.name!r} searches the true state, so it would see what is hidden in {game.spec()}: "
                    "use mcts (determinised) or openspiel-ismcts")
        return None

    def step(self, state: State) -> int:
        if self.game is None or state.game != self.game:
            self.reset(state.game, state.current_player())
        player = state.current_player()
        if player < 0:
            raise BoardlabError(f"{self.name}: there is no move to choose in this state (terminal or chance node)")
        native = self.bridge.pyspiel_state(state)
        if native is not None:
            bot = self._bots.get("native")
            if bot is None:
                bot = self._bots["native"] = self.native_bot(self.bridge.pyspiel_game, self.bridge.openspiel_player(player))
            action = self.bridge.to_boardlab(state, native, int(bot.step(native)))
            where = self.bridge.where
        else:
            bot = self._bots.get("python")
            if bot is None:
                bot = self._bots["python"] = self.python_bot(PythonGameView(state.game), player)
            action = int(bot.step(PythonView(state, PythonGameView(state.game))))
            where = "python"
        self.last_search = {"where": where, "action": action, "move": state.action_to_string(action)}
        return action

    def native_bot(self, pyspiel_game: Any, player: int) -> Any:
        raise NotImplementedError

    def python_bot(self, game_view: PythonGameView, player: int) -> Any:
        raise BoardlabError(f"agent {self.name!r} plays only OpenSpiel games and boardlab games with an OpenSpiel twin")


class OpenSpielMCTSAgent(OpenSpielAgent):
    name = "openspiel-mcts"
    summary = "OpenSpiel's MCTSBot (UCT, random rollouts; C++ on OpenSpiel games and twins, else its Python version)"
    perfect_information_only = True
    time_with_iterations = False  # OpenSpiel's C++ MCTSBot searches for max_time whatever max_simulations says
    options = {
        "iterations": Option("iterations", int, 1000, "simulations per move (OpenSpiel's max_simulations)", positive),
        "time": Option("time", float, None, "seconds per move instead of iterations (OpenSpiel's C++ bot then searches "
                       "this long whatever iterations says; C++ bot only)", positive),
        "c": Option("c", float, 2.0, "UCT exploration constant (OpenSpiel's uct_c; its examples use 2)", non_negative),
        "rollouts": Option("rollouts", int, 1, "random rollouts per leaf", positive),
        "solve": Option("solve", bool, True, "back up proven wins and losses (MCTS-Solver), as OpenSpiel does by default"),
        "max_memory_mb": Option("max_memory_mb", int, 1000, "memory the C++ tree may use before the search stops", positive),
        "seed": Option("seed", int, None, "seed of the bot (default: from the game seed)"),
    }

    def native_bot(self, pyspiel_game: Any, player: int) -> Any:
        pyspiel = self.bridge.pyspiel
        c = self.config
        evaluator = pyspiel.RandomRolloutEvaluator(c["rollouts"], self.bot_seed)
        return pyspiel.MCTSBot(pyspiel_game, evaluator, c["c"], c["iterations"], c["max_memory_mb"], c["solve"],
                               self.bot_seed, False, pyspiel.ChildSelectionPolicy.UCT,
                               c["time"] if c["time"] is not None else -1.0)

    def python_bot(self, game_view: PythonGameView, player: int) -> Any:
        from open_spiel.python.algorithms import mcts

        c = self.config
        random_state = np.random.RandomState(self.bot_seed)
        evaluator = mcts.RandomRolloutEvaluator(c["rollouts"], random_state)
        return mcts.MCTSBot(game_view, c["c"], c["iterations"], evaluator, solve=c["solve"], random_state=random_state)


class OpenSpielRandomAgent(OpenSpielAgent):
    name = "openspiel-random"
    summary = "OpenSpiel's uniform random bot"
    options = {"seed": Option("seed", int, None, "seed of the bot (default: from the game seed)")}

    def native_bot(self, pyspiel_game: Any, player: int) -> Any:
        return self.bridge.pyspiel.make_uniform_random_bot(player, self.bot_seed)

    def python_bot(self, game_view: PythonGameView, player: int) -> Any:
        from open_spiel.python.bots.uniform_random import UniformRandomBot

        return UniformRandomBot(player, np.random.RandomState(self.bot_seed))


class OpenSpielISMCTSAgent(OpenSpielAgent):
    name = "openspiel-ismcts"
    summary = "OpenSpiel's information-set MCTS (C++ ISMCTSBot) for OpenSpiel games with hidden information"
    time_with_iterations = False  # as OpenSpiel's MCTSBot: a time replaces the iterations
    options = {
        "iterations": Option("iterations", int, 1000, "simulations per move", positive),
        "time": Option("time", float, None, "seconds per move instead of iterations (as OpenSpiel's C++ bot reads it)", positive),
        "c": Option("c", float, 2.0, "UCT exploration constant", non_negative),
        "rollouts": Option("rollouts", int, 1, "random rollouts per leaf", positive),
        "worlds": Option("worlds", int, None, "most redrawn worlds per search (default: no limit)", positive),
        "seed": Option("seed", int, None, "seed of the bot (default: from the game seed)"),
    }

    @classmethod
    def plays(cls, game: Game) -> str | None:
        problem = super().plays(game)
        if problem is None and not isinstance(game, OpenSpielGame):
            problem = f"agent {cls.name!r} plays OpenSpiel games (openspiel:GAME); for {game.spec()} use mcts (determinised)"
        return problem

    def native_bot(self, pyspiel_game: Any, player: int) -> Any:
        pyspiel = self.bridge.pyspiel
        c = self.config
        evaluator = pyspiel.RandomRolloutEvaluator(c["rollouts"], self.bot_seed)
        return pyspiel.ISMCTSBot(self.bot_seed, evaluator, c["c"], c["iterations"], c["worlds"] or -1,
                                 pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT, False, False,
                                 c["time"] if c["time"] is not None else -1.0)


class OpenSpielAlphaZeroAgent(OpenSpielAgent):
    name = "openspiel-az"
    summary = "OpenSpiel's AlphaZero: its MCTS guided by a model trained with open_spiel's alpha_zero (needs JAX)"
    perfect_information_only = True
    options = {
        "path": Option("path", str, None, "folder of an OpenSpiel alpha_zero run (its config.json and checkpoints)"),
        "checkpoint": Option("checkpoint", int, -1, "checkpoint step to load (-1: the latest)"),
        "iterations": Option("iterations", int, 100, "simulations per move", positive),
        "c": Option("c", float, 2.0, "PUCT exploration constant", non_negative),
        "seed": Option("seed", int, None, "seed of the bot (default: from the game seed)"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if not self.config["path"]:
            raise SpecError("agent 'openspiel-az' needs a model: openspiel-az:path=RUN_FOLDER (an OpenSpiel alpha_zero run)")

    @classmethod
    def plays(cls, game: Game) -> str | None:
        problem = super().plays(game)
        if problem is None and not isinstance(game, OpenSpielGame) and twin_of(game) is None:
            problem = f"agent {cls.name!r} needs an OpenSpiel game (or a boardlab game with an OpenSpiel twin), not {game.spec()}"
        return problem

    def native_bot(self, pyspiel_game: Any, player: int) -> Any:
        from open_spiel.python.algorithms import mcts

        from boardlab.adapters.openspiel.alphazero import evaluator_for, load_model

        model = load_model(self.config["path"], self.config["checkpoint"], pyspiel_game)
        evaluator = evaluator_for(pyspiel_game, model)
        return mcts.MCTSBot(pyspiel_game, self.config["c"], self.config["iterations"], evaluator, solve=False,
                            random_state=np.random.RandomState(self.bot_seed), child_selection_fn=mcts.SearchNode.puct_value)


__all__ = [
    "Bridge", "PythonView", "PythonGameView", "OpenSpielMCTSAgent", "OpenSpielRandomAgent", "OpenSpielISMCTSAgent",
    "OpenSpielAlphaZeroAgent",
]
