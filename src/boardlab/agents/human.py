"""A person at the terminal: shows the board, asks for a move, explains mistakes."""

from __future__ import annotations

from typing import Callable

from boardlab.agents.base import Agent
from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import State


class HumanAgent(Agent):
    name = "human"
    summary = "asks a person at the terminal for each move"
    interactive = True

    def __init__(self, ask: Callable[[str], str] = input, say: Callable[[str], None] = print, **options) -> None:
        super().__init__(**options)
        self.ask = ask
        self.say = say

    def step(self, state: State) -> int:
        legal = ", ".join(state.action_to_string(a) for a in state.legal_actions())
        self.say(state.observation(state.current_player())["text"])  # what this seat may see (its own cards too)
        while True:
            try:
                text = self.ask(f"your move ({legal}; q to quit): ")
            except EOFError:
                raise BoardlabError("input ended before the game did") from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            try:
                return state.string_to_action(text)
            except IllegalActionError as exc:
                self.say(f"illegal move: {exc}")
