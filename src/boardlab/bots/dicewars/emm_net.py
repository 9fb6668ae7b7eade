"""``dw-emm:leaf=net``: the win-probability network as the search's leaf value.

A leaf is worth, to every seat, the network's chance that the seat wins from the leaf's board
(:mod:`boardlab.bots.dicewars.network`, the study's 552 inputs with the turn count the position
carries). A won game stays worth 1, as with the score leaf.

Why two passes: one board through the 1024-1024 network costs a fraction of a millisecond on a
CPU core, a batch of a hundred costs little more per call than a handful, and a decision has
about a hundred leaves. The tree's *shape* does not depend on the leaf values (every candidate
within the breadth is searched whatever the others are worth; nothing is cut by value), so a
first pass walks the tree with placeholder values and collects the leaves, the network scores
them all in one batch, and a second pass walks the same tree again and takes the values in the
same order. The random stream (sampled reinforcements) and the node count are rewound between
the passes, so the search is the one a leaf-by-leaf evaluation would have made.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boardlab.bots.dicewars.features import adjacency_bits, features
from boardlab.core.errors import BoardlabError
from boardlab.core.files import load_once_per_version

DEFAULT_MODEL = Path(__file__).resolve().parent.parent.parent / "models" / "dicewars-winprob.pt"
_MODELS: dict[tuple, tuple] = {}


def load_model(path: str | Path | None):
    """The network and its config, loaded once per file version (path, size, mtime)."""
    from boardlab.bots.dicewars import network

    path = Path(path) if path else DEFAULT_MODEL
    return load_once_per_version(_MODELS, path, lambda p: network.load(p)[:2],
                                 f"dw-emm: no win-probability network at {path} (net=PATH: a model of boardlab train dicewars-winprob)")


class NetLeaf:
    """The leaf function of one decision's :class:`~.emm_search.Search` (``leaf=``), and its batched root."""

    def __init__(self, loaded, adjacent, players: int, batched: bool = True) -> None:
        model, config = loaded
        if players != config.players or len(adjacent) != config.areas:
            raise BoardlabError(f"dw-emm:leaf=net: the network was trained for {config.players} players and {config.areas} "
                                f"areas; this game has {players} players and {len(adjacent)} areas")
        self.model, self.players, self.batched = model, players, batched
        self.bits = adjacency_bits(adjacent)
        self._pending: list | None = None
        self._values: list | None = None
        self.evaluated = 0

    def evaluate(self, positions) -> np.ndarray:
        """Each seat's chance to win from each position, (positions, players)."""
        import torch

        owner = np.array([p.owner for p in positions], dtype=np.int64)
        dice = np.array([p.dice for p in positions], dtype=np.int64)
        turns = np.array([p.turns for p in positions], dtype=np.int64)
        x = torch.from_numpy(features(self.bits, owner, dice, turns, self.players))
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # small batches: extra threads cost more than they give, and the arena runs one game a core
        try:
            with torch.inference_mode():
                p = torch.softmax(self.model(x).double(), dim=1).numpy()
        finally:
            torch.set_num_threads(threads)
        self.evaluated += len(positions)
        return p

    def __call__(self, pos) -> list[float]:
        if self._pending is not None:
            self._pending.append(pos)
            return [0.0] * self.players
        if self._values is not None:
            if not self._values:
                raise AssertionError("dw-emm:leaf=net: the second pass saw more leaves than the first")
            return self._values.pop()
        return self.evaluate([pos])[0].tolist()

    def root(self, search, pos, attacks: int, record: bool):
        """``search.root(pos, attacks, record)`` with the leaves scored in one batch (see the module's doc)."""
        if not self.batched:
            return search.root(pos, attacks, record)
        nodes, rng_state = search.nodes, search.rng.bit_generator.state
        self._pending = []
        try:
            search.root(pos, attacks, False)
            leaves = self._pending
        finally:
            self._pending = None
        search.nodes, search.rng.bit_generator.state = nodes, rng_state
        values = self.evaluate(leaves).tolist() if leaves else []
        self._values = values[::-1]
        try:
            out = search.root(pos, attacks, record)
            if self._values:
                raise AssertionError("dw-emm:leaf=net: the second pass saw fewer leaves than the first")
        finally:
            self._values = None
        return out
