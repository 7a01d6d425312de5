from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

SCHEMA = Path(__file__).resolve().parent.parent / "podwhy" / "report" / "schema.json"


@pytest.fixture(scope="session")
def report_schema_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)
