"""What an atlas returns: regions of constant ordering, the breakpoints between them with their
causes, and the certificate (:class:`AtlasResult`), as JSON and as text; every printed point
with the digits its bracket proves (:func:`_distinct_texts`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from fstheory.atlas.numbers import decimal_text
from fstheory.atlas.spec import AtlasSpec

__all__ = ["AtlasResult", "Breakpoint", "Region"]


def _distinct_texts(points: dict, brackets: dict, digits: int) -> dict:
    """key -> the text of ``points[key]`` at ``digits``; where two different points would read
    alike, with one or two digits more, as far as each one's bracket (``brackets[key]``: lo, hi;
    an exact point has none) proves them: a printed digit is a proved digit."""
    texts = {k: decimal_text(x, digits) for k, x in points.items()}
    identity = {k: decimal_text(x, digits + 8) for k, x in points.items()}
    for extra in (1, 2):
        groups: dict = {}
        for k, t in texts.items():
            groups.setdefault(t, []).append(k)
        clashes = [ks for ks in groups.values() if len({identity[k] for k in ks}) > 1]
        if not clashes:
            break
        for ks in clashes:
            for k in ks:
                t = decimal_text(points[k], digits + extra)
                lo_hi = brackets.get(k)
                if lo_hi is None or all(decimal_text(e, digits + extra) == t for e in lo_hi):
                    texts[k] = t
    return texts


@dataclass(frozen=True)
class Breakpoint:
    at: object  # sympy exact number (special point) or mpf (located)
    step: int | None
    cause: str
    between: tuple[str, ...]
    kind: str  # "crossing" | "pole" | "value" (a value changes kind or sign) | "change"
    bracket: tuple | None = None  # (lo, hi) mpf enclosure of a located crossing

    def to_json(self, digits: int, texts: dict | None = None) -> dict:
        at = (texts or {}).get(id(self.at)) or decimal_text(self.at, digits)
        return {"at": at, "step": self.step, "cause": self.cause, "between": list(self.between)}


@dataclass(frozen=True)
class Region:
    lo: object
    hi: object
    order: tuple[int, ...]
    stopped: bool
    sample: object  # a point inside (or the point itself) where the order was computed

    def to_json(self, labels, digits: int, texts: dict | None = None) -> dict:
        texts = texts or {}
        return {"from": texts.get(id(self.lo)) or decimal_text(self.lo, digits),
                "to": texts.get(id(self.hi)) or decimal_text(self.hi, digits),
                "order": [labels[i] for i in self.order], "stopped": self.stopped}


@dataclass
class AtlasResult:
    spec: AtlasSpec
    labels: tuple
    method_text: str
    breakpoints: list
    regions: list
    special: list
    certificate: dict | None = None
    notes: list = field(default_factory=list)

    def point_texts(self) -> dict:
        """id(point) -> its text, for the ends of the regions and the breakpoints: ``digits``
        significant digits, more where two different points would read alike
        (:func:`_distinct_texts`)."""
        points, brackets = {}, {}
        for r in self.regions:
            points[id(r.lo)], points[id(r.hi)] = r.lo, r.hi
        for b in self.breakpoints:
            points[id(b.at)] = b.at
            if b.bracket is not None:
                brackets[id(b.at)] = b.bracket
        return _distinct_texts(points, brackets, self.spec.digits)

    def to_json(self) -> dict:
        d = self.spec.digits
        texts = self.point_texts()
        out = {
            "parameter": self.spec.parameter,
            "breakpoints": [b.to_json(d, texts) for b in self.breakpoints],
            "regions": [r.to_json(self.labels, d, texts) for r in self.regions],
            "scenario": self.spec.scenario_name,
            "method": self.method_text,
            "fixed": {k: str(v) for k, v in self.spec.fixed},
            "range": [self.spec.lo, self.spec.hi],
            "digits": d,
        }
        if self.certificate is not None:
            out["certificate"] = self.certificate
        return out

    def text(self) -> str:
        d = self.spec.digits
        lines = [f"Atlas of {self.method_text} on {self.spec.scenario_name} over "
                 f"{self.spec.parameter} in [{self.spec.lo}, {self.spec.hi}]"
                 + (f" ({', '.join(f'{k}={v}' for k, v in self.spec.fixed)})" if self.spec.fixed else "")]
        lines.append("")
        w = max(d + 8, 12)
        texts = self.point_texts()
        lines.append(f"{'from':<{w}} {'to':<{w}} order")
        for r in self.regions:
            js = r.to_json(self.labels, d, texts)
            order = ", ".join(js["order"]) + (" -- stopped" if r.stopped else "")
            lines.append(f"{js['from']:<{w}} {js['to']:<{w}} {order}")
        lines.append("")
        if self.breakpoints:
            lines.append(f"{'breakpoint':<{w}} step  cause")
            for b in self.breakpoints:
                js = b.to_json(d, texts)
                lines.append(f"{js['at']:<{w}} {str(js['step'] or '-'):>4}  {js['cause']}")
        else:
            lines.append("no breakpoint: one ordering over the whole range")
        if self.certificate is not None:
            lines.append("")
            lines.append(f"certificate: {self.certificate['summary']}")
            lines += [f"  assumed: {a}" for a in self.certificate.get("assumptions", ())]
            lines += [f"  not proved: {f}" for f in self.certificate.get("failures", ())]
        return "\n".join(lines)
