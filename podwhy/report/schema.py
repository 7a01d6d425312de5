"""Writes the reports' JSON Schemas from the report model: `python -m podwhy.report.schema`.

podwhy/report/schema.json is the Explanation's (`explain -o json`), check-schema.json the
CheckReport's (`check -o json`), pending-schema.json the PendingReport's (`pending -o json`).
A test fails while any of them is stale.
"""

from __future__ import annotations

import json
from pathlib import Path

from podwhy.report.model import json_schema

SCHEMA_PATH = Path(__file__).resolve().parent / "schema.json"
CHECK_SCHEMA_PATH = Path(__file__).resolve().parent / "check-schema.json"
PENDING_SCHEMA_PATH = Path(__file__).resolve().parent / "pending-schema.json"
# Report kind -> the file its schema is committed in.
SCHEMA_PATHS = {"Explanation": SCHEMA_PATH, "CheckReport": CHECK_SCHEMA_PATH, "PendingReport": PENDING_SCHEMA_PATH}


def schema_text(kind: str = "Explanation") -> str:
    return json.dumps(json_schema(kind), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # pragma: no cover
    for report_kind, path in SCHEMA_PATHS.items():
        path.write_text(schema_text(report_kind))
        print(f"wrote {path}")
