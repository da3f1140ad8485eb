"""Planners that play Liar's Dice from a belief: the expected-count policy and POMCP on pomdp-py."""

from .expected_count import ExpectedCountPlanner

__all__: list[str] = ["ExpectedCountPlanner", "POMCPPlanner"]


def __getattr__(name: str):
    """POMCPPlanner is imported on first use, so the expected-count planner does not need pomdp_py."""
    if name == "POMCPPlanner":
        from .pomcp import POMCPPlanner

        return POMCPPlanner
    raise AttributeError(f"module 'ldpomdp.planners' has no attribute {name!r}")
