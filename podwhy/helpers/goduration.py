"""Go's durations as metav1.Duration reads and writes them (time.ParseDuration, Duration.String):
the plugin arguments' timeouts, in nanoseconds, with Go's error texts."""

from __future__ import annotations

import re
from fractions import Fraction

from podwhy.helpers.fielderrors import go_quote

NANOSECOND = 1
MICROSECOND = 1000 * NANOSECOND
MILLISECOND = 1000 * MICROSECOND
SECOND = 1000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

_DURATION_UNITS = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "µs": MICROSECOND,  # U+00B5
    "μs": MICROSECOND,  # U+03BC
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_INT64_MAX = 2**63 - 1


class DurationError(ValueError):
    """A duration time.ParseDuration refuses; the message is Go's."""


def _leading_digits(text: str) -> tuple[str, str]:
    digits = re.match(r"[0-9]*", text)
    assert digits is not None
    return digits.group(), text[digits.end() :]


def parse_go_duration(text: str) -> int:
    """time.ParseDuration, in nanoseconds."""
    invalid_duration = DurationError(f"time: invalid duration {go_quote(text)}")
    rest = text
    negative = False
    if rest[:1] in ("-", "+"):
        negative = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid_duration
    total = Fraction(0)
    while rest:
        if not (rest[0] == "." or rest[0].isdigit()):
            raise invalid_duration
        whole, rest = _leading_digits(rest)
        frac = ""
        if rest[:1] == ".":
            frac, rest = _leading_digits(rest[1:])
            if not whole and not frac:
                raise invalid_duration
        elif not whole:
            raise invalid_duration
        unit_match = re.match(r"[^0-9.]*", rest)
        unit = unit_match.group() if unit_match else ""
        if not unit:
            raise DurationError(f"time: missing unit in duration {go_quote(text)}")
        rest = rest[len(unit) :]
        if unit not in _DURATION_UNITS:
            raise DurationError(f"time: unknown unit {go_quote(unit)} in duration {go_quote(text)}")
        number = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
        total += number * _DURATION_UNITS[unit]
        if total > _INT64_MAX + 1:
            raise invalid_duration
    nanos = int(total)  # Go drops the fraction of a nanosecond
    if nanos > _INT64_MAX + (1 if negative else 0):
        raise invalid_duration
    return -nanos if negative else nanos


def _fmt_frac(value: int, precision: int) -> tuple[str, int]:
    """Go's fmtFrac: the fraction digits of value/10**precision without trailing zeros, and the quotient."""
    digits = ""
    printed = False
    for _ in range(precision):
        digit = value % 10
        printed = printed or digit != 0
        if printed:
            digits = str(digit) + digits
        value //= 10
    return ("." + digits if printed else ""), value


def format_go_duration(nanos: int) -> str:
    """time.Duration.String."""
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    u = abs(nanos)
    if u < SECOND:
        if u < MICROSECOND:
            return f"{sign}{u}ns"
        if u < MILLISECOND:
            frac, whole = _fmt_frac(u, 3)
            return f"{sign}{whole}{frac}µs"
        frac, whole = _fmt_frac(u, 6)
        return f"{sign}{whole}{frac}ms"
    frac, u = _fmt_frac(u, 9)
    out = f"{u % 60}{frac}s"
    u //= 60
    if u > 0:
        out = f"{u % 60}m{out}"
        u //= 60
        if u > 0:
            out = f"{u}h{out}"
    return sign + out
