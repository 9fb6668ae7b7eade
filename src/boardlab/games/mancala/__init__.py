"""Kalah: the rules and the store evaluator (:mod:`.rules`), and its compiled playouts (:mod:`.kernel`,
loaded when a playout kernel is first asked for, so that importing the game compiles nothing)."""

from boardlab.games.mancala.rules import STORE, Mancala, MancalaState, evaluate_store, store_value

__all__ = ["Mancala", "MancalaState", "STORE", "evaluate_store", "store_value"]
