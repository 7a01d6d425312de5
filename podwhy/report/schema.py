"""Writes podwhy/report/schema.json from the report model: `python -m podwhy.report.schema`."""

from __future__ import annotations

import json
from pathlib import Path

from podwhy.report.model import json_schema

SCHEMA_PATH = Path(__file__).resolve().parent / "schema.json"


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # pragma: no cover
    SCHEMA_PATH.write_text(schema_text())
    print(f"wrote {SCHEMA_PATH}")
