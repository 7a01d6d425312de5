"""apimachinery's validation of label keys and values, qualified names and DNS subdomains."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podwhy.helpers.namevalidation import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_key,
    is_valid_label_value,
    label_key_errors,
    label_value_errors,
)

LONG = "a" * 63


@pytest.mark.parametrize(
    ("key", "valid"),
    [
        ("app", True),
        ("app.kubernetes.io/name", True),
        ("example.com/My_Name-1", True),
        ("a", True),
        (LONG, True),
        (LONG + "a", False),
        ("", False),
        ("/name", False),
        ("example.com/", False),
        ("a/b/c", False),
        ("Example.com/name", False),
        ("-app", False),
        ("app-", False),
        ("app\n", False),  # Go's $ is the end of the text, not of a line
        ("ápp", False),
        ("a" * 254 + "/n", False),
    ],
)
def test_label_keys(key: str, valid: bool) -> None:
    assert is_valid_label_key(key) is valid
    assert is_qualified_name(key) is valid
    assert (label_key_errors(key) == []) is valid


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        *[("", True), ("v1", True), ("5678e76978", True), ("a.b_c-d", True), (LONG, True), (LONG + "a", False)],
        *[("-a", False), ("a-", False), ("a b", False), ("a\n", False), ("é", False)],
    ],
)
def test_label_values(value: str, valid: bool) -> None:
    assert is_valid_label_value(value) is valid
    assert (label_value_errors(value) == []) is valid


@pytest.mark.parametrize(
    ("name", "valid"),
    [("example.com", True), ("a", True), ("a-b.c", True), ("A.com", False), ("a..b", False), ("a" * 254, False)],
)
def test_dns1123_subdomains(name: str, valid: bool) -> None:
    assert is_dns1123_subdomain(name) is valid
    assert (dns1123_subdomain_errors(name) == []) is valid


def test_error_wording_is_upstreams() -> None:
    assert label_value_errors("a" * 64 + "-") == [
        "must be no more than 63 bytes",
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        # RegexError joins its examples with ", " and " or ": two spaces, as upstream writes them.
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
        "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]
    assert label_key_errors("/x") == ["prefix part must be non-empty"]
    assert label_key_errors("Bad/x") == [
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]


_LABEL_CHARS = st.text(alphabet="aZ09-_./\n é", max_size=70)


@given(_LABEL_CHARS)
def test_checks_and_error_lists_agree(text: str) -> None:
    assert is_valid_label_key(text) == (label_key_errors(text) == [])
    assert is_valid_label_value(text) == (label_value_errors(text) == [])
    assert is_dns1123_subdomain(text) == (dns1123_subdomain_errors(text) == [])


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("web", []),
        ("a" * 63, []),
        ("a" * 64, ["must be no more than 63 characters"]),  # util/validation.MaxLenError
        ("web.app", ["must not contain dots"]),
        (
            "Web",
            [
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ],
        ),
    ],
)
def test_dns1123_labels(value: str, errors: list[str]) -> None:
    """IsDNS1123Label: a valid subdomain that is no label holds dots."""
    assert dns1123_label_errors(value) == errors
