"""AlphaZero-style player: PUCT search guided by a policy-value network (``boardlab train az``).

``az:path=MODEL.pt,simulations=200`` plays the network in MODEL.pt (a model
file or a training checkpoint of ``boardlab train az``); without ``path`` it
plays the model committed for the game (``boardlab/models/az-<game spec>.pt``)
and refuses games that have none. Without ``simulations`` it searches as many as
the model file names (``meta.simulations``: a model committed to play at a rival's
time per move), else 200. In play it picks the most visited move; with
``temp_moves=N`` it draws its first N moves of a game in proportion to the
visits (so that duels between deterministic players are not one game played
over and over), and ``noise=true`` mixes Dirichlet noise into the root's
priors as in self-play training. Its trees go to the viewer like MCTS trees
(see :mod:`boardlab.agents.puct` for what the statistics mean). In a game with
hidden information it searches worlds drawn from what its seat has seen
(:mod:`boardlab.agents.is_puct`), never the true state.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from boardlab.agents.base import Agent
from boardlab.agents.is_puct import InformationSetPUCT
from boardlab.agents.puct import PUCTSearch, new_search, run_simulations
from boardlab.agents.search_tree import SearchTreeHandle
from boardlab.core.engines import puct_engine
from boardlab.core.errors import BoardlabError, SpecError
from boardlab.core.game import Game, State
from boardlab.core.params import Option, non_negative, one_of, positive
from boardlab.core.search import FIRST_PLAY_VALUES, DenseNetwork, PUCTEngine, PUCTSettings, solvable

if TYPE_CHECKING:  # az_net imports torch, which is loaded with the first model
    from boardlab.nn.az_net import Evaluator

MODELS = Path(__file__).resolve().parent.parent / "models"


def default_model_path(game: Game) -> Path:
    """Where the committed model for ``game`` lives (the spec with every non-word character as '_')."""
    return MODELS / f"az-{re.sub(r'[^A-Za-z0-9]+', '_', game.spec())}.pt"


def pick_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise BoardlabError("device cuda asked for, but torch sees no CUDA device")
    return device


def _unit_interval(value: float) -> str | None:
    return None if 0 < value <= 1 else "must be in (0, 1]"


class AZAgent(Agent):
    name = "az"
    searches = True
    iterations_option = "simulations"
    unset_iterations_bound_with_time = True
    summary = "PUCT search guided by a policy-value network trained by self-play (boardlab train az)"
    options = {
        "path": Option("path", str, "", "model file or training checkpoint (default: the game's committed model)"),
        "simulations": Option("simulations", int, None, "simulations (network evaluations) per move (default: the "
                              "number the model file names, for a model committed to play with more, else 200)",
                              positive),
        "time": Option("time", float, None, "seconds per move; with simulations, whichever ends first", positive),
        "c": Option("c", float, 1.5, "PUCT exploration constant", non_negative),
        "temp_moves": Option("temp_moves", int, 0, "moves of each game drawn in proportion to visits instead of the most visited", non_negative),
        "noise": Option("noise", bool, False, "mix Dirichlet noise into the root's priors (self-play training does)"),
        "alpha": Option("alpha", float, 1.0, "Dirichlet concentration of the root noise", positive),
        "seed": Option("seed", int, None, "seed of the noise and of drawn moves (default: from the game seed)", non_negative),
        "device": Option("device", str, "cpu", "where the network runs: auto, cpu or cuda", one_of("auto", "cpu", "cuda")),
        "keep_trees": Option("keep_trees", int, 8, "number of last moves' trees kept in agent.trees", non_negative),
        "discount": Option("discount", float, None, "a value k plies below a node counts discount**k there "
                           "(default: the discount the model was trained with, else 1)", _unit_interval),
        "fpu": Option("fpu", str, None, "the value of a move not yet tried: zero (the AlphaZero paper) or mean (of the "
                      "moves tried from the same position: a won position's other moves still get tried, but in a lost "
                      "one a saving move with a small prior may never be); default: the model's own (what its self-play "
                      "used, or what it was committed to play with), else zero", one_of(*FIRST_PLAY_VALUES)),
        "take_wins": Option("take_wins", bool, True, "play a move the search found to win at once, whatever its "
                            "visits (not among the moves drawn by temp_moves)"),
        "solver": Option("solver", str, "auto", "prove wins, draws and losses as the search reaches them (MCTS-Solver), "
                         "play the quickest proven win and no move proven lost while another is not: on, off, or auto "
                         "(on in two-player zero-sum games without chance or hidden information)",
                         one_of("auto", "on", "off")),
        "engine": Option("engine", str, "auto", "auto (the game's compiled PUCT when it offers one for this network on the CPU), "
                         "compiled or generic; both search alike", one_of("auto", "compiled", "generic")),
    }
    #: before the option, every search was the generic one
    options_added_since = {"engine": "generic", "discount": None, "fpu": "zero", "take_wins": False, "solver": "off"}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._evaluator: Evaluator | None = None
        self._dense: DenseNetwork | None = None  # the network as arrays, for the game's compiled engine (CPU, MLP only)
        self._payload: dict[str, Any] | None = None
        self._trees: list[SearchTreeHandle] = []
        self._solve = False  # whether searches prove results: set by reset, from the option and the game
        self.model_path: Path | None = Path(self.config["path"]) if self.config["path"] else None
        if self.model_path is not None:
            self._load(self.model_path, None)

    @classmethod
    def plays(cls, game: Game) -> str | None:
        if game.has_hidden_information and "information_state_string" not in game.provides:
            return (f"agent 'az' searches a game with hidden information through its information states, which "
                    f"{game.name} does not write")
        if "observation_tensor" not in game.provides:
            return f"agent 'az' needs an observation tensor, which {game.name} does not offer"
        return None

    def model_files(self, game: Game) -> dict[str, Path]:
        return {"path": Path(self.config["path"]) if self.config["path"] else default_model_path(game)}

    @classmethod
    def plays_by_default(cls, game: Game) -> str | None:
        problem = cls.plays(game)
        if problem is None and not default_model_path(game).is_file():
            problem = f"agent 'az' has no committed model for {game.spec()}; give one with path="
        return problem

    def _load(self, path: Path, game: Game | None) -> None:
        from boardlab.nn.az_net import Evaluator, dense_network, load_model

        net, payload = load_model(path, game)
        self._payload = payload
        self._evaluator = Evaluator(net, pick_device(self.config["device"]))
        self._dense = dense_network(net) if self._evaluator.device == "cpu" else None

    def reset(self, game: Game, player: int, seed: int | None = None) -> None:
        from boardlab.nn.az_net import check_model_game

        problem = self.plays(game)
        if problem:
            raise SpecError(problem)
        unsolvable = solvable(game)
        if self.config["solver"] == "on" and unsolvable:
            raise SpecError(f"agent 'az': solver=on proves results in two-player zero-sum games without chance or hidden "
                            f"information only; {unsolvable}")
        self._solve = self.config["solver"] == "on" or (self.config["solver"] == "auto" and unsolvable is None)
        if self.model_path is None:
            path = default_model_path(game)
            if not path.is_file():
                raise SpecError(f"agent 'az': no path= given and no committed model for {game.spec()} "
                                f"(train one with 'boardlab train az --game {game.spec()}')")
            self._load(path, game)
            self.model_path = path  # once loaded: a file that failed to load is tried again next time
        assert self._payload is not None  # loaded with the model, at construction or just above
        check_model_game(self._payload, game, str(self.model_path))
        super().reset(game, player, seed)
        self._trees = []
        self._warm_up(game)

    def _warm_up(self, game: Game) -> None:
        """Load the compiled engine's code now, not in the first move's time (its own generator: the
        agent's draws stay as they were)."""
        factory = puct_engine(game) if self.config["engine"] != "generic" and self._dense is not None else None
        if factory is not None:
            assert self._dense is not None  # checked above
            factory(game.new_initial_state(), self._dense, PUCTSettings(c=1.0), np.random.default_rng(0)).run(1)

    def step(self, state: State) -> int:
        start = time.perf_counter()
        player = state.current_player()
        if state.is_terminal() or player < 0:
            raise BoardlabError("az: there is no move to choose in this state (terminal or chance node)")
        if self.game is None or state.game != self.game:
            self.reset(state.game, player)
        noise = (self.config["alpha"], 0.25) if self.config["noise"] else None
        search = self._new_search(state, noise, self._discount())
        deadline = None if self.config["time"] is None else start + self.config["time"]
        if isinstance(search, (PUCTSearch, InformationSetPUCT)):
            assert self._evaluator is not None  # loaded by reset
            run_simulations([search], self._simulations(), self._evaluator.evaluate, self.stop, deadline)
        else:
            search.run(self._simulations(), deadline, self.stop)
        temperature = 1.0 if state.move_number() < self.config["temp_moves"] else 0.0
        action = search.choose(temperature)  # with the solver, the quickest proven win first
        wins = search.immediate_wins() if self.config["take_wins"] and temperature == 0 else []
        if wins and action not in wins:
            # the most visited move can be a likely one the search had not yet seen through
            visits = {ch.action: ch.visits for ch in search.root_children()}
            action = max(wins, key=lambda a: (visits[a], -a))
        seconds = time.perf_counter() - start
        children = sorted(search.root_children(), key=lambda ch: -ch.visits)
        priors = search.root_priors()
        proofs = search.root_proofs()
        self.last_search = {
            "engine": search.engine,
            "discount": search.discount,
            "discount_toward": self._discount_toward(),
            "fpu": self._fpu(),
            "solver": self._solve,
            "simulations": search.simulations,
            "seconds": seconds,
            "simulations_per_second": search.simulations / seconds if seconds > 0 else None,
            "root_visits": search.root_visits(),
            "stopped": self.stop.is_set(),
            "children": [
                {"action": ch.action, "move": state.action_to_string(ch.action), "visits": ch.visits,
                 "wins": ch.wins, "mean": ch.mean, "prior": priors[ch.action],
                 # proven: [result for the player to move (1 win, 0 draw, -1 loss), plies to the end after the move]
                 "proof": list(proofs[ch.action]) if ch.action in proofs else None}
                for ch in children if ch.visits > 0 or ch.action in proofs
            ],
            "action": action,
            "move": state.action_to_string(action),
            "step_seconds": seconds,
        }
        if self.config["keep_trees"] > 0:
            meta = {"game": state.game.spec(), "agent": self.spec, "move_number": state.move_number(), "player": player,
                    "engine": search.engine, "iterations": search.simulations, "seconds": seconds,
                    "chosen": state.action_to_string(action)}
            self._trees.append(SearchTreeHandle(search.snapshot(), meta))
            del self._trees[: -self.config["keep_trees"]]
        return action

    def _model_setting(self, name: str, fallback: Any) -> Any:
        """The option ``name`` as given, else the model file's own (its meta), else ``fallback``."""
        if self.config[name] is not None:
            return self.config[name]
        return (self._payload or {}).get("meta", {}).get(name, fallback)

    def _fpu(self) -> str:
        return str(self._model_setting("fpu", "zero"))

    def _simulations(self) -> int:
        return int(self._model_setting("simulations", 200))

    def play_budget(self) -> dict[str, Any]:
        """The options, with the simulations the model file names where the option is unset (known once a
        model is loaded: at construction with ``path``, else at :meth:`reset`)."""
        return {**self.config, "simulations": self._simulations()}

    def _discount(self) -> float:
        return float(self._model_setting("discount", 1.0))

    def _discount_toward(self) -> float:
        """What the model's discounted values fade toward (its file says; not an option: a network's values mean
        what it was trained on)."""
        return float((self._payload or {}).get("meta", {}).get("discount_toward", 0.0))

    def _new_search(self, state: State, noise: tuple[float, float] | None,
                    discount: float) -> PUCTSearch | InformationSetPUCT | PUCTEngine:
        engine = self.config["engine"]
        settings = PUCTSettings(c=self.config["c"], noise=noise, discount=discount, fpu=self._fpu(), solve=self._solve,
                                discount_toward=self._discount_toward())
        factory = puct_engine(state.game) if engine != "generic" and self._dense is not None else None
        if factory is not None:
            assert self._dense is not None  # checked above
            return factory(state, self._dense, settings, self.rng)
        if engine == "compiled":
            why = (f"{state.game.name} offers no compiled PUCT engine" if self._dense is not None
                   else "its network is not an MLP of one value on the CPU")
            raise SpecError(f"agent 'az': engine=compiled is not possible here: {why}")
        return new_search(state, settings, self.rng)

    @property
    def trees(self):
        return [handle.tree() for handle in self._trees]

    def last_tree(self) -> SearchTreeHandle | None:
        return self._trees[-1] if self._trees else None
