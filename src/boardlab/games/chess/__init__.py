"""Chess over python-chess: the rules, the action encoding and the material evaluator (:mod:`.rules`)."""

from boardlab.games.chess.rules import (
    EVAL_BOUND,
    MATERIAL,
    NUM_ACTIONS,
    Chess,
    ChessState,
    decode_action,
    encode_move,
    evaluate_material,
    material_score,
)

__all__ = [
    "Chess", "ChessState", "MATERIAL", "EVAL_BOUND", "NUM_ACTIONS", "decode_action", "encode_move", "evaluate_material",
    "material_score",
]
