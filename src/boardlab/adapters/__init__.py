"""boardlab in other people's frameworks, and theirs in boardlab.

* :mod:`boardlab.adapters.pettingzoo`: every registered game as a PettingZoo
  AEC environment (``env("connect4")``), for reinforcement-learning code;
* :mod:`boardlab.adapters.openspiel`: every OpenSpiel game as a boardlab game
  (``openspiel:hex:board_size=7``) and OpenSpiel's bots as boardlab agents
  (``openspiel-mcts``, ``openspiel-random``, ``openspiel-az``);
* :mod:`boardlab.adapters.text_image`: a position's text drawn as an RGB image.

Each adapter imports its framework only when used: both are optional extras
(``pip install 'boardlab[pettingzoo]'``, ``'boardlab[openspiel]'``), and a
missing one is a :class:`~boardlab.core.errors.MissingDependencyError` that
says what to install. Adapters read the game protocol and never a game's name.
"""
