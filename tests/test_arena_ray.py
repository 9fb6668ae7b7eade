"""The Ray backend plays the same games as serial play and the process pool, for the same seeds."""

import arena_toy  # noqa: F401  (registers the 3-player test game and the greedy agent)
import pytest
import ray

from boardlab.arena.store import ResultStore
from boardlab.arena.tournament import play_missing, prepare


@pytest.fixture(scope="module")
def local_ray():
    # one small local instance for the module; Ray's start-up is the slow part
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def games_of(config, path, **how):
    with ResultStore(path) as store:
        assert play_missing(config, store, **how) == (0, len(config.schedule()))
        return [(g.index, g.seed, g.seats, g.returns, g.scores, g.record["actions"]) for g in store.games(config.id)]


def test_serial_process_and_ray_backends_give_identical_results(local_ray, tmp_path):
    two = prepare("connect4", ["random", "random:seed=1", "random:seed=2"], games=8, seed=21)
    serial = games_of(two, tmp_path / "serial.sqlite", workers=1)
    assert games_of(two, tmp_path / "ray.sqlite", workers=2, backend="ray") == serial
    assert games_of(two, tmp_path / "pool.sqlite", workers=2, backend="process") == serial
    # a game and agent registered at run time (here by the test module) reach Ray's workers too
    three = prepare("sumrace", ["greedy", "random", "random:seed=1", "random:seed=2"], players=3, games=3, seed=4)
    assert games_of(three, tmp_path / "ray3.sqlite", workers=2, backend="ray") == games_of(three, tmp_path / "s3.sqlite", workers=1)


def test_ray_resumes_a_partly_played_tournament(local_ray, tmp_path):
    config = prepare("connect4", ["random", "random:seed=1"], games=10, seed=2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        store.open_tournament(config.id, config.to_dict(), "test", 10)
        from boardlab.arena.worker import Job, play_scheduled

        job = Job.for_specs(config.game, config.agents)
        for scheduled in config.schedule()[:4]:
            store.add_game(config.id, play_scheduled(job, scheduled))
        assert play_missing(config, store, workers=2, backend="ray") == (4, 6)
        assert [g.index for g in store.games(config.id)] == list(range(10))
