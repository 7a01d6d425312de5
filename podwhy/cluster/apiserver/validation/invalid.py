"""errors.NewInvalid (apimachinery's api/errors): the API server's refusal of an object it would
not create, in its words and kubectl's, and the field errors of values of named Go types, which
field.Invalid and field.NotSupported show as JSON."""

from __future__ import annotations

from typing import Any

from podwhy.errors import PodwhyError
from podwhy.helpers.fielderrors import aggregate, go_json

# The API groups of the kinds whose templates are validated (errors.NewInvalid's qualified kind).
_GROUPS = {
    "Pod": "",
    "ReplicationController": "",
    "Deployment": "apps",
    "ReplicaSet": "apps",
    "StatefulSet": "apps",
    "DaemonSet": "apps",
    "Job": "batch",
    "CronJob": "batch",
}

CREATE_HINT = "the API server refuses this object: `kubectl apply` fails and nothing is created"


class InvalidObjectError(PodwhyError):
    """The API server refused to create an object: errors.NewInvalid (422). The message is
    kubectl's (`The Pod "web" is invalid: ...`), after the file it came from when known; `words`
    is the API server's own (`Pod "web-7d4b9-x2x7k" is invalid: ...`), which a controller's
    FailedCreate event repeats."""

    def __init__(
        self, kind: str, name: str, errors: list[str], source: str | None = None, hint: str = CREATE_HINT
    ) -> None:
        self.kind = kind
        self.name = name
        self.errors = list(errors)
        group = _GROUPS.get(kind, "")
        reason = aggregate(self.errors)
        self.words = (
            f'{kind}.{group} "{name}" is invalid: {reason}' if group else f'{kind} "{name}" is invalid: {reason}'
        )
        where = f"{source}: " if source else ""
        super().__init__(
            f'{where}The {kind} "{name}" is invalid: {reason}',
            hint=hint,
        )

    def in_file(self, source: str, hint: str = CREATE_HINT) -> InvalidObjectError:
        """The same refusal, naming the file the object was read from."""
        return InvalidObjectError(self.kind, self.name, self.errors, source, hint)


def invalid_named(path: str, value: Any, detail: str) -> str:
    """field.Invalid of a value of a named type (ResourceName, TolerationOperator, a pointer):
    not a plain Go string, so shown as JSON."""
    return f"{path}: Invalid value: {go_json(value)}: {detail}"


def not_supported_named(path: str, value: Any, supported: tuple[str, ...]) -> str:
    listed = ", ".join(go_json(s) for s in supported)
    return f"{path}: Unsupported value: {go_json(value)}: supported values: {listed}"
