"""Generated names and template hashes shaped as the API server and controllers make them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.helpers.namevalidation import is_dns1123_subdomain
from podwhy.snapshot.names import (
    ALPHANUMS,
    fnv32a,
    generated_name,
    indexed_job_prefix,
    pods_prefix,
    safe_encode,
    suffix,
    template_hash,
)


@pytest.mark.parametrize(
    ("data", "value"),
    # Published FNV-1a 32-bit test vectors.
    [(b"", 0x811C9DC5), (b"a", 0xE40C292C), (b"foobar", 0xBF9CF968)],
)
def test_fnv32a(data: bytes, value: int) -> None:
    assert fnv32a(data) == value


def test_safe_encode_maps_digits_as_the_api_does() -> None:
    # ord("0") % 27 == 21: the digits land on "456789bcdf", as in real pod-template-hash labels.
    assert safe_encode("0123456789") == "456789bcdf"
    assert template_hash(b"") == safe_encode(str(0x811C9DC5))


def test_the_collision_count_changes_the_hash() -> None:
    hashes = {template_hash(b"template", count) for count in (None, 0, 1, 2)}
    assert len(hashes) == 4


@pytest.mark.parametrize(
    ("job", "index", "prefix"),
    [("job", 3, "job-3-"), ("j" * 60, 12, "j" * 54 + "-12-")],
)
def test_indexed_job_prefix(job: str, index: int, prefix: str) -> None:
    assert indexed_job_prefix(job, index) == prefix
    assert len(prefix) <= 58


def test_pods_prefix() -> None:
    assert pods_prefix("web-7c9d8b6f5") == "web-7c9d8b6f5-"
    assert pods_prefix("x" * 253) == "x" * 253


_NAME = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,80}[a-z0-9])?", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(_NAME, st.text(max_size=20))
def test_generated_names_are_valid_and_deterministic(base: str, seed: str) -> None:
    name = generated_name(pods_prefix(base), seed)
    assert name == generated_name(pods_prefix(base), seed)
    assert len(name) <= 63
    assert re.fullmatch(f"[{ALPHANUMS}]{{5}}", name[-5:])
    assert is_dns1123_subdomain(name)


def test_suffixes_differ_by_seed() -> None:
    assert len({suffix(str(i)) for i in range(200)}) > 190
