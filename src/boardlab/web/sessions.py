"""Games being played in the browser: one session per game.

A session holds the game, the current state, who sits in each seat (a person
or an agent spec) and the search trees the agents handed back, one per AI
move, for the tree viewer. Every change goes through the session's lock.

An AI move runs in a worker process (:mod:`boardlab.web.aipool`): the session
hands out a job (:meth:`GameSession.start_ai`) with everything the worker
needs (game spec, seed or start position, the actions so far, the seat and
its agent spec) and applies the answer (:meth:`GameSession.finish_ai`) only
if nothing changed meanwhile: a move, an undo or a newer AI request cancels
the job in flight, and a cancelled move is never applied.

A session is fully described by its record (:meth:`GameSession.to_record`):
game spec, seed or start position, actions, redraws, mode and seats. The
server keeps that record in SQLite (:mod:`boardlab.web.gamestore`) and
rebuilds a session from it after a restart (:meth:`GameSession.restore`).
Chance outcomes and agent seeds are derived from the game's seed, the move
number and the number of undos, so a restored game goes on exactly as it
would have. Search trees live in memory only.

Fair play, for games that declare hidden information or chance (the
``GameType.has_secrets`` fact), is the server's business, whatever the
agents do:

* the seed comes from the server's entropy and is never sent before the end
  (a client may choose it only when no person plays); the record, which holds
  it, is refused until the game is over (:meth:`GameSession.record`);
* chance outcomes are drawn by the server when they come, from that seed,
  the ply and the number of undos so far: a move taken back and played again
  meets a fresh roll;
* an undo draws afresh whatever no seat has seen (:meth:`State.redraw_unseen`:
  the deck's order, face-down tickets), noted as a redraw in the record so that
  ``replay`` still checks the game;
* the search trees of the AI seats are their private thoughts: while a person
  plays, they open only at the end (:meth:`GameSession.trees_private`).

What a client sees is one seat's view (:meth:`GameSession.view`): the state's
observation for that seat, never the seed, the full state or another seat's
legal moves.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from boardlab.agents.registry import agent_target, make_agent
from boardlab.agents.search_tree import SearchTreeHandle
from boardlab.core.errors import BoardlabError, IllegalActionError, SpecError
from boardlab.core.game import Game, State
from boardlab.core.records import GameRecord
from boardlab.core.registry import make
from boardlab.core.rng import derive_seed, sample_chance
from boardlab.trees.model import Tree
from boardlab.web.aipool import Cancelled, Job
from boardlab.web.limits import ServerLimits, check_budget, server_caps, settings_spec, with_options

MODES = ("human-ai", "ai-ai", "human-human")
#: trees kept per session, by count and by nodes in all (a 250k-node tree takes ~15 MB)
MAX_TREES = 64
MAX_TREE_NODES = 4_000_000
#: seconds a move may run past 1.5 times the server's time limit before it is stopped
#: (for agents without a time option; searches with one end on their own)
WALL_SLACK = 10.0
#: what the page shows for a person's seat
PERSON = "human"
#: the menu's AI fields, sent whatever the agent: an agent without one of these options ignores it
#: (any other key that is not an option of the chosen agent is refused)
MENU_OPTIONS = {"iterations", "time", "c"}


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


@dataclass(frozen=True)
class LogEntry:
    """One move as the move list shows it: who played it (CHANCE for chance), its label (as
    ``action_to_string`` writes it, for tree paths) and the text people read (``State.log_text``)."""

    player: int
    label: str
    text: str
    joins: bool = False


def log_entry(state: State, action: int) -> LogEntry:
    """The :class:`LogEntry` of ``action`` about to be played in ``state``, for everybody's move list:
    in a game with hidden information a chance outcome (a card drawn) is not named in the text; its
    label (kept on the server for the record, given only at the end) is the true one."""
    player = state.current_player()
    if player < 0 and state.game.has_hidden_information:
        return LogEntry(player, state.action_to_string(action), "chance")
    text, joins = state.log_text(action)
    return LogEntry(player, state.action_to_string(action), text, joins)


def replay_logged(game: Game, seed: int | None, start: str | None, actions: list[int],
                  redraws: list[tuple[int, int]]) -> tuple[State, list[LogEntry]]:
    """The state after ``actions`` (with ``redraws``, see ``Game.state_from_history``) and its move list."""
    state = game.state_from_history([], seed, start)
    log: list[LogEntry] = []
    pending = sorted(redraws)
    for action in actions + [None]:
        while pending and pending[0][0] == len(log):
            state = state.redraw_unseen(np.random.default_rng(pending.pop(0)[1]))
        if action is None:
            break
        log.append(log_entry(state, action))
        state.apply_action(int(action))
    return state, log


def log_lines(log: list[LogEntry]) -> list[tuple[int, str]]:
    """The move list's lines: each entry on its own line, or appended to the line before when it joins."""
    lines: list[tuple[int, str]] = []
    for entry in log:
        if entry.joins and lines:
            lines[-1] = (lines[-1][0], lines[-1][1] + entry.text)
        else:
            lines.append((entry.player, entry.text))
    return lines


def seat_specs(mode: str, ai: Any, players: int, human_seat: int) -> list[str | None]:
    """The agent spec of each seat (None: a person), from the menu's AI settings:
    one settings object for every AI seat, or a list used in turn."""
    settings = ai if isinstance(ai, list) else [ai]
    if not settings or not all(isinstance(s, dict) for s in settings):
        raise SpecError("'ai' must be one settings object or a non-empty list of them")
    if mode == "human-human":
        return [None] * players
    specs = [settings_spec(s, MENU_OPTIONS) for s in settings]
    if mode == "ai-ai":
        return [specs[p % len(specs)] for p in range(players)]
    if not 0 <= human_seat < players:
        raise SpecError(f"human_seat must be between 0 and {players - 1}")
    return [None if p == human_seat else specs[p % len(specs)] for p in range(players)]


@dataclass
class GameSession:
    id: str
    game: Game
    mode: str
    #: the agent spec of each seat; None for a person
    agent_specs: list[str | None]
    #: the server's secret: fixes the deal and, with the ply and ``undos``, every chance outcome
    seed: int
    state: State
    #: ``(ply, seed)`` of each redraw of what no seat had seen, made by an undo
    redraws: list[tuple[int, int]] = field(default_factory=list)
    #: undos so far: chance outcomes drawn after an undo are not the ones taken back
    undos: int = 0
    trees: list[SearchTree] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: when it was created and last used (the server's clock, seconds)
    created: float = 0.0
    touched: float = 0.0
    #: every move played, as people see it (chance outcomes of hidden cards are not named)
    log: list[LogEntry] = field(default_factory=list)
    #: the AI move in flight, if any
    ai_job: Job | None = None
    #: counts every change of the state; a job started at another version is stale
    version: int = 0
    #: why trees a client may expect are not there (restart, memory budget), for an honest 404
    trees_note: str | None = None

    @property
    def seats(self) -> list[str]:
        """What each seat is, as the page shows it: "human" or the agent spec."""
        return [PERSON if spec is None else spec for spec in self.agent_specs]

    # --- building --------------------------------------------------------------
    @classmethod
    def create(cls, game_spec: str, mode: str, ai: Any, human_seat: int | None = None,
               seed: int | None = None, position: str | None = None, limits: ServerLimits | None = None,
               now: float = 0.0) -> "GameSession":
        """A new game; ``position`` (in the game's notation) starts it from a set-up position;
        ``human_seat`` defaults to the seat to move first. Every AI seat's agent is built here, so
        that a wrong option is a 400 now rather than at its first move; :meth:`agent_check` is the
        rest of that check (a reset, which may load compiled code), for a worker process to run."""
        limits = limits or ServerLimits()
        if mode not in MODES:
            raise SpecError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
        game = make(game_spec)
        start = None
        if position is not None:
            start = game.state_from_notation(position)
            if start.is_terminal():
                raise SpecError(f"position {position!r} is already over")
        players = game.num_players()
        if seed is not None and game.game_type.has_secrets and mode != "ai-ai":
            raise SpecError(f"a seed fixes every card and roll of {game.long_name or game.name} in advance; "
                            "it may be chosen only for a game with no person in it (mode ai-ai)")
        seed = int(seed) if seed is not None else secrets.randbelow(2**63)
        if human_seat is None:
            first = game.new_initial_state(seed) if start is None else start
            human_seat = max(0, first.current_player())
        specs = seat_specs(mode, ai, players, human_seat)
        for _p, spec in enumerate(specs):
            if spec is None:
                continue
            agent = make_agent(spec, game)
            if agent.interactive:
                raise SpecError(f"agent {spec!r} needs a person at a terminal; choose a human seat instead")
            check_budget(agent.spec, agent.config, limits, type(agent).iterations_option)
        if start is not None:
            start.seed = seed
        session = cls(
            id=secrets.token_urlsafe(9),
            game=game,
            mode=mode,
            agent_specs=specs,
            seed=seed,
            state=game.new_initial_state(seed) if start is None else start,
            created=now,
            touched=now,
        )
        if session.state.history:  # a position given as a move list has a history already
            session.state, session.log = replay_logged(game, seed, None, list(session.state.history), [])
        session._play_chance()
        return session

    def rematch(self, limits: ServerLimits | None = None, now: float = 0.0) -> "GameSession":
        """A new game with this one's settings, each seat's player moved to the next seat (the person
        who moved first now moves second), a fresh seed, and the same start position."""
        with self.lock:
            specs = self.agent_specs[-1:] + self.agent_specs[:-1]
            start = self.state.start_position()
        return type(self).create_seated(self.game.spec(), self.mode, specs, position=start, limits=limits, now=now)

    @classmethod
    def create_seated(cls, game_spec: str, mode: str, specs: list[str | None], position: str | None = None,
                      limits: ServerLimits | None = None, now: float = 0.0) -> "GameSession":
        """A new game whose seats are given as they are (an agent spec, or None for a person)."""
        people = [p for p, spec in enumerate(specs) if spec is None]
        session = cls.create(game_spec, mode, {"agent": "random"}, human_seat=people[0] if people else None,
                             position=position, limits=limits, now=now)
        if len(specs) != len(session.agent_specs):
            raise SpecError(f"{len(specs)} seats given for a game of {len(session.agent_specs)} players")
        limits = limits or ServerLimits()
        for spec in specs:
            if spec is not None:
                agent = make_agent(spec, session.game)
                check_budget(agent.spec, agent.config, limits, type(agent).iterations_option)
        session.agent_specs = list(specs)
        return session

    def agent_check(self, limits: ServerLimits) -> dict[str, Any]:
        """The payload of a worker's ``check`` job: reset each AI seat's agent for this game
        (another game's evaluator, for one, is refused only then) and check its budget as it will
        search (``az``'s simulations may come from its model file) against ``limits``."""
        return {
            "limits": limits.to_dict(),
            "game": self.game.spec(),
            "seats": [(p, spec, derive_seed(self.seed, "seat", p)) for p, spec in enumerate(self.agent_specs) if spec is not None],
            "plugins": {name: agent_target(name) for name in {spec.partition(":")[0].strip() for spec in self.agent_specs if spec}},
        }

    def to_record(self) -> dict[str, Any]:
        """Everything that rebuilds this session (search trees aside), JSON ready."""
        with self.lock:
            return {
                "game": self.game.spec(),
                "mode": self.mode,
                "seats": list(self.agent_specs),
                "seed": self.seed,
                "start": self.state.start_position(),
                "actions": list(self.state.history),
                "redraws": [list(r) for r in self.redraws],
                "undos": self.undos,
            }

    @classmethod
    def restore(cls, session_id: str, record: dict[str, Any], created: float, touched: float) -> "GameSession":
        """The session ``to_record`` described, its moves replayed (no search trees)."""
        game = make(record["game"])
        redraws = [(int(ply), int(seed)) for ply, seed in record.get("redraws", [])]
        state, log = replay_logged(game, record["seed"], record.get("start"), list(record["actions"]), redraws)
        session = cls(id=session_id, game=game, mode=record["mode"], agent_specs=list(record["seats"]),
                      seed=int(record["seed"]), state=state, redraws=redraws, undos=int(record.get("undos", 0)),
                      created=created, touched=touched, log=log)
        if any(spec is not None for spec in session.agent_specs):
            session.trees_note = "the server restarted since; search trees are kept in memory only, never on disk"
        return session

    # --- moves -----------------------------------------------------------------
    def _play_chance(self) -> None:
        while not self.state.is_terminal() and self.state.is_chance_node():
            # after an undo (undos > 0) the same ply draws again, from another stream
            parts = (self.seed, "chance", len(self.state.history)) + ((self.undos,) if self.undos else ())
            self._apply(sample_chance(self.state, np.random.default_rng(derive_seed(*parts))))

    def _apply(self, action: int) -> None:
        self.log.append(log_entry(self.state, action))
        self.state.apply_action(action)

    def _changed(self, reason: str) -> None:
        """The state changed: an AI move in flight is now stale; stop its search."""
        self.version += 1
        if self.ai_job is not None:
            self.ai_job.cancel(reason)
            self.ai_job = None

    def cancel_ai(self, reason: str) -> None:
        with self.lock:
            if self.ai_job is not None:
                self.ai_job.cancel(reason)
                self.ai_job = None

    def to_move(self) -> int:
        return -1 if self.state.is_terminal() else self.state.current_player()

    def human_to_move(self) -> bool:
        player = self.to_move()
        return player >= 0 and self.agent_specs[player] is None

    def play_human(self, action: int | None = None, move: str | None = None, now: float = 0.0) -> int:
        with self.lock:
            self.touched = now
            if self.state.is_terminal():
                raise ConflictError("the game is over")
            if not self.human_to_move():
                raise ConflictError(f"it is the AI's turn (player {self.to_move() + 1}); ask for an AI move")
            if (action is None) == (move is None):
                raise SpecError("give exactly one of 'action' (an integer) or 'move' (its text)")
            if action is None:
                assert move is not None  # exactly one of the two, checked above
                action = self.state.string_to_action(move)
            if action not in self.state.legal_actions():
                raise self.state._illegal(action)
            self._changed("a move was played in this game")
            self._apply(action)
            self._play_chance()
            return action

    def start_ai(self, limits: ServerLimits, now: float = 0.0) -> Job:
        """The job that lets the agent in the seat to move choose; once it is queued,
        :meth:`adopt_ai` makes it replace the AI move in flight (a refused one replaces nothing)."""
        with self.lock:
            self.touched = now
            if self.state.is_terminal():
                raise ConflictError("the game is over")
            player = self.to_move()
            spec = self.agent_specs[player]
            if spec is None:
                raise ConflictError(f"player {player + 1} is a person; play their move by clicking")
            agent = make_agent(spec, self.game)
            caps = server_caps(agent.name, agent.config, limits)
            payload = {
                "game": self.game.spec(),
                "seed": self.seed,
                "start": self.state.start_position(),
                "history": list(self.state.history),
                "redraws": [list(r) for r in self.redraws],
                "seat": player,
                "spec": with_options(spec, caps),
                "agent_seed": derive_seed(self.seed, "seat", player, len(self.state.history)),
                "plugins": {agent.name: agent_target(agent.name)},
            }
            # a wall clock for every agent, those without a time option included
            job = Job("move", payload, wall=limits.max_ai_seconds * 1.5 + WALL_SLACK)
            job.version = self.version  # type: ignore[attr-defined]
            job.player = player  # type: ignore[attr-defined]
            return job

    def adopt_ai(self, job: Job) -> None:
        """``job`` (from :meth:`start_ai`) was queued: it replaces the AI move in flight, if any."""
        with self.lock:
            if self.ai_job is not None and self.ai_job is not job:
                self.ai_job.cancel("replaced by a newer AI move request for this game")
            if job.version != self.version:  # type: ignore[attr-defined]
                job.cancel("the game changed while the move waited")
            self.ai_job = job

    def finish_ai(self, job: Job, result: dict[str, Any], now: float = 0.0) -> int:
        """Apply the worker's answer to ``job``, unless the game moved on meanwhile."""
        with self.lock:
            if self.ai_job is job:
                self.ai_job = None
            if job.cancelled or job.version != self.version:  # type: ignore[attr-defined]
                raise Cancelled(f"cancelled: {job.cancel_reason or 'the game changed while the AI was thinking'}")
            self.touched = now
            action = int(result["action"])
            if action not in self.state.legal_actions():
                raise IllegalActionError(f"agent {result.get('agent')} chose illegal action {action}")
            root = self.state
            handle = None
            if result.get("snapshot") is not None:
                handle = SearchTreeHandle(result["snapshot"], result.get("tree_meta") or {})
            elif result.get("tree") is not None:
                handle = SearchTreeHandle.of_tree(result["tree"])
            if handle is not None:
                self.trees.append(
                    SearchTree(
                        ply=len(root.history),
                        player=job.player,  # type: ignore[attr-defined]
                        agent=str(result.get("agent") or self.agent_specs[job.player]),  # type: ignore[attr-defined]
                        action=action,
                        move=root.action_to_string(action),
                        handle=handle,
                        root_history=list(root.history),
                    )
                )
                self._bound_trees()
            self._changed("the AI moved")
            self._apply(action)
            self._play_chance()
            return action

    def _bound_trees(self) -> None:
        """Drop the oldest trees beyond MAX_TREES or MAX_TREE_NODES (the newest always stays)."""
        del self.trees[:-MAX_TREES]
        total = sum(t.nodes for t in self.trees)
        while len(self.trees) > 1 and total > MAX_TREE_NODES:
            total -= self.trees.pop(0).nodes

    def undo(self, now: float = 0.0) -> int:
        """Take back moves: to the previous turn of a person (or one move when no person plays)."""
        with self.lock:
            self.touched = now
            history = list(self.state.history)
            if self.state.is_terminal():
                raise ConflictError("the game is over: start a rematch or a new game")
            if not history:
                raise ConflictError("nothing to undo")
            humans = self.humans()
            keep = len(history) - 1
            start = self.state.start_position()
            # step back over chance moves (and AI moves, where a person plays an AI) until a
            # decision of a person's, or of anybody's in a game between people or between AIs
            deciders = humans if humans and self.mode != "human-human" else None
            while keep > 0:
                probe = self.game.state_from_history(history[:keep], self.seed, start, self._redraws_to(keep))
                if not probe.is_chance_node() and (deciders is None or probe.current_player() in deciders):
                    break
                keep -= 1
            self._changed("the move was taken back")
            self.undos += 1
            self.redraws = self._redraws_to(keep) + self._redraw_after_undo(keep)
            self.state = self.game.state_from_history(history[:keep], self.seed, start, self.redraws)
            del self.log[keep:]
            self.trees = [t for t in self.trees if t.ply < keep]
            return len(history) - keep

    def _redraw_after_undo(self, ply: int) -> list[tuple[int, int]]:
        """The redraw an undo to ``ply`` makes: what was seen after that point is unseen again and
        must not come back as it was (none in games where nothing unseen lies in the state)."""
        game_type = self.game.game_type
        if game_type.chance == "sampled" or game_type.has_hidden_information:
            return [(ply, derive_seed(self.seed, "redraw", self.undos))]
        return []

    def _redraws_to(self, ply: int) -> list[tuple[int, int]]:
        """The redraws of the game's first ``ply`` moves."""
        return [(at, seed) for at, seed in self.redraws if at <= ply]

    # --- views -----------------------------------------------------------------
    def record(self) -> GameRecord:
        with self.lock:
            if self.game.game_type.has_secrets and not self.state.is_terminal():
                raise ConflictError("the record holds the seed, which fixes every hidden card and roll to come: "
                                    "it is given once the game is over")
            return GameRecord.from_state(self.state, list(self.seats), [entry.label for entry in self.log],
                                         redraws=self.redraws)

    def trees_private(self) -> str | None:
        """Why the AI seats' search trees may not be shown now (None: they may). They are an AI
        seat's private thoughts while a person plays a game with hidden information or chance."""
        if self.game.game_type.has_secrets and self.humans() and self.mode != "human-human" \
                and not self.state.is_terminal():
            return ("the AI's search trees are its private thoughts: in a game with hidden information or chance "
                    "they would tell you what it knows; they open when the game is over")
        return None

    def open_trees(self) -> None:
        """Raise :class:`ConflictError` while the trees are private (:meth:`trees_private`)."""
        why = self.trees_private()
        if why is not None:
            raise ConflictError(why)

    def tree_prefix(self, older: SearchTree, newer: SearchTree) -> list[str]:
        """The moves' labels between two trees' roots (for matching their nodes)."""
        return [entry.label for entry in self.log[len(older.root_history): len(newer.root_history)]]

    def humans(self) -> list[int]:
        return [p for p, spec in enumerate(self.agent_specs) if spec is None]

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
            lines = log_lines(self.log)
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
                "result": self._result() if state.is_terminal() else None,
                "observation": observation,
                "board": observation.get("board"),
                "text": observation.get("text", ""),
                "legal": legal,
                # the last move by a player, for boards that animate it (not shown where cards are hidden)
                "last_action": state.history[-1] if state.history and self.log[-1].player >= 0
                and not self.game.has_hidden_information else None,
                "moves": [text for _, text in lines],
                "movers": [player for player, _ in lines],
                "plies": len(state.history),
                "trees": len(self.trees),
                "trees_private": self.trees_private(),
                "undo": bool(state.history) and not state.is_terminal(),
            }

    def _result(self) -> dict[str, Any]:
        """How a finished game ended: the winners (best returns; all of them on a draw), every
        return and score, and why it ended in the game's words."""
        returns = [float(r) for r in self.state.returns()]
        best = max(returns)
        winners = [p for p, r in enumerate(returns) if r == best]
        return {"winners": winners, "draw": len(winners) == len(returns), "returns": returns,
                "scores": [float(x) for x in self.state.scores()] if self.game.game_type.provides_scores else None,
                "reason": self.state.end_description()}
