"""The network trained to imitate the No Thanks! expert, as an agent (torch is imported when it loads its model)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from boardlab.agents.base import Agent
from boardlab.core.files import load_once_per_version
from boardlab.core.game import Game, State
from boardlab.core.params import Option
from boardlab.games.nothanks import PASS, TAKE

if TYPE_CHECKING:
    from boardlab.bots.nothanks.network import NoThanksNet

_MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
#: the committed default model: trained on the expert read with 1 = TAKE (--labels flipped),
#: the reading that plays well (docs/nothanks.md has the command that made it and its table)
DEFAULT_MODEL = _MODELS_DIR / "nothanks-flipped.pt"
#: the committed model trained on the expert's values as the study wrote them (1 = PASS)
AS_WRITTEN_MODEL = _MODELS_DIR / "nothanks.pt"

_MODELS: dict[tuple[str, int, int], "NoThanksNet"] = {}


def load_model(path: str | Path) -> "NoThanksNet":
    """Load a No Thanks! network once per file version (path, size, mtime)."""
    def read(file: Path) -> "NoThanksNet":
        from boardlab.bots.nothanks.network import read_checkpoint  # torch, only when a network plays

        return read_checkpoint(file)[0]

    return load_once_per_version(_MODELS, Path(path), read, f"nothanks-net: no model file at {path}")


class NoThanksNetAgent(Agent):
    """PASS when the network's output is above 0.5, else TAKE: it plays the reading of the
    expert it was trained on (its value, or 1 minus it for ``--labels flipped``)."""

    name = "nothanks-net"
    summary = "8-32-32-1 network imitating the No Thanks! expert read with 1 = TAKE (path=... for another model)"
    games = ("nothanks",)
    options = {"path": Option("path", str, None, f"model file (default: the committed {DEFAULT_MODEL.name}, "
                                                 f"trained on the flipped reading; {AS_WRITTEN_MODEL.name}: the study's)")}

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.model = load_model(self.config["path"] or DEFAULT_MODEL)

    def model_files(self, game: Game) -> dict[str, Path]:
        return {"path": Path(self.config["path"] or DEFAULT_MODEL)}

    def step(self, state: State) -> int:
        if PASS not in state.legal_actions():
            return TAKE
        return PASS if self.model.value(state) > 0.5 else TAKE  # type: ignore[arg-type]
