"""The Kubernetes lists, URLs and format libraries, cel-go's optional types, ext.Sets and
strings.quote. Lists and URLs: the examples k8s.io/apiserver/pkg/cel/library/lists.go and urls.go
document; format: format_test.go (TestFormat), each case by its upstream name."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cel.errors import CelError
from podwhy.cel.interpreter import Program
from podwhy.cel.library.optional import NONE, Optional
from podwhy.cluster.apiserver.admission.policy.cel import FUNCTIONS


def _eval(expression: str) -> Any:
    return Program(expression, functions=FUNCTIONS).evaluate({})


LISTS = [
    ("[1, 2, 3].isSorted()", True),
    ("['a', 'b', 'b', 'c'].isSorted()", True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.0, 3.0].sum()", 4.0),
    ("[].sum()", 0),
    ("[1, 3].min()", 1),
    ("[1, 3].max()", 3),
    ("[1].min()", 1),
    ("[1, 2, 2, 3].indexOf(2)", 1),
    ("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2),
    ("[1.0].indexOf(1.1)", -1),
    ("[].indexOf('string')", -1),
]

URLS = [
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment')", True),
    ("isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/')", False),
    ("isURL('../relative-path')", False),
    ("url('/path').getScheme()", ""),
    ("url('https://example.com/').getScheme()", "https"),
    ("url('https://example.com:80/').getHost()", "example.com:80"),
    ("url('https://example.com/').getHost()", "example.com"),
    ("url('https://[::1]:80/').getHost()", "[::1]:80"),
    ("url('https://[::1]/').getHost()", "[::1]"),
    ("url('/path').getHost()", ""),
    ("url('https://example.com:80/').getHostname()", "example.com"),
    ("url('https://127.0.0.1:80/').getHostname()", "127.0.0.1"),
    ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('/path').getHostname()", ""),
    ("url('https://example.com:80/').getPort()", "80"),
    ("url('https://example.com/').getPort()", ""),
    ("url('/path').getPort()", ""),
    ("url('https://example.com/path').getEscapedPath()", "/path"),
    ("url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"),
    ("url('https://example.com').getEscapedPath()", ""),
    ("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", {"k1": ["a"], "k2": ["b", "c"]}),
    (
        "url('https://example.com/path?key with spaces=value with spaces').getQuery()",
        {"key with spaces": ["value with spaces"]},
    ),
    ("url('https://example.com/path?').getQuery()", {}),
    ("url('https://example.com/path').getQuery()", {}),
]

_DNS1123_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_DNS1123_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_DNS1035_LABEL = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
_QUALIFIED_NAME = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

FORMATS = [
    ('format.dns1123Label().validate("my-label-name")', NONE),
    ('format.dns1123Subdomain().validate("apiextensions.k8s.io")', NONE),
    ('format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', NONE),
    ('format.dns1123LabelPrefix().validate("my-label-prefix-")', NONE),
    ('format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', NONE),
    ('format.dns1035LabelPrefix().validate("my-label-prefix-")', NONE),
    ('format.uri().validate("http://example.com")', NONE),
    ('format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', NONE),
    ('format.byte().validate("aGVsbG8=")', NONE),
    ('format.date().validate("2021-01-01")', NONE),
    ('format.datetime().validate("2021-01-01T00:00:00Z")', NONE),
    ('format.dns1123Label().validate("contains a space")', Optional(True, [_DNS1123_LABEL])),
    ('format.dns1123Subdomain().validate("contains a space")', Optional(True, [_DNS1123_SUBDOMAIN])),
    ('format.dns1035Label().validate("contains a space")', Optional(True, [_DNS1035_LABEL])),
    ('format.qualifiedName().validate("contains a space")', Optional(True, [_QUALIFIED_NAME])),
    ('format.dns1123LabelPrefix().validate("contains a space-")', Optional(True, [_DNS1123_LABEL])),
    ('format.dns1123SubdomainPrefix().validate("contains a space-")', Optional(True, [_DNS1123_SUBDOMAIN])),
    ('format.dns1035LabelPrefix().validate("contains a space-")', Optional(True, [_DNS1035_LABEL])),
    ('format.dns1123Label().validate("my-label-name")', NONE),
    ('format.dns1123Subdomain().validate("example.com")', NONE),
    ('format.dns1035Label().validate("my-label-name")', NONE),
    ('format.qualifiedName().validate("my.name")', NONE),
    ('format.byte().validate("aGVsbG8")', Optional(True, ["invalid base64"])),
    ('format.date().validate("2020-01-01")', NONE),
    ('format.date().validate("2020-01-32")', Optional(True, ["invalid date"])),
    ('format.datetime().validate("2020-01-01T00:00:00Z")', NONE),
    ('format.datetime().validate("2020-01-32T00:00:00Z")', Optional(True, ["invalid datetime"])),
    ('format.named("unknown").hasValue()', False),
    ('format.named("dns1123Label").value().validate("my-name").hasValue()', False),
    ('format.named("labelValue").value() == format.labelValue()', True),
]

OPTIONALS = [
    ("optional.of(1).hasValue()", True),
    ("optional.none().hasValue()", False),
    ("optional.none().orValue(3)", 3),
    ("optional.of(1).or(optional.of(2)).value()", 1),
    ("optional.none().or(optional.of(2)).value()", 2),
    ("optional.ofNonZeroValue('').hasValue()", False),
    ("optional.ofNonZeroValue([1]).hasValue()", True),
    ("{'a': 1}.?a.value()", 1),
    ("{'a': 1}.?b.hasValue()", False),
    ("{'a': {'b': 2}}.?a.b.value()", 2),
    ("{'a': {}}.?a.b.orValue(7)", 7),
    ("[1, 2][?1].value()", 2),
    ("[1, 2][?5].hasValue()", False),
    ("{'k': 'v'}[?'k'].orValue('')", "v"),
]

# cel-go's ext/lists.go documented examples (ext.Lists version 3).
EXT_LISTS = [
    ("[1, 2, 3, 4].slice(1, 3)", [2, 3]),
    ("[1, [2, 3], [4]].flatten()", [1, 2, 3, 4]),
    ("[1, [2, [3, 4]]].flatten()", [1, 2, [3, 4]]),
    ("[1, [2, [3, [4]]]].flatten(2)", [1, 2, 3, [4]]),
    ("[4, 3, 2, 1].sort()", [1, 2, 3, 4]),
    ("['d', 'a', 'b', 'c'].sort()", ["a", "b", "c", "d"]),
    ("[5, 3, 1, 2].reverse()", [2, 1, 3, 5]),
    ("[1, 2, 2, 3, 3, 3].distinct()", [1, 2, 3]),
    ("['b', 'b', 'c', 'a', 'c'].distinct()", ["b", "c", "a"]),
    ("lists.range(4)", [0, 1, 2, 3]),
]

OTHERS = [
    ("sets.contains([1, 2, 3], [2, 3])", True),
    ("sets.contains([1], [2])", False),
    ("sets.equivalent([1, 1, 2], [2, 1])", True),
    ("sets.intersects([1, 2], [2, 5])", True),
    ("strings.quote('single-quote with \"double quote\"')", '"single-quote with \\"double quote\\""'),
    ('strings.quote("two escape sequences \\a\\n")', '"two escape sequences \\a\\n"'),
]


@pytest.mark.parametrize(("expression", "want"), LISTS + EXT_LISTS + URLS + FORMATS + OPTIONALS + OTHERS)
def test_library(expression: str, want: Any) -> None:
    assert _eval(expression) == want


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("[].min()", "min called on empty list"),
        ("[].max()", "max called on empty list"),
        ("[1, 2].slice(2, 1)", "cannot slice(2, 1), start index must be less than or equal to end index"),
        ("[1, 2].slice(0, 3)", "cannot slice(0, 3), list is length 2"),
        ("[1, 2].slice(-1, 1)", "cannot slice(-1, 1), negative indexes not supported"),
        ("[1, 'a'].sort()", "list elements must have the same type"),
        ("[[1]].sort()", "list elements must be comparable"),
        ("optional.none().value()", "optional.none() dereference"),
        (
            "url('https://a:b:c/')",
            'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host',
        ),
        (
            "url('../relative-path')",
            'URL parse error during conversion from string: parse "../relative-path": invalid URI for request',
        ),
        ("url('')", 'URL parse error during conversion from string: parse "": empty url'),
        ("url('/%zz')", 'URL parse error during conversion from string: parse "/%zz": invalid URL escape "%zz"'),
    ],
)
def test_library_errors(expression: str, error: str) -> None:
    with pytest.raises(CelError) as exc:
        _eval(expression)
    assert str(exc.value) == error
