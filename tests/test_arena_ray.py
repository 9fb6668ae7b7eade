"""The Ray backend plays the same games as serial play and the process pool, for the same seeds.

One test function, so that parallel test runs (pytest -n) start Ray once: its
start-up is the slow part.
"""

import arena_toy
import pytest
import ray

from boardlab.arena.backends import start_local_ray
from boardlab.arena.store import ResultStore
from boardlab.arena.tournament import play_missing, prepare
from boardlab.arena.worker import Job, play_scheduled
from boardlab.core.errors import IllegalActionError


@pytest.fixture(scope="module", autouse=True)
def toy_game():
    with arena_toy.registered():
        yield


def games_of(config, path, **how):
    with ResultStore(path) as store:
        assert play_missing(config, store, **how) == (0, len(config.schedule()), 0)
        return [(g.index, g.seed, g.seats, g.returns, g.scores, g.record["actions"]) for g in store.games(config.id)]


def test_ray_backend_matches_serial_and_process_pool_and_resumes(tmp_path):
    # ray.init(num_cpus=2, include_dashboard=False) with the test's sys.path for the workers
    start_local_ray(2)
    try:
        two = prepare("connect4", ["random", "random:seed=1", "random:seed=2"], games=8, seed=21)
        serial = games_of(two, tmp_path / "serial.sqlite", workers=1)
        assert games_of(two, tmp_path / "ray.sqlite", workers=2, backend="ray") == serial
        assert games_of(two, tmp_path / "pool.sqlite", workers=2, backend="process") == serial
        # a game and an agent registered at run time (by the test module) reach Ray's workers too
        three = prepare("sumrace", ["greedy", "random", "random:seed=1", "random:seed=2"], players=3, games=3, seed=4)
        assert games_of(three, tmp_path / "ray3.sqlite", workers=2, backend="ray") == games_of(three, tmp_path / "s3.sqlite", workers=1)

        # a partly played tournament: Ray plays only the missing games
        config = prepare("connect4", ["random", "random:seed=1"], games=10, seed=2)
        with ResultStore(tmp_path / "part.sqlite") as store:
            store.open_tournament(config.id, config.to_dict(), "test", 10)
            job = Job.for_specs(config.game, config.agents)
            for scheduled in config.schedule()[:4]:
                store.add_game(config.id, play_scheduled(job, scheduled))
            assert play_missing(config, store, workers=2, backend="ray") == (4, 6, 0)
            assert [g.index for g in store.games(config.id)] == list(range(10))
        # an illegal move on a Ray worker is reported as the boardlab error it is
        cheat = prepare("sumrace", ["greedy", "random", "cheater"], players=3, games=3)
        with ResultStore(tmp_path / "cheat.sqlite") as store, pytest.raises(IllegalActionError, match="cheater chose illegal"):
            play_missing(cheat, store, workers=2, backend="ray")
        assert ray.is_initialized()  # a running Ray instance is used and left running
    finally:
        ray.shutdown()
