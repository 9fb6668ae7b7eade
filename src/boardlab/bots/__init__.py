"""Agents for one game each: solvers, hand-written experts and trained networks.

They sit above the generic agents (:mod:`boardlab.agents`) because they import
their game's module and its solver or network; the generic agents never name
a game. Each declares the games it plays (``games = ("connect4",)``).
"""
