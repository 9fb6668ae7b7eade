"""Games being played in the browser: one session per game, kept in memory.

A session holds the game, the current state, who sits in each seat (a person
or an agent) and the search trees the agents handed back, one per AI move, for
the tree viewer. Every change goes through the session's lock, so an AI move
running in a worker thread never races a click on "undo".
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
    tree: Tree
    #: the moves (actions) from the game's start to the tree's root
    root_history: list[int]


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

    # --- building --------------------------------------------------------------
    @classmethod
    def create(cls, game_spec: str, mode: str, ai: dict[str, Any] | list[dict[str, Any]], human_seat: int = 0, seed: int | None = None) -> "GameSession":
        if mode not in MODES:
            raise SpecError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
        game = make(game_spec)
        players = game.num_players()
        seed = int(seed) if seed is not None else secrets.randbelow(2**31)
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
            if getattr(agent, "interactive", False):
                raise SpecError(f"agent {spec!r} needs a person at a terminal; choose a human seat instead")
            agent.reset(game, p, derive_seed(seed, "seat", p))
            agents.append(agent)
        session = cls(
            id=secrets.token_urlsafe(9),
            game=game,
            mode=mode,
            seats=seats,
            seed=seed,
            state=game.new_initial_state(seed),
            agents=agents,
            chance_rng=np.random.default_rng(derive_seed(seed, "chance")),
        )
        session._play_chance()
        return session

    # --- moves -----------------------------------------------------------------
    def _play_chance(self) -> None:
        while not self.state.is_terminal() and self.state.is_chance_node():
            self.state.apply_action(sample_chance(self.state, self.chance_rng))

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
            self.state.apply_action(action)
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
            before = list(getattr(agent, "trees", None) or [])
            action = agent.step(root.clone())
            if action not in self.state.legal_actions():
                raise IllegalActionError(f"agent {agent.spec} chose illegal action {action}")
            after = list(getattr(agent, "trees", None) or [])
            if after and (not before or after[-1] is not before[-1]):
                self.trees.append(
                    SearchTree(
                        ply=len(root.history),
                        player=player,
                        agent=agent.spec,
                        action=action,
                        move=root.action_to_string(action),
                        tree=after[-1],
                        root_history=list(root.history),
                    )
                )
                self._bound_trees()
            self.state.apply_action(action)
            self._play_chance()
            return action

    def _bound_trees(self) -> None:
        """Drop the oldest trees beyond MAX_TREES or MAX_TREE_NODES (the newest always stays)."""
        del self.trees[:-MAX_TREES]
        total = sum(len(t.tree) for t in self.trees)
        while len(self.trees) > 1 and total > MAX_TREE_NODES:
            total -= len(self.trees.pop(0).tree)

    def undo(self) -> int:
        """Take back moves: to the previous turn of a person (or one move when no person plays)."""
        with self.lock:
            self.touched = time.monotonic()
            history = list(self.state.history)
            if not history:
                raise ConflictError("nothing to undo")
            humans = [p for p, a in enumerate(self.agents) if a is None]
            keep = len(history) - 1
            if humans and self.mode != "human-human":
                # step back over AI and chance moves until a person is to move again
                while keep > 0:
                    probe = self.game.state_from_history(history[:keep], self.seed)
                    if not probe.is_chance_node() and probe.current_player() in humans:
                        break
                    keep -= 1
                if keep == 0 and self.game.new_initial_state(self.seed).current_player() not in humans:
                    keep = 0  # the AI opened: back to the start, the AI will move again
            self.state = self.game.state_from_history(history[:keep], self.seed)
            self.trees = [t for t in self.trees if t.ply < keep]
            return len(history) - keep

    # --- views -----------------------------------------------------------------
    def record(self) -> GameRecord:
        return GameRecord.from_state(self.state, [s for s in self.seats])

    def view(self) -> dict[str, Any]:
        state = self.state
        data = state.to_dict()
        legal = [] if state.is_terminal() else [{"action": a, "label": state.action_to_string(a)} for a in state.legal_actions()]
        if self.game.name == "chess" and legal:
            # the board is clicked square by square: give each move its from/to squares
            from boardlab.games.chess import decode_action

            for move in legal:
                move["uci"] = decode_action(move["action"], state.board).uci()
        moves = []
        probe = self.game.new_initial_state(self.seed)
        for a in state.history:
            moves.append(probe.action_to_string(a))
            probe.apply_action(a)
        return {
            "id": self.id,
            "game": self.game.name,
            "long_name": self.game.long_name or self.game.name,
            "spec": self.game.spec(),
            "params": dict(self.game.params),
            "mode": self.mode,
            "seats": self.seats,
            "seed": self.seed,
            "to_move": self.to_move(),
            "human_to_move": self.human_to_move(),
            "terminal": state.is_terminal(),
            "returns": list(state.returns()) if state.is_terminal() else None,
            "board": data.get("board"),
            "state": data,
            "text": str(state),
            "legal": legal,
            "moves": moves,
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
