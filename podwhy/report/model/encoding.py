"""The reports encoded: JSON, builtins (for YAML), and each kind's JSON Schema, generated from the
model."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from podwhy.report.model.check import CheckReport
from podwhy.report.model.explain import Report
from podwhy.report.model.pending import PendingReport


def encode_json(report: Report | PendingReport | CheckReport) -> bytes:
    return msgspec.json.format(msgspec.json.encode(report), indent=2)


def to_builtins(report: Report | PendingReport | CheckReport) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(report)
    return out


# Each report kind with a JSON Schema: (the report model, $id, title).
SCHEMA_INFO: dict[str, tuple[type[Report] | type[CheckReport] | type[PendingReport], str, str]] = {
    "Explanation": (Report, "https://podwhy.dev/schema/explanation-v1.json", "podwhy Explanation (podwhy/v1)"),
    "CheckReport": (CheckReport, "https://podwhy.dev/schema/check-report-v1.json", "podwhy CheckReport (podwhy/v1)"),
    "PendingReport": (
        PendingReport,
        "https://podwhy.dev/schema/pending-report-v1.json",
        "podwhy PendingReport (podwhy/v1)",
    ),
}


def json_schema(kind: str = "Explanation") -> dict[str, Any]:
    """The JSON Schema of a report kind (Explanation, CheckReport or PendingReport), generated from the model."""
    model, schema_id, title = SCHEMA_INFO[kind]
    schema: dict[str, Any] = _canonical(msgspec.json.schema(model))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **schema,
    }


def _canonical(node: Any) -> Any:
    """NODE with every `description` on one line (its words joined by single spaces) and the
    alternatives of every `anyOf` in one order (by their JSON text).

    The descriptions are the model's docstrings, whose indentation depends on the Python (3.13
    strips it when compiling) and on msgspec (0.23 dedents them), and msgspec releases list an
    optional field's alternatives in different orders: the schema is then the same bytes on
    every Python and every msgspec release podwhy allows."""
    if isinstance(node, list):
        return [_canonical(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _canonical(value) for key, value in node.items()}
    if isinstance(out.get("description"), str):
        out["description"] = " ".join(out["description"].split())
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = sorted(out["anyOf"], key=lambda item: json.dumps(item, sort_keys=True))
    return out
