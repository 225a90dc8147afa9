"""The one error type of the simulation package for bad user input."""

from __future__ import annotations

from fstheory.scenarios.declaration import ParameterError

__all__ = ["SimulationInputError"]


class SimulationInputError(ParameterError):
    """A study parameter outside its allowed range (the message names the parameter and range).

    A :class:`fstheory.scenarios.declaration.ParameterError` (hence a ``ValueError``), so the CLI's one
    handler for bad input prints it as one line on stderr with exit code 2.
    """
