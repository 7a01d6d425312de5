from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, settings

SCHEMA = Path(__file__).resolve().parent.parent / "podwhy" / "report" / "schema.json"


@pytest.fixture(scope="session")
def report_schema_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


# Hypothesis profiles: "default" keeps the property tests within the default test command's
# budget; HYPOTHESIS_PROFILE=deep runs many more examples (README, "Deeper checks").
settings.register_profile(
    "default",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "deep",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
