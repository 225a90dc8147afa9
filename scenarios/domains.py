"""The domains of scenario parameters: what a value may be, and what follows from it.

One :class:`Domain` per name a declaration may give (``real``, ``positive``, ``nonzero``,
``unit``), holding everything the code needs to know about it: the test of a value and its
text, the sympy assumptions of the parameter's symbol, a reference point inside it (the atlas's
default for a swept parameter), the range a sweep may cover, and the closed ends of the domain
(where closed forms are taken as one-sided limits from inside).

Examples
--------
>>> import sympy as sp
>>> unit = DOMAINS["unit"]
>>> unit.contains(sp.Rational(1, 2)), unit.text, unit.whole, unit.side(sp.Integer(1))
(True, 'in [0, 1]', ('0', '1'), '-')
>>> DOMAINS["nonzero"].range_ok(sp.Integer(-1), sp.Integer(1)), DOMAINS["nonzero"].range_text
(False, 'not containing 0')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import sympy as sp

__all__ = ["Domain", "DOMAINS"]


@dataclass(frozen=True)
class Domain:
    """A parameter domain (module docstring)."""

    name: str
    #: whether an exact value lies in the domain
    contains: Callable[[sp.Rational], bool]
    #: the domain as the end of "must be ...": "> 0", "in [0, 1]"
    text: str
    #: the sympy assumptions of a parameter's symbol
    assumptions: dict
    #: a point inside the domain (the atlas's reference value of a swept parameter)
    reference: sp.Rational
    #: whether a sweep's range [lo, hi] lies in the domain, and the text of that requirement
    range_ok: Callable[[sp.Rational, sp.Rational], bool] = lambda lo, hi: True
    range_text: str = ""
    #: the whole domain as a sweep's range (LO, HI as text) when it is bounded
    whole: tuple[str, str] | None = None
    #: the closed ends, each with the side a limit there is taken from ("+": from above)
    ends: dict = field(default_factory=dict)

    def side(self, value) -> str | None:
        """"+" or "-" at a closed end of the domain (the side to approach it from), else None."""
        for end, side in self.ends.items():
            if value == end:
                return side
        return None


DOMAINS: dict[str, Domain] = {d.name: d for d in (
    Domain("real", lambda v: True, "any real number", {"real": True}, sp.Integer(0)),
    Domain("positive", lambda v: v > 0, "> 0", {"positive": True}, sp.Integer(1),
           range_ok=lambda lo, hi: lo > 0, range_text="> 0"),
    Domain("nonzero", lambda v: v != 0, "!= 0", {"real": True, "nonzero": True}, sp.Integer(1),
           range_ok=lambda lo, hi: not lo <= 0 <= hi, range_text="not containing 0"),
    Domain("unit", lambda v: 0 <= v <= 1, "in [0, 1]", {"nonnegative": True},
           sp.Rational(1, 2), range_ok=lambda lo, hi: lo >= 0 and hi <= 1,
           range_text="within [0, 1]", whole=("0", "1"), ends={0: "+", 1: "-"}),
)}
