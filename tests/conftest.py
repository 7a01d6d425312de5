from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, settings

from podwhy.framework import handle
from podwhy.model import shared

SCHEMA = Path(__file__).resolve().parent.parent / "podwhy" / "report" / "schema.json"
CHECK_SCHEMA = SCHEMA.with_name("check-schema.json")
PENDING_SCHEMA = SCHEMA.with_name("pending-schema.json")


def _validator(path: Path) -> jsonschema.protocols.Validator:
    schema = json.loads(path.read_text())
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture(scope="session")
def report_schema_validator() -> jsonschema.protocols.Validator:
    return _validator(SCHEMA)


@pytest.fixture(scope="session")
def check_schema_validator() -> jsonschema.protocols.Validator:
    """The committed JSON Schema of `check -o json` (a CheckReport)."""
    return _validator(CHECK_SCHEMA)


@pytest.fixture(scope="session")
def pending_schema_validator() -> jsonschema.protocols.Validator:
    """The committed JSON Schema of `pending -o json` (a PendingReport)."""
    return _validator(PENDING_SCHEMA)


# Hypothesis profiles: "default" keeps the property tests within the default test command's
# budget; HYPOTHESIS_PROFILE=deep runs many more examples (CONTRIBUTING.md, "Deeper checks").
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
# The long hostile-input run (tests/snapshot/test_fuzz_hostile.py): thousands of generated clusters through
# the decoder and every renderer.
settings.register_profile(
    "fuzz",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# Tests marked slow (minutes, not seconds) run only with PODWHY_SLOW=1.
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: runs for minutes; skipped unless PODWHY_SLOW=1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("PODWHY_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set PODWHY_SLOW=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def moved_clock() -> Iterator[None]:
    """podwhy's clock five years ahead and the time zone far from UTC, for the block of a test."""
    from tests.cli.test_clock import ODD_ZONE, clock_at, years_ahead

    with clock_at(years_ahead, ODD_ZONE):
        yield


@pytest.fixture(autouse=True, scope="session")
def _kept_indexes_checked() -> Iterator[None]:
    """Every view of a kept scheduler index (framework/handle.py, `indexed`) the suite takes is
    compared with the snapshot indexed anew: a change to a snapshot's pods or nodes that the kept
    index's check misses fails the test that made it."""
    was, handle.CHECK_KEPT = handle.CHECK_KEPT, True
    yield
    handle.CHECK_KEPT = was


@pytest.fixture(autouse=True)
def _shared_empties_intact() -> Iterator[None]:
    """No test leaves something in the empty list or map the snapshot's objects share
    (podwhy/model/shared.py): every code path the suite runs is checked for changing one in place."""
    yield
    changed = list(shared.EMPTY_LIST), dict(shared.EMPTY_DICT)
    shared.EMPTY_LIST.clear()
    shared.EMPTY_DICT.clear()
    assert changed == ([], {}), f"a shared empty value was changed in place: {changed!r}"
