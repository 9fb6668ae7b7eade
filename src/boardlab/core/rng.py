"""Seeded randomness: every random choice in boardlab derives from an explicit seed."""

from __future__ import annotations

import numpy as np


def derive_seed(*parts: int | str) -> int:
    """A 63-bit seed determined by ``parts`` (a base seed, a game index, a seat...).

    Uses numpy's SeedSequence so that nearby inputs give unrelated streams.
    """
    entropy = [p if isinstance(p, int) else int.from_bytes(p.encode(), "little") for p in parts]
    entropy = [e & 0xFFFFFFFFFFFFFFFF for e in entropy]
    return int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def sample_chance(state, rng: np.random.Generator) -> int:
    """Draw a chance outcome of ``state`` with the probabilities it gives."""
    outcomes = state.chance_outcomes()
    actions = [a for a, _ in outcomes]
    probs = np.array([p for _, p in outcomes], dtype=float)
    return int(actions[rng.choice(len(actions), p=probs / probs.sum())])


def kernel_rng(seed: int) -> np.ndarray:
    """The state of the xorshift64* stream that compiled kernels advance: one uint64, never zero."""
    return np.array([(int(seed) * 0x9E3779B97F4A7C15 | 1) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64)
