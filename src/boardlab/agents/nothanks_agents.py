"""No Thanks! agents: the imitation study's expert and the network trained to imitate it."""

from __future__ import annotations

from pathlib import Path

from boardlab.agents.base import Agent
from boardlab.core.errors import BoardlabError
from boardlab.core.game import State
from boardlab.core.params import Option
from boardlab.games.nothanks import PASS, TAKE
from boardlab.games.nothanks_expert import expert_value
from boardlab.nn.nothanks_net import NoThanksNet, load_checkpoint

#: the committed model (see docs/nothanks.md for the command that made it)
DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "nothanks.pt"

_MODELS: dict[tuple[str, int, int], NoThanksNet] = {}


def load_model(path: str | Path) -> NoThanksNet:
    """Load a No Thanks! network once per file version (path, size, mtime)."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError:
        raise BoardlabError(f"nothanks-net: no model file at {path}") from None
    key = (str(path.resolve()), info.st_size, info.st_mtime_ns)
    if key not in _MODELS:
        _MODELS[key] = load_checkpoint(path)[0]
    return _MODELS[key]


def _check_game(state: State) -> None:
    if state.game.name != "nothanks":
        raise BoardlabError(f"this agent plays nothanks, not {state.game.name}")


class NoThanksExpertAgent(Agent):
    """PASS when the study's expert value is above 0.5, else TAKE (forced TAKE without chips).

    ``read=flipped`` reads the expert's scale the other way round (1 = TAKE),
    the reading under which most of its rules make sense to a player (see
    :mod:`boardlab.games.nothanks_expert`); it is not the study's expert and
    serves only to show how much the direction of the scale matters.
    """

    name = "nothanks-expert"
    summary = "the No Thanks! imitation study's rule-based expert, rules as written"
    games = ("nothanks",)
    options = {"read": Option("read", str, "as-written", "as-written (1 = PASS, the study) or flipped (1 = TAKE)",
                              lambda v: None if v in ("as-written", "flipped") else "must be as-written or flipped")}

    def step(self, state: State) -> int:
        _check_game(state)
        if PASS not in state.legal_actions():
            return TAKE
        says_pass = expert_value(state) > 0.5  # type: ignore[arg-type]
        if self.config["read"] == "flipped":
            says_pass = expert_value(state) < 0.5  # type: ignore[arg-type]
        return PASS if says_pass else TAKE


class NoThanksNetAgent(Agent):
    """PASS when the network's predicted expert value is above 0.5, else TAKE."""

    name = "nothanks-net"
    summary = "8-32-32-1 network trained to imitate the No Thanks! expert"
    games = ("nothanks",)
    options = {"path": Option("path", str, None, f"model file (default: the committed {DEFAULT_MODEL.name})")}

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.model = load_model(self.config["path"] or DEFAULT_MODEL)

    def step(self, state: State) -> int:
        _check_game(state)
        if PASS not in state.legal_actions():
            return TAKE
        return PASS if self.model.value(state) > 0.5 else TAKE  # type: ignore[arg-type]
