"""Fair play through the web API: a person learns nothing of a hidden card or a roll to come.

For every game that declares hidden information or chance (``GameType.has_secrets``)
the checks play as a cheating client would, through the HTTP API only, and use
the server's own state as the truth to compare with:

* a seed chosen by the client is refused while a person plays;
* while the game runs, the record (which holds the seed) and the AI seats' search
  trees are refused with 409, and every view a person gets stays byte for byte
  the same when what that person cannot see is drawn again (``state.resample``);
  at the end the record is given, replays (undos' redraws included) and the
  trees open;
* **undo meets a fresh future**: at many decisions the person plays a move,
  notes what it learned (the next card, the roll: its information state after
  the move, read from the server's truth), takes it back and plays it again. Over at least ``draws`` such tries whose outcome was uncertain, the
  same outcome may come back no more often than independent fresh draws would
  bring it (estimated by simulating the server's own fresh draws from the
  position); a server that replays the future from a fixed seed matches every time.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import numpy as np

from boardlab.conformance.failures import expect
from boardlab.core.game import Game, State
from boardlab.core.rng import sample_chance

#: tries of "move, undo, same move" whose outcome was uncertain, per game checked
DRAWS = 100
#: worlds simulated to estimate how often a fresh draw repeats the first outcome
WORLDS = 100
#: tries whose outcome repeats with a higher probability than this tell too little, and are not counted
INFORMATIVE = 0.75
#: games of people that may be started to gather the tries
MAX_GAMES = 200
#: games after which a game none of whose undoable moves had an uncertain outcome is passed: in
#: such a game (Kuhn poker: the only draw is the deal, before any move) an undo has no future to show
SCOUT_GAMES = 20
#: the AI of the game played against a person (it must search, so that it has trees to keep private)
AI = {"agent": "mcts", "iterations": 10}


def check_fair_play(game: Game, folder: Path, draws: int = DRAWS, seed: int = 0) -> None:
    """Every check of the module docstring on ``game`` (nothing to check in a game without secrets)."""
    if not game.game_type.has_secrets:
        return
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    rng = np.random.default_rng(seed)
    with TestClient(create_app(folder / "fair-play")) as client:
        refused = client.post("/api/games", json={"game": game.spec(), "mode": "human-ai", "seed": 1, "ai": AI})
        expect(refused.status_code == 400 and "seed" in refused.json()["detail"], game, "fair play",
               f"a client's seed was not refused in a game with a person ({refused.status_code})")
        play_against_ai(client, game, rng)
        check_undo_statistics(client, game, rng, draws)


def play_against_ai(client, game: Game, rng: np.random.Generator, undo_every: int = 7,
                    ai: dict[str, Any] | None = None) -> None:
    """A person (random moves, an undo now and then) against a searching AI (default :data:`AI`) to the end."""
    view = _post(client, "/api/games", {"game": game.spec(), "mode": "human-ai", "ai": ai or AI,
                                        "human_seat": int(rng.integers(game.num_players()))})
    game_id, person = view["id"], view["viewer"]
    session = client.app.state.sessions.get(game_id)
    turns = 0
    for _ in range(4 * game.max_game_length()):
        if view["terminal"]:
            break
        expect(view["trees_private"] is not None, game, "fair play", "the view does not say that the AI's trees are private")
        for url in ("record", "trees", "trees/0/data", "trees/0/nodes/0", "trees/0/export?format=csv"):
            answer = client.get(f"/api/games/{game_id}/{url}")
            expect(answer.status_code == 409, game, "fair play", f"GET {url} answered {answer.status_code} while the game runs")
        if not view["human_to_move"]:
            view = _post(client, f"/api/games/{game_id}/ai-move")
            continue
        check_resample_changes_nothing(client, game, game_id, session, person, rng)
        turns += 1
        if turns % undo_every == 0 and view["plies"] > 0:
            view = _post(client, f"/api/games/{game_id}/undo")
            continue
        view = _post(client, f"/api/games/{game_id}/move", {"action": _pick(view, rng)})
    expect(view["terminal"], game, "fair play", "the person's game against the AI did not end")
    record = client.get(f"/api/games/{game_id}/record")
    expect(record.status_code == 200, game, "fair play", f"the record of a finished game answered {record.status_code}")
    from boardlab.core.records import GameRecord

    GameRecord.from_dict(record.json(), "the finished game's record").replay()
    trees = client.get(f"/api/games/{game_id}/trees")
    expect(trees.status_code == 200 and len(trees.json()) > 0, game, "fair play", "the trees did not open at the end")


def check_resample_changes_nothing(client, game: Game, game_id: str, session, person: int,
                                   rng: np.random.Generator) -> None:
    """What the person is sent is the same when everything the person cannot see is drawn again."""
    def sent() -> list[str]:
        return [client.get(f"/api/games/{game_id}").text, client.get(f"/api/games/{game_id}/legal").text]

    before = sent()
    truth = session.state
    session.state = truth.resample(person, np.random.default_rng(int(rng.integers(2**32))))
    try:
        after = sent()
    finally:
        session.state = truth
    expect(after == before, game, "fair play", "a view changes when what the person cannot see is redrawn: it shows hidden information")


def check_undo_statistics(client, game: Game, rng: np.random.Generator, draws: int,
                          prefer: Callable[[dict[str, Any]], list[int]] | None = None) -> int:
    """People in every seat; at each decision: move, note what it showed, undo, the same move again.
    ``prefer(view)`` names the moves to try where it can (the blind draws, say; default: any legal
    move), else a random legal move is played on. Returns the number of tries counted (0 when
    no undoable move in :data:`SCOUT_GAMES` games had an uncertain outcome)."""
    tries: list[tuple[bool, float]] = []
    for played in range(MAX_GAMES):
        if played == SCOUT_GAMES and not tries:
            return 0
        view = _post(client, "/api/games", {"game": game.spec(), "mode": "human-human"})
        game_id = view["id"]
        session = client.app.state.sessions.get(game_id)
        while not view["terminal"] and len(tries) < draws:
            wanted = prefer(view) if prefer is not None else []
            seat = view["to_move"]
            action = int(wanted[int(rng.integers(len(wanted)))]) if wanted else _pick(view, rng)
            truth = session.state.clone()
            first = _post(client, f"/api/games/{game_id}/move", {"action": action})
            learned = session.state.information_state_string(seat)
            # a move that ends the game cannot be taken back (the end shows everything anyway); the
            # probability, a hundred simulated draws, is worked out only for the moves the check may try
            tried = (prefer is None or action in wanted) and not first["terminal"]
            p = repeat_probability(truth, action, seat, learned, rng) if tried else 1.0
            if tried and p <= INFORMATIVE:
                back = _post(client, f"/api/games/{game_id}/undo")
                expect(back["plies"] == len(truth.history), game, "fair play",
                       f"undo went back to ply {back['plies']}, not to the move taken back (ply {len(truth.history)})")
                first = _post(client, f"/api/games/{game_id}/move", {"action": action})
                tries.append((session.state.information_state_string(seat) == learned, p))
            view = first
        if len(tries) >= draws:
            break
    expect(len(tries) >= draws, game, "fair play",
           f"only {len(tries)} moves with an uncertain outcome in {MAX_GAMES} games; the check needs {draws}")
    matched = sum(same for same, _ in tries)
    expected = sum(p for _, p in tries)
    spread = math.sqrt(sum(p * (1 - p) for _, p in tries))
    expect(matched <= expected + 4 * spread + 2, game, "fair play",
           f"after an undo the same move showed the same outcome in {matched} of {len(tries)} tries, where fresh "
           f"draws repeat it about {expected:.1f} times: an undo replays the future")
    return len(tries)


def repeat_probability(truth: State, action: int, seat: int, learned: str, rng: np.random.Generator,
                       worlds: int = WORLDS) -> float:
    """How often ``action`` from ``truth`` teaches ``seat`` what it did (``learned``, its information
    state after the move and the chance that followed) when what no seat has seen is drawn afresh
    and chance is drawn again: the server's own fresh draws, simulated."""
    same = 0
    for _ in range(worlds):
        world = truth.redraw_unseen(np.random.default_rng(int(rng.integers(2**63))))
        world.apply_action(action)
        while not world.is_terminal() and world.is_chance_node():
            world.apply_action(sample_chance(world, rng))
        same += world.information_state_string(seat) == learned
    return same / worlds


def _pick(view: dict[str, Any], rng: np.random.Generator) -> int:
    return int(view["legal"][int(rng.integers(len(view["legal"])))]["action"])


def _post(client, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = client.post(url, json=body) if body is not None else client.post(url)
    if answer.status_code != 200:
        raise AssertionError(f"POST {url}: {answer.status_code} {answer.text[:300]}")
    return answer.json()


