"""A greedy Connect Four player from a Q-network trained by self-play (``boardlab train c4-qlearning``).

``qnet`` plays the committed default model (``boardlab/models/c4_qnet.pt``);
``qnet:run=stage_one-2`` the latest checkpoint of that run in the runs folder
(``runs_dir``, default ``runs``); ``qnet:path=FILE`` any checkpoint or model
file. It moves to the legal column of highest learned value (the lowest
column on ties), so it is deterministic.
"""

from __future__ import annotations

from pathlib import Path

from boardlab.agents.base import Agent
from boardlab.core.errors import SpecError
from boardlab.core.game import Game, State
from boardlab.core.params import Option

DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "c4_qnet.pt"


class QNetAgent(Agent):
    name = "qnet"
    summary = "greedy on a Q-network learned by self-play Q-learning (boardlab train c4-qlearning)"
    games = ("connect4",)
    options = {
        "run": Option("run", str, "", "training run whose latest checkpoint to play (see 'boardlab train c4-qlearning runs')"),
        "path": Option("path", str, "", "checkpoint or model file to play (default: the committed model)"),
        "runs_dir": Option("runs_dir", str, "runs", "folder holding the runs"),
    }

    def __init__(self, **options) -> None:
        super().__init__(**options)
        from boardlab.bots.connect4.network import q_function
        from boardlab.bots.connect4.qnet_files import find_run, load_qnet

        if self.config["run"] and self.config["path"]:
            raise SpecError("agent 'qnet': give run= or path=, not both")
        if self.config["run"]:
            path = find_run(self.config["run"], Path(self.config["runs_dir"])).checkpoint
        elif self.config["path"]:
            path = Path(self.config["path"])
        else:
            path = DEFAULT_MODEL
        self.model_path = path
        self.cfg, net = load_qnet(path)
        self.q = q_function(net)

    def model_files(self, game: Game) -> dict[str, Path]:
        return {"run" if self.config["run"] else "path": self.model_path}

    def reset(self, game: Game, player: int, seed: int | None = None) -> None:
        board = (game.params.get("rows"), game.params.get("cols"), game.params.get("k"))
        trained = (self.cfg.rows, self.cfg.cols, self.cfg.needed_to_win)
        if board != trained:
            raise SpecError(
                f"agent 'qnet' ({self.model_path}) was trained on {trained[0]}x{trained[1]} boards with k={trained[2]}, "
                f"not {board[0]}x{board[1]} with k={board[2]}"
            )
        super().reset(game, player, seed)

    def step(self, state: State) -> int:
        from boardlab.bots.connect4.network import greedy_actions

        return greedy_actions(self.q, [state])[0]
