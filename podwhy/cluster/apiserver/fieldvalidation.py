"""The API server's strict decoding of a created object (server-side field validation,
`fieldValidation=Strict`, which `kubectl apply` asks for by default with `--validate=strict`):
the first thing it does with a request's body, before defaulting and admission.

A field the kind's Go type of the emulated release does not have (model/fields.py) is an
unknown field, named by its path as the API server's JSON decoder (sigs.k8s.io/json) names it:
keys joined by ".", list items as `[i]` (`spec.template.spec.containers[0].resouces`); what is
below an unknown field is not read. The object is refused in the API server's words (a 400,
handlers' transformDecodeError around runtime's strictDecodingError):

    Deployment in version "v1" cannot be handled as a Deployment: strict decoding error:
    unknown field "spec.replicaz", unknown field "spec.template.spec.containers[0].resouces"

The order is the API server's reading order of the body `kubectl apply` sends: kubectl reads a
manifest into a map and writes it back as JSON (encoding/json, keys sorted), so the fields come
in key order at every level, list items in their order, not in the file's order. At most 100
are named, as the decoder keeps no more. A key written twice in one mapping (upstream's
`duplicate field`) never gets here: the readers refuse it (decode.py, docs/shapes.md: JSON in the
API server's words, YAML in the YAML reader's).
"""

from __future__ import annotations

from typing import Any

from podwhy.errors import PodwhyError
from podwhy.features.emulation import Emulation
from podwhy.helpers.fielderrors import go_quote
from podwhy.model.fields import KINDS, STRUCTS
from podwhy.snapshot.decoded import Entry

# sigs.k8s.io/json keeps at most this many strict errors of one object.
MAX_STRICT_ERRORS = 100


class StrictDecodingError(PodwhyError):
    """The API server refused an object whose body has fields its kind does not know (400
    BadRequest); the message is what `kubectl apply` prints after `error when creating "FILE": `."""

    def __init__(self, entry: Entry, errors: list[str]) -> None:
        self.errors = list(errors)
        version = entry.api_version.rpartition("/")[2] or "v1"
        self.words = (
            f"{entry.kind} in version {go_quote(version)} cannot be handled as a {entry.kind}: "
            f"strict decoding error: {', '.join(self.errors)}"
        )
        name = entry.obj.metadata.name
        super().__init__(
            f"{entry.source}: {self.words}",
            hint=f"the API server refuses {entry.kind} {name!r} ({entry.where}): `kubectl apply`, whose strict field"
            " validation is the default, fails and nothing is created",
        )


def unknown_fields(kind: str, document: Any, minor: int) -> list[str]:
    """The strict decoding errors (`unknown field "PATH"`) of DOCUMENT, an object of KIND (one of
    model.fields.KINDS) as JSON decodes it, for the API server of minor release MINOR."""
    found: list[str] = []
    _walk(document, kind, "", minor, found)
    return found


def check_fields(entry: Entry, emulation: Emulation) -> None:
    """Refuse ENTRY (StrictDecodingError) if the API server of EMULATION finds unknown fields in
    it; objects of other kinds, and objects not read from a manifest, pass."""
    if entry.kind not in KINDS or not entry.raw:
        return
    errors = unknown_fields(entry.kind, entry.document, emulation.minor)
    if errors:
        raise StrictDecodingError(entry, errors)


def _walk(value: Any, struct: str, path: str, minor: int, found: list[str]) -> None:
    """The unknown fields under VALUE, read as STRUCT at PATH, appended to FOUND in key order.
    A value of another JSON type is the typed decoder's to refuse, not an unknown field."""
    if not isinstance(value, dict):
        return
    fields = STRUCTS[struct]
    for key in sorted(value):
        if len(found) >= MAX_STRICT_ERRORS:
            return
        at = f"{path}.{key}" if path else key
        field = fields.get(key)
        if field is None or not field.known_in(minor):
            found.append(f"unknown field {go_quote(at)}")
            continue
        if field.item:
            items = value[key]
            if isinstance(items, list):
                for index, item in enumerate(items):
                    _walk(item, field.item, f"{at}[{index}]", minor, found)
        elif field.holds:
            _walk(value[key], field.holds, at, minor, found)
