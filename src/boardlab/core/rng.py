"""Seeded randomness: every random choice in boardlab derives from an explicit seed."""

from __future__ import annotations

import numpy as np
from numba import njit


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


MASK64 = (1 << 64) - 1


@njit(cache=True, inline="always")
def kernel_random(rng):
    """One xorshift64* step of a :func:`kernel_rng` stream in compiled code: the next 64 random bits.
    Every game's kernel draws from this one generator, so a Python mirror can replay a kernel's choices."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(2685821657736338717)


def python_random(stream: list[int]) -> int:
    """:func:`kernel_random` in plain Python (``stream`` is a one-element list of the state)."""
    x = stream[0]
    x ^= x >> 12
    x ^= (x << 25) & MASK64
    x ^= x >> 27
    stream[0] = x
    return (x * 2685821657736338717) & MASK64
