"""The one family of errors that mean "the user's input is wrong".

Every refusal of bad input -- a parameter outside its range
(:class:`fstheory.scenarios.declaration.ParameterError`), a malformed scenario file
(:class:`fstheory.scenarios.scenario_file.ScenarioFileError`), a bad method option
(:class:`fstheory.orderings.methods.MethodError`), a bad study option
(:class:`fstheory.simulation.errors.SimulationInputError`), an output directory that cannot be
written (:class:`fstheory.reports.atomic.OutputError`) -- derives from :class:`UserInputError`.
The command line prints such an error as one line and exits with code 2; any other exception is
an internal error (exit code 1, a request for a report). :class:`UserInputError` is a
``ValueError``, so Python callers can catch either.

Examples
--------
>>> from fstheory.scenarios.declaration import ParameterError
>>> issubclass(ParameterError, UserInputError) and issubclass(UserInputError, ValueError)
True
"""

from __future__ import annotations

__all__ = ["UserInputError"]


class UserInputError(ValueError):
    """Input the user can correct; the message names the parameter, or the file and line."""
