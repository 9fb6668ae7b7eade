"""One conformance suite for every registered game, in the spirit of Pgx's ``api_test``.

``check_game(spec)`` runs every check on one game and raises
:class:`ConformanceError` naming the game, the check and the position that
broke it. A new game gets all of it by registering: the test suite runs it over
every game in the ``boardlab.games`` entry points (tests/test_conformance.py),
and a plug-in's own tests can call it too::

    from boardlab.conformance import check_game
    check_game("tictactoe")

The checks, one module each:

* :mod:`~boardlab.conformance.rules`: the declaration, then random legal play
  under hypothesis (legal actions, chance outcomes, returns and scores, clone
  independence, JSON and notation round trips, legal-action masks, illegal
  actions refused without damage, final returns within the declared utility range);
* :mod:`~boardlab.conformance.views`: what each seat sees never changes when
  the hidden part is redrawn, and a redraw depends only on what the seat saw;
  a redraw of what nobody has seen (an undo in the web app) keeps every view;
  the observation tensor, when the game offers one, has its declared shape and
  bounds and shows nothing hidden either;
* :mod:`~boardlab.conformance.symmetries`: each symmetry the game declares
  (``Game.symmetries``) holds along random games replayed with the mapped
  actions;
* :mod:`~boardlab.conformance.capabilities`: each capability the game provides
  (``GameType.provides``) works, its compiled engines found in the registry
  search a position, and what it does not provide it does not offer;
* :mod:`~boardlab.conformance.search_honesty`: in a game with hidden information
  and a tensor, the az agent's search (:mod:`boardlab.agents.is_puct`) takes the
  same network inputs and the same decision in two states its seat cannot tell apart;
* :mod:`~boardlab.conformance.end_to_end`: MCTS, a duel or tournament, the web
  API and a search tree saved and reopened;
* :mod:`~boardlab.conformance.fair_play`: in a game with hidden information or
  chance, a person playing through the web API learns nothing of a hidden card
  or a roll to come: no seed, no record or search tree before the end, and an
  undo that meets a fresh future.

``check_game(spec, quick=True)`` leaves out the arena and the web app (duels,
tournaments, the web API and fair play), and may check views along fewer games:
seconds per game for a fast test tier, where the whole check of a long game
(Dice Wars, Ticket to Ride) takes minutes.

The suite needs hypothesis and httpx (FastAPI's TestClient), which boardlab
itself does not: ``pip install 'boardlab[conformance]'``.
"""

from __future__ import annotations

from pathlib import Path

from boardlab.conformance.capabilities import check_capabilities
from boardlab.conformance.end_to_end import check_arena, check_search_and_trees, check_web
from boardlab.conformance.failures import ConformanceError
from boardlab.conformance.fair_play import check_fair_play
from boardlab.conformance.rules import check_declaration, check_random_play
from boardlab.conformance.search_honesty import check_search_honesty
from boardlab.conformance.symmetries import check_symmetries
from boardlab.conformance.views import check_observation_tensor, check_redraws, check_views
from boardlab.core.errors import require
from boardlab.core.registry import make

# the checks import these only when they run: without this, a missing one would surface halfway
# through a game's checks (hypothesis), or as the RuntimeError starlette raises for httpx
for _module in ("hypothesis", "httpx"):
    require(_module, _module, "conformance", "the conformance suite (boardlab.conformance)")

__all__ = ["ConformanceError", "check_game", "check_declaration", "check_random_play", "check_views", "check_redraws",
           "check_observation_tensor", "check_fair_play", "check_symmetries", "check_capabilities", "check_search_and_trees",
           "check_arena", "check_web", "check_search_honesty"]


def check_game(spec: str, examples: int = 25, scratch: str | Path | None = None, web: bool = True, quick: bool = False) -> None:
    """Run every check on the game ``spec``; ``scratch`` is a folder for the files the checks write.

    ``web=False`` leaves out the web app and fair play. ``quick=True`` leaves out the arena as well, and
    lets the view checks play as few as one game (at least 3 otherwise): a test tier run on every change
    can afford that for the longest games, while the whole check stays in the full suite."""
    import tempfile

    game = make(spec)
    check_declaration(game)
    check_random_play(game, examples)
    check_views(game, max(1 if quick else 3, examples // 3))
    check_redraws(game, max(1 if quick else 2, examples // 6))
    check_observation_tensor(game)
    check_symmetries(game)
    check_capabilities(game)
    if game.has_hidden_information and {"observation_tensor", "information_state_string"} <= game.provides:
        check_search_honesty(game)  # the az agent's search, which reads the observation tensor
    with tempfile.TemporaryDirectory() as own:
        folder = Path(scratch) if scratch is not None else Path(own)
        check_search_and_trees(game, folder)
        if quick:
            return
        check_arena(game, folder)
        if web:
            check_web(game, folder)
            check_fair_play(game, folder)
