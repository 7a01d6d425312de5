"""The Kubernetes format library (k8s.io/apiserver/pkg/cel/library/format.go): format.named(),
the zero-argument format.<name>() constants and Format.validate(), which gives optional.none()
for a valid string and optional.of(the errors) otherwise.

The formats that need no name validation are here; the environment that runs the library adds
the apimachinery name formats (dns1123Label, ...), whose validators live above this layer.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.library.optional import NONE, Optional, of
from podwhy.cel.library.urls import request_uri_errors
from podwhy.cel.values import need

Validator = Callable[[str], list[str]]


@dataclass(frozen=True)
class Format:
    CEL_TYPE = "kubernetes.NamedFormat"

    name: str
    validate: Validator = field(compare=False)


_UUID_RE = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
# strfmt's RFC 3339 date-time: a date, T (or t or space), a time with optional fraction, a zone.
_DATETIME_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _uuid(text: str) -> list[str]:
    return [] if _UUID_RE.match(text) else ["does not match the UUID format"]


def _byte(text: str) -> list[str]:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _valid_date(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        return False
    return len(text) == 10


def _date(text: str) -> list[str]:
    return [] if _valid_date(text) else ["invalid date"]


def _datetime(text: str) -> list[str]:
    match = _DATETIME_RE.match(text)
    ok = match is not None and _valid_date(match[1]) and int(match[2]) < 24 and int(match[3]) < 60
    ok = ok and match is not None and int(match[4]) < 61
    return [] if ok else ["invalid datetime"]


# The formats of ConstantFormats this layer can validate, by their CEL name.
BASE_FORMATS: dict[str, Format] = {
    "uri": Format("URI", request_uri_errors),
    "uuid": Format("uuid", _uuid),
    "byte": Format("byte", _byte),
    "date": Format("date", _date),
    "datetime": Format("datetime", _datetime),
}


def validate(fmt: Format, args: list[Any]) -> Optional:
    if len(args) != 1:
        raise CelError(NO_SUCH_OVERLOAD)
    errors = fmt.validate(need(args[0], str))
    return of(list(errors)) if errors else NONE


def format_functions(formats: Mapping[str, Format]) -> dict[str, Callable[..., Any]]:
    """The library's global functions over these formats: format.named(name) and format.<name>()."""

    def named(name: Any) -> Optional:
        found = formats.get(need(name, str))
        return NONE if found is None else of(found)

    functions: dict[str, Callable[..., Any]] = {"format.named": named}
    for cel_name, fmt in formats.items():
        functions[f"format.{cel_name}"] = lambda fmt=fmt: fmt
    return functions
