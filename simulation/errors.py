"""The one error type of the simulation package for bad user input."""

from __future__ import annotations

__all__ = ["SimulationInputError"]


class SimulationInputError(ValueError):
    """A study parameter outside its allowed range (the message names the parameter and range).

    The CLI turns it into one line on stderr and exit code 2.
    """
