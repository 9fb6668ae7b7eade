"""``perfect``: optimal Connect Four play (7x6) from the solver and its opening book.

It plays a move of the best score in Pons' convention: the quickest win, else a
draw, else the slowest loss; ties are broken by the agent's seeded generator.
Positions in the shipped opening book are answered at once, and the search
takes the book's scores for any position it meets, so positions one move off a
book line cost a few lookups. Others are solved: milliseconds late in the game,
seconds to minutes for early balanced positions far from the book's lines (see
docs/benchmarks/solver.md for what the book covers and the times measured).

``perfect:depth=N`` is a weaker player: negamax N plies deep (its own move
included) that scores games decided within the horizon exactly and all else 0.
"""

from __future__ import annotations

from boardlab.agents.base import Agent
from boardlab.core.errors import SpecError
from boardlab.core.game import Game, State
from boardlab.core.params import Option, non_negative
from boardlab.games.connect4.solver import HEIGHT, WIDTH, Position, Solver, depth_limited_scores


def _depth_ok(value: int) -> str | None:
    return None if value >= 0 else "must be 0 (no limit) or a number of plies >= 1"


class PerfectAgent(Agent):
    name = "perfect"
    summary = "Connect Four 7x6: optimal moves from the solver (depth=N: a weaker N-ply search)"
    games = ("connect4",)
    options = {
        "depth": Option("depth", int, 0, "plies searched; 0 = solve exactly (perfect play)", _depth_ok),
        "book": Option("book", bool, True, "use the shipped opening book for early positions"),
        "seed": Option("seed", int, None, "seed of its choice among equally good moves (default: from the game seed)", non_negative),
    }

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self._solver: Solver | None = None
        #: (score, optimal columns) of the last position it played in
        self.last_choice: tuple[int, list[int]] | None = None

    @classmethod
    def plays(cls, game: Game) -> str | None:
        if game.name != "connect4" or (game.params["rows"], game.params["cols"], game.params["k"]) != (HEIGHT, WIDTH, 4):
            return (f"agent 'perfect' plays standard Connect Four only (connect4 with 7 columns, 6 rows, k=4), "
                    f"not {game.spec()}")
        return None

    def reset(self, game: Game, player: int, seed: int | None = None) -> None:
        problem = self.plays(game)
        if problem:
            raise SpecError(problem)
        super().reset(game, player, seed)

    @property
    def solver(self) -> Solver:
        if self._solver is None:
            book = None
            if self.config["book"]:
                from boardlab.games.connect4.book import default_book

                book = default_book()
            self._solver = Solver(book=book)
        return self._solver

    def choices(self, state: State) -> tuple[int, list[int]]:
        """The best score this agent sees and the columns (actions) that reach it."""
        pos = Position.from_state(state)
        depth = self.config["depth"]
        if depth > 0:
            scores = depth_limited_scores(pos, depth)
            best = max(scores.values())
            return best, [c for c, s in scores.items() if s == best]
        return self.solver.best_moves(pos)

    def step(self, state: State) -> int:
        if self.game is None:
            self.reset(state.game, state.current_player())  # type: ignore[attr-defined]
        best, columns = self.choices(state)
        self.last_choice = (best, columns)
        return columns[int(self.rng.integers(len(columns)))]
