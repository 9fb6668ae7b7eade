"""Fuzzing the web API: Schemathesis generates requests from the app's OpenAPI schema,
Hypothesis generates request bodies from the request models and around them.

The budget is fixed (derandomized, a few dozen examples per operation) so that CI
runs the same cases every time, in well under a minute. Every answer must be a
documented kind of answer: never a 500, never a traceback, an error ``detail`` of
one line, and no request may hang (each runs under a watchdog).
"""

from __future__ import annotations

import concurrent.futures
import tempfile

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardlab.web.app import create_app
from boardlab.web.limits import ServerLimits
from boardlab.web.routes.games import Move, NewGame

#: a request that takes longer than this hangs (the slowest legitimate one, a default
#: mcts move or a game set-up that loads compiled code, takes a second or two)
HANG = 60
EXAMPLES = 15

LIMITS = ServerLimits(max_ai_seconds=2, max_ai_iterations=2000, max_tree_nodes=5000, ai_workers=1,
                      upload_quota=4 * 2**20, max_upload=2**20)


DATA = tempfile.TemporaryDirectory(prefix="boardlab-fuzz-")
#: the app Schemathesis calls (its schema is read when the tests are collected); each of its
#: calls starts and stops the app, as a server would be started and stopped
APP = create_app(DATA.name + "/schema", limits=LIMITS)
schema = schemathesis.openapi.from_asgi("/api/openapi.json", APP)


@pytest.fixture(scope="module")
def fuzz_app():
    """An app that stays started for the Hypothesis tests."""
    app = create_app(DATA.name + "/models", limits=LIMITS)
    with TestClient(app):  # the app's shut-down ends its workers and deletes its files
        yield app


@pytest.fixture(scope="module", autouse=True)
def _cleanup():
    yield
    DATA.cleanup()

watchdog = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="fuzz-call")


def check_answer(response) -> None:
    """What every answer must be, whatever the request."""
    assert response.status_code < 500, (response.status_code, response.text[:500])
    assert "Traceback" not in response.text
    kind = response.headers.get("content-type", "")
    kind = kind[0] if isinstance(kind, list) and kind else kind  # Schemathesis keeps every header's values
    if response.status_code >= 400 and str(kind).startswith("application/json"):
        detail = response.json().get("detail")
        assert isinstance(detail, str) and detail and "\n" not in detail, response.text[:500]


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
def test_no_request_from_the_schema_gets_a_500_a_traceback_or_hangs(case):
    response = watchdog.submit(case.call).result(timeout=HANG)
    check_answer(response)


# --- the request models, and bodies around them ----------------------------------------
json_scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)
option_values = (st.none() | st.booleans() | st.integers(-5, 10**9) | st.floats(-1e12, 1e12, allow_nan=False)
                 | st.sampled_from(["5", "5,time=999", "1=2", "a:b", "x y", "chess_material", "none", "", "1e400", "-1"]))
agents = st.sampled_from(["mcts", "random", "human", "perfect", "nothanks-expert", "qnet", "nope", "", "mcts:time=1"])
option_keys = st.sampled_from(["iterations", "time", "c", "final", "eval", "max_nodes", "reuse", "seed", "engine", "depht", "spec"])
ai_settings = st.dictionaries(option_keys, option_values, max_size=4).flatmap(
    lambda options: agents.map(lambda agent: dict(options, agent=agent)))
games = st.sampled_from(["connect4", "connect4:rows=4,cols=4,k=3", "mancala", "chess", "nothanks", "connect4:rows=0", "chequers", "", "connect4:k=99"])
new_game_bodies = st.fixed_dictionaries(
    {"game": games, "mode": st.sampled_from(["human-ai", "ai-ai", "human-human", "robots"])},
    optional={"ai": ai_settings | st.lists(ai_settings, max_size=3) | json_values,
              "human_seat": st.integers(-2, 9) | json_scalars, "seed": st.integers(-1, 2**64) | json_scalars,
              "position": st.text(max_size=20) | st.none(), "extra": json_scalars},
)
move_bodies = st.fixed_dictionaries({}, optional={"action": st.integers(-3, 12) | json_scalars, "move": st.text(max_size=6) | json_scalars}) | json_values


@given(body=new_game_bodies)
@settings(max_examples=50, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_new_game_bodies_are_games_or_one_line_4xx(fuzz_app, body):
    client = TestClient(fuzz_app)
    response = watchdog.submit(client.post, "/api/games", json=body).result(timeout=HANG)
    check_answer(response)
    if response.status_code == 200:
        # what the model accepted is what the strict model says
        NewGame.model_validate(body)
        game = response.json()
        assert all(seat == "human" or ":" in seat or seat.replace("-", "").isalnum() for seat in game["seats"])
        assert all(",time=" not in seat or seat.count("time=") == 1 for seat in game["seats"])


@given(body=move_bodies)
@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_move_bodies_play_exactly_one_move_or_nothing(fuzz_app, body):
    client = TestClient(fuzz_app)
    game = client.post("/api/games", json={"game": "connect4", "mode": "human-human", "seed": 1}).json()
    response = client.post(f"/api/games/{game['id']}/move", json=body)
    check_answer(response)
    moves = client.get(f"/api/games/{game['id']}").json()["moves"]
    if response.status_code == 200:
        model = Move.model_validate(body)  # only a body the model accepts plays
        assert isinstance(body, dict) and (type(body.get("action")) is int) != (type(body.get("move")) is str)
        assert len(moves) == 1 and (model.action is None or moves == [str(model.action + 1)])
    else:
        assert moves == []
