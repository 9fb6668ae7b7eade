"""The games. ``make("connect4", rows=6, cols=7, k=4)`` builds one by name.

Each game lives in its own module and is imported on first use.
"""

from boardlab.core.registry import game_class, game_names, make, register_game

__all__ = ["make", "game_names", "game_class", "register_game"]
