"""The OpenSpiel bridge (extra ``openspiel``): the package's game and players in OpenSpiel, and back.

The package's game registered with pyspiel, package players as ``pyspiel.Bot`` and OpenSpiel policies, and
OpenSpiel's bots at the package's table (player spec ``openspiel``).

Not imported by ``import ldpomdp``; importing it needs ``pip install ".[openspiel]"`` in the checkout.
"""

from ..errors import install_hint

try:
    import pyspiel  # noqa: F401
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(f"ldpomdp.openspiel needs OpenSpiel: {install_hint('openspiel')}") from exc

from .bots import PackageBot, PackagePolicy, bot, load_policy_table, roll_outcome
from .game import (
    GAME_NAME,
    LiarsDiceGame,
    LiarsDiceState,
    config_of,
    load,
    params_of,
    register,
)

__all__ = [
    "GAME_NAME",
    "LiarsDiceGame",
    "LiarsDiceState",
    "PackageBot",
    "PackagePolicy",
    "bot",
    "config_of",
    "load",
    "load_policy_table",
    "params_of",
    "register",
    "roll_outcome",
]
