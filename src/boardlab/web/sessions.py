"""Games being played in the browser: one session per game, kept in memory.

A session holds the game, the current state, who sits in each seat (a person
or an agent) and the search trees the agents handed back, one per AI move, for
the tree viewer. Every change goes through the session's lock, so an AI move
running in a worker thread never races a click on "undo".

What a client sees is one seat's view (:meth:`GameSession.view`): the state's
observation for that seat, never the seed, the full state or another seat's
legal moves. In a game with hidden information the record (seed and every
action) is given out only once the game is over.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardlab.agents.base import Agent
from boardlab.agents.registry import agent_class, make_agent
from boardlab.agents.search_tree import SearchTreeHandle
from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import Game, State
from boardlab.core.records import GameRecord
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed, sample_chance
from boardlab.trees.model import Tree

MODES = ("human-ai", "ai-ai", "human-human")
#: trees kept per session, by count and by nodes in all (a 250k-node tree takes ~15 MB)
MAX_TREES = 64
MAX_TREE_NODES = 4_000_000
#: sessions kept; the oldest untouched one goes first
MAX_SESSIONS = 200


class ConflictError(BoardlabError):
    """The request is well formed but does not fit the game's moment (an AI's turn, game over)."""


@dataclass
class SearchTree:
    """A tree an agent built for one move, with where in the game it was built."""

    ply: int  # number of moves played before the search
    player: int
    agent: str
    action: int
    move: str
    handle: SearchTreeHandle
    #: the moves (actions) from the game's start to the tree's root
    root_history: list[int]

    @property
    def tree(self) -> Tree:
        return self.handle.tree()

    @property
    def nodes(self) -> int:
        return self.handle.nodes


def move_entry(state: State, action: int) -> tuple[int, str]:
    """``(player, label)`` of ``action`` about to be played in ``state``, for everybody's move list:
    in a game with hidden information a chance outcome (a card drawn) is not named."""
    player = state.current_player()
    if player < 0 and state.game.has_hidden_information:
        return player, "chance"
    return player, state.action_to_string(action)


def history_log(state: State) -> list[tuple[int, str]]:
    """:func:`move_entry` of every move of ``state``'s history."""
    hide = state.game.has_hidden_information
    return [(player, "chance" if player < 0 and hide else label) for player, label in state.history_moves()]


def agent_spec(ai: dict[str, Any]) -> str:
    """Build an agent spec from the menu's settings, keeping only options the agent has.

    ``{"agent": "mcts", "iterations": 500, "c": 1.4, "time": None}`` gives
    ``mcts:iterations=500,c=1.4``; ``random`` ignores iterations and c.
    """
    if "spec" in ai and ai["spec"]:
        return str(ai["spec"])
    name = str(ai.get("agent") or "random")
    declared = agent_class(name).options
    parts = []
    for key, value in ai.items():
        if key == "agent" or value is None or value == "" or key not in declared:
            continue
        parts.append(f"{key}={value}")
    return name + (":" + ",".join(parts) if parts else "")


@dataclass
class GameSession:
    id: str
    game: Game
    mode: str
    seats: list[str]  # "human" or an agent spec, one per player
    seed: int
    state: State
    agents: list[Agent | None]
    trees: list[SearchTree] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)
    touched: float = field(default_factory=time.monotonic)
    chance_rng: np.random.Generator = field(default_factory=np.random.default_rng)
    #: (player, label) of every move played, as people see it (chance outcomes of hidden cards are not named)
    log: list[tuple[int, str]] = field(default_factory=list)

    # --- building --------------------------------------------------------------
    @classmethod
    def create(cls, game_spec: str, mode: str, ai: dict[str, Any] | list[dict[str, Any]], human_seat: int | None = None,
               seed: int | None = None, position: str | None = None) -> "GameSession":
        """A new game; ``position`` (in the game's notation) starts it from a set-up position;
        ``human_seat`` defaults to the seat to move first."""
        if mode not in MODES:
            raise SpecError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
        game = make(game_spec)
        if position is not None:
            start = game.state_from_notation(position)
            if start.is_terminal():
                raise SpecError(f"position {position!r} is already over")
        players = game.num_players()
        seed = int(seed) if seed is not None else secrets.randbelow(2**31)
        if human_seat is None:
            first = game.new_initial_state(seed) if position is None else start
            human_seat = max(0, first.current_player())
        settings = ai if isinstance(ai, list) else [ai] * players
        if mode == "human-human":
            seats = ["human"] * players
        elif mode == "ai-ai":
            seats = [agent_spec(settings[p % len(settings)]) for p in range(players)]
        else:
            if not 0 <= human_seat < players:
                raise SpecError(f"human_seat must be between 0 and {players - 1}")
            seats = [("human" if p == human_seat else agent_spec(settings[p % len(settings)])) for p in range(players)]
        agents: list[Agent | None] = []
        for p, spec in enumerate(seats):
            if spec == "human":
                agents.append(None)
                continue
            agent = make_agent(spec, game)
            if agent.interactive:
                raise SpecError(f"agent {spec!r} needs a person at a terminal; choose a human seat instead")
            agent.reset(game, p, derive_seed(seed, "seat", p))
            agents.append(agent)
        session = cls(
            id=secrets.token_urlsafe(9),
            game=game,
            mode=mode,
            seats=seats,
            seed=seed,
            state=game.new_initial_state(seed) if position is None else start,
            agents=agents,
            chance_rng=np.random.default_rng(derive_seed(seed, "chance")),
        )
        session.log = history_log(session.state)  # a position given as a move list has a history already
        session._play_chance()
        return session

    # --- moves -----------------------------------------------------------------
    def _play_chance(self) -> None:
        while not self.state.is_terminal() and self.state.is_chance_node():
            self._apply(sample_chance(self.state, self.chance_rng))

    def _apply(self, action: int) -> None:
        self.log.append(move_entry(self.state, action))
        self.state.apply_action(action)

    def to_move(self) -> int:
        return -1 if self.state.is_terminal() else self.state.current_player()

    def human_to_move(self) -> bool:
        player = self.to_move()
        return player >= 0 and self.agents[player] is None

    def play_human(self, action: int | None = None, move: str | None = None) -> int:
        with self.lock:
            self.touched = time.monotonic()
            if self.state.is_terminal():
                raise ConflictError("the game is over")
            if not self.human_to_move():
                raise ConflictError(f"it is the AI's turn (player {self.to_move() + 1}); ask for an AI move")
            if action is None:
                if move is None:
                    raise SpecError("give 'action' (an integer) or 'move' (its text)")
                action = self.state.string_to_action(move)
            if action not in self.state.legal_actions():
                raise self.state._illegal(action)
            self._apply(action)
            self._play_chance()
            return action

    def play_ai(self) -> int:
        """Let the agent in the seat to move choose and play; runs in a worker thread."""
        with self.lock:
            self.touched = time.monotonic()
            if self.state.is_terminal():
                raise ConflictError("the game is over")
            player = self.to_move()
            agent = self.agents[player]
            if agent is None:
                raise ConflictError(f"player {player + 1} is a person; play their move by clicking")
            root = self.state.clone()
            before = agent.last_tree()
            action = agent.step(root.clone())
            if action not in self.state.legal_actions():
                raise IllegalActionError(f"agent {agent.spec} chose illegal action {action}")
            after = agent.last_tree()
            if after is not None and after is not before:
                self.trees.append(
                    SearchTree(
                        ply=len(root.history),
                        player=player,
                        agent=agent.spec,
                        action=action,
                        move=root.action_to_string(action),
                        handle=after,
                        root_history=list(root.history),
                    )
                )
                self._bound_trees()
            self._apply(action)
            self._play_chance()
            return action

    def _bound_trees(self) -> None:
        """Drop the oldest trees beyond MAX_TREES or MAX_TREE_NODES (the newest always stays)."""
        del self.trees[:-MAX_TREES]
        total = sum(t.nodes for t in self.trees)
        while len(self.trees) > 1 and total > MAX_TREE_NODES:
            total -= self.trees.pop(0).nodes

    def undo(self) -> int:
        """Take back moves: to the previous turn of a person (or one move when no person plays)."""
        with self.lock:
            self.touched = time.monotonic()
            history = list(self.state.history)
            if not history:
                raise ConflictError("nothing to undo")
            humans = [p for p, a in enumerate(self.agents) if a is None]
            keep = len(history) - 1
            start = self.state.start_position()
            if humans and self.mode != "human-human":
                # step back over AI and chance moves until a person is to move again
                while keep > 0:
                    probe = self.game.state_from_history(history[:keep], self.seed, start)
                    if not probe.is_chance_node() and probe.current_player() in humans:
                        break
                    keep -= 1
            self.state = self.game.state_from_history(history[:keep], self.seed, start)
            del self.log[keep:]
            self.trees = [t for t in self.trees if t.ply < keep]
            return len(history) - keep

    # --- views -----------------------------------------------------------------
    def record(self) -> GameRecord:
        if self.game.has_hidden_information and not self.state.is_terminal():
            raise ConflictError("the record holds the seed, which shows every hidden card: it is given once the game is over")
        return GameRecord.from_state(self.state, list(self.seats))

    def humans(self) -> list[int]:
        return [p for p, agent in enumerate(self.agents) if agent is None]

    def default_viewer(self) -> int | None:
        """Whose view the page shows: the person's seat, the seat to move in a game between
        people at one screen, nobody's (the public view) when agents play each other."""
        humans = self.humans()
        if not humans:
            return None
        if len(humans) == 1:
            return humans[0]
        player = self.to_move()
        return player if player in humans else None

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """The game as ``seat`` sees it (default: :meth:`default_viewer`); only seats of people may be asked for."""
        with self.lock:
            if seat is None:
                seat = self.default_viewer()
            elif seat not in self.humans():
                raise SpecError(f"seat {seat} is not played by a person in this game; its view is private")
            state = self.state
            observation = state.observation(seat)
            may_move = not state.is_terminal() and self.human_to_move() and (seat is None or seat == self.to_move())
            legal = []
            if may_move:
                for action in state.legal_actions():
                    legal.append({"action": action, "label": state.action_to_string(action), **state.action_info(action)})
            game_type = self.game.game_type
            return {
                "id": self.id,
                "game": self.game.name,
                "long_name": self.game.long_name or self.game.name,
                "spec": self.game.spec(),
                "params": dict(self.game.params),
                "players": self.game.num_players(),
                "player_names": [self.game.player_name(p) for p in range(self.game.num_players())],
                "player_colors": list(game_type.player_colors),
                "mode": self.mode,
                "seats": self.seats,
                "viewer": seat,
                "to_move": self.to_move(),
                "human_to_move": self.human_to_move(),
                "terminal": state.is_terminal(),
                "returns": list(state.returns()) if state.is_terminal() else None,
                "scores": list(state.scores()) if state.is_terminal() and game_type.provides_scores else None,
                "observation": observation,
                "board": observation.get("board"),
                "text": observation.get("text", ""),
                "legal": legal,
                # the last move by a player, for boards that animate it (not shown where cards are hidden)
                "last_action": state.history[-1] if state.history and self.log[-1][0] >= 0
                and not self.game.has_hidden_information else None,
                "moves": [label for _, label in self.log],
                "movers": [player for player, _ in self.log],
                "trees": len(self.trees),
            }


class SessionStore:
    """Sessions by id; the least recently touched goes when there are too many."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()

    def add(self, session: GameSession) -> None:
        with self._lock:
            self._sessions[session.id] = session
            while len(self._sessions) > self.limit:
                oldest = min(self._sessions.values(), key=lambda s: s.touched)
                del self._sessions[oldest.id]

    def get(self, session_id: str) -> GameSession | None:
        with self._lock:
            return self._sessions.get(session_id)
