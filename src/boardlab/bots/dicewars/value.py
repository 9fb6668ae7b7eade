"""The tuned board value of Dice Wars (``dw-emm:leaf=value``) and its weights file.

A player's board value is a weighted sum of plain counts (:data:`TERMS`): its largest region, its
areas, its expected losses before its next turn (dt.ste's hold estimate, over all its areas and
over its largest region alone), its share of the dice, its number of regions, and the strongest
other player's largest region and dice share and the sum of the other players' largest regions
(areas as a share of the map). Two more weights judge an attack rather than a board: its cost
(what an attack must gain, in value, to be made) and a bonus for attacking from 8 dice (the
reinforcement cannot add to such an area).

The weights are trained (``boardlab train dicewars-value``, :mod:`boardlab.studies.dicewars.value_tuning`):
the greedy bot of the value (the compiled ``VALUE`` policy of :mod:`boardlab.bots.dicewars.compiled`,
which makes the attack of the largest expected gain) plays thousands of games against the reference
bots for every candidate set of weights, and the weights that win most are kept. The same function is
compiled (:func:`~boardlab.bots.dicewars.compiled.board_value`) and plain here (the search's leaf);
a test checks that both give the same values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.bots.dicewars import compiled as K
from boardlab.bots.dicewars.emm_search import regions_by_player
from boardlab.core.errors import BoardlabError
from boardlab.core.files import load_once_per_version
from boardlab.games.dicewars.probabilities import WIN

TERMS = K.VALUE_TERMS
FORMAT = "boardlab-dicewars-value"
DEFAULT_MODEL = Path(__file__).resolve().parent.parent.parent / "models" / "dicewars-value.json"
ATTACK_COST, EIGHT_BONUS = TERMS.index("attack_cost"), TERMS.index("eight_dice_bonus")
_WIN_ROWS: list[list[float]] = WIN.tolist()
_MODELS: dict[tuple, dict] = {}


def check_model(data: Any, where: str) -> dict[str, Any]:
    """The weights file's contents, checked: a clear error naming ``where`` and what is wrong."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BoardlabError(f"{where}: not a Dice Wars value model (no \"format\": \"{FORMAT}\")")
    if list(data.get("terms", [])) != list(TERMS):
        raise BoardlabError(f"{where}: its terms {data.get('terms')} are not this version's {list(TERMS)}")
    players = data.get("players")
    if not isinstance(players, dict) or not players:
        raise BoardlabError(f"{where}: no weights (\"players\": {{\"4\": {{\"weights\": [...]}}}})")
    for key, entry in players.items():
        if not key.isdigit() or not 2 <= int(key) <= 8:
            raise BoardlabError(f"{where}: players {key!r} is not a number of players from 2 to 8")
        weights = entry.get("weights") if isinstance(entry, dict) else None
        if (not isinstance(weights, list) or len(weights) != len(TERMS)
                or not all(isinstance(w, (int, float)) and np.isfinite(w) for w in weights)):
            raise BoardlabError(f"{where}: players {key}: \"weights\" must be {len(TERMS)} finite numbers")
    return data


def read_model(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BoardlabError(f"{path}: cannot read a Dice Wars value model ({exc})") from None
    return check_model(data, str(path))


def load_model(path: str | Path | None = None) -> dict[str, Any]:
    """The weights file (default: the committed one), read once per file version."""
    path = Path(path) if path else DEFAULT_MODEL
    return load_once_per_version(_MODELS, path, read_model,
                                 f"dw-emm: no value model at {path} (value=PATH: a file of boardlab train dicewars-value)")


def weights_for(model: dict[str, Any], players: int) -> np.ndarray:
    """The weights trained for ``players`` players, else those of the nearest number trained
    (the terms are shares of the map and of the dice, so they carry over)."""
    trained = sorted(int(k) for k in model["players"])
    nearest = min(trained, key=lambda k: (abs(k - players), k))
    return np.array(model["players"][str(nearest)]["weights"], dtype=np.float64)


def bot_weights(model: dict[str, Any] | None = None) -> np.ndarray:
    """The compiled bots' weights table (:data:`~boardlab.bots.dicewars.compiled.WPM_TABLE`) with the
    VALUE bot's weights filled in for every number of players."""
    model = load_model() if model is None else model
    table = K.WPM_TABLE.copy()
    for players in range(2, table.shape[0]):
        table[players, K.VALUE_COLUMN:] = weights_for(model, players)
    return table


def board_values(owner, dice, adjacent, players: int, who, w) -> list[float]:
    """The board value (:func:`boardlab.bots.dicewars.compiled.board_value`) of every player in
    ``who`` (the others' entries are 0), in plain Python over lists."""
    n = len(owner)
    best, count = regions_by_player(owner, adjacent, players)
    have = [0] * players
    for d, o in zip(dice, owner):
        have[o] += d
    total = sum(have)
    losses = [0.0] * players
    areas = [0] * players
    for a, o in enumerate(owner):
        areas[o] += 1
        keep = 1.0
        row = dice[a]
        for b in adjacent[a]:
            if owner[b] != o and dice[b] > 1:
                keep *= 1.0 - _WIN_ROWS[dice[b]][row]
        losses[o] += 1.0 - keep
    sizes = [len(r) for r in best]
    out = [0.0] * players
    for p in who:
        if not areas[p]:
            continue
        region_losses = 0.0
        for a in best[p]:
            keep = 1.0
            for b in adjacent[a]:
                if owner[b] != p and dice[b] > 1:
                    keep *= 1.0 - _WIN_ROWS[dice[b]][dice[a]]
            region_losses += 1.0 - keep
        others = [q for q in range(players) if q != p]
        rival_region = max((sizes[q] for q in others), default=0)
        rival_dice = max((have[q] for q in others), default=0)
        out[p] = (w[0] * sizes[p] / n + w[1] * areas[p] / n + w[2] * losses[p] / n + w[3] * have[p] / total
                  + w[4] * rival_region / n + w[5] * rival_dice / total + w[8] * region_losses / n
                  + w[9] * count[p] / n + w[10] * sum(sizes[q] for q in others) / n)
    return out


#: leaf=value's worth of a game won and of a player out of the game: beyond any board's value
#: (a board's value stays within a few units), so that winning is always best and dying worst
WON, OUT = K.VALUE_WON, -K.VALUE_WON


class ValueLeaf:
    """``dw-emm:leaf=value``: every player's board value by the trained weights."""

    won_value = WON

    def __init__(self, adjacent, players: int, weights) -> None:
        self.adjacent, self.players = adjacent, players
        self.weights = [float(w) for w in weights]
        self.every = range(players)

    def __call__(self, pos) -> list[float]:
        owner = pos.owner
        alive = set(owner)
        if len(alive) == 1:
            return [WON if p in alive else OUT for p in self.every]
        values = board_values(owner, pos.dice, self.adjacent, self.players, self.every, self.weights)
        return [v if p in alive else OUT for p, v in enumerate(values)]
