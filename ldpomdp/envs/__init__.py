"""Reinforcement-learning environments (extra ``rl``: ``pip install ".[rl]"`` in the checkout).

``liars_dice_env(config=GameConfig(...))``: a PettingZoo AEC environment, every seat an agent
(``LiarsDiceEnv``). ``LiarsDiceGymEnv(["aggressive", "conservative"], config)``: a
Gymnasium environment for one learner against seated players. ``ldpomdp.envs.coding`` (numpy alone) builds
the observations and rewards that both use; ``ActionCoding`` numbers the actions.
"""

from __future__ import annotations

from typing import Any

from ..errors import install_hint

__all__ = ["liars_dice_env", "LiarsDiceEnv", "LiarsDiceGymEnv"]

_HOMES = {"liars_dice_env": "aec", "LiarsDiceEnv": "aec", "LiarsDiceGymEnv": "gym"}


def __getattr__(name: str) -> Any:
    """The environments are imported on first use, so that ``ldpomdp.envs.coding`` needs numpy alone."""
    if name not in _HOMES:
        raise AttributeError(f"module 'ldpomdp.envs' has no attribute {name!r}")
    import importlib

    try:
        module = importlib.import_module(f".{_HOMES[name]}", __name__)
    except ModuleNotFoundError as exc:
        if exc.name in ("pettingzoo", "gymnasium"):
            raise ModuleNotFoundError(f"ldpomdp.envs.{name} needs {exc.name}: {install_hint('rl')}",
                                      name=exc.name) from exc
        raise
    return getattr(module, name)
