"""Loading a model trained by OpenSpiel's AlphaZero (``open_spiel.python.algorithms.alpha_zero``).

An OpenSpiel AlphaZero run writes, in its folder, ``config.json`` (the game,
the network's kind and size, the observation shape...) and checkpoints
``checkpoint-STEP`` (``checkpoint--1`` is the latest). :func:`load_model`
rebuilds the network from the config the way OpenSpiel does and restores a
checkpoint, for the ``openspiel-az`` agent. OpenSpiel's AlphaZero runs on JAX
(Flax, Optax, Orbax, Chex), which boardlab does not install: a missing one is
a one-line error that names them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError, MissingDependencyError

JAX_PACKAGES = "jax flax optax orbax-checkpoint chex"


def load_model(path: str | Path, checkpoint: int, game: Any) -> Any:
    """The model of the AlphaZero run in ``path`` at ``checkpoint``, checked to be for ``game`` (a pyspiel game)."""
    folder = Path(path)
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise BoardlabError(f"openspiel-az: {folder} is not an OpenSpiel alpha_zero run (no config.json)")
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BoardlabError(f"openspiel-az: cannot read {config_file} ({exc})") from None
    step_folder = folder / f"checkpoint-{checkpoint}"
    if not step_folder.exists():
        raise BoardlabError(f"openspiel-az: {folder} has no checkpoint-{checkpoint}")
    import pyspiel

    trained = str(pyspiel.load_game(config["game"]))
    if trained != str(game):
        raise BoardlabError(f"openspiel-az: the model in {folder} was trained on {trained}, not {game}")
    try:
        from open_spiel.python.algorithms.alpha_zero import utils
    except ImportError:
        raise MissingDependencyError(JAX_PACKAGES, None, "openspiel-az (OpenSpiel's AlphaZero runs on JAX)",
                                     f"pip install {JAX_PACKAGES}") from None
    model_lib = utils.api_selector(config.get("nn_api_version", "nnx"))
    model = model_lib.Model.build_model(
        config["nn_model"], config["observation_shape"], config["output_size"], config["nn_width"],
        config["nn_depth"], config["weight_decay"], config["learning_rate"], str(folder),
        decouple_weight_decay=config.get("decouple_weight_decay", False),
    )
    model.load_checkpoint(checkpoint)
    return model


def evaluator_for(game: Any, model: Any) -> Any:
    """OpenSpiel's AlphaZero evaluator (network value and priors for its MCTS) of ``model`` on ``game``."""
    try:
        from open_spiel.python.algorithms.alpha_zero import evaluator as evaluator_lib
    except ImportError:
        raise MissingDependencyError(JAX_PACKAGES, None, "openspiel-az (OpenSpiel's AlphaZero runs on JAX)",
                                     f"pip install {JAX_PACKAGES}") from None
    return evaluator_lib.AlphaZeroEvaluator(game, model)
