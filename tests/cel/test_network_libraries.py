"""The Kubernetes IP and CIDR libraries: upstream's k8s.io/apiserver/pkg/cel/library/ip_test.go
(TestIP) and cidr_test.go (TestCIDR), each case by its upstream name."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.cel.errors import CelError
from podwhy.cel.interpreter import Program
from podwhy.cel.library.ip import CIDR, IP


def _eval(expression: str) -> Any:
    return Program(expression).evaluate({})


IP_CASES = [
    ("parse ipv4", 'string(ip("192.168.0.1"))', "192.168.0.1"),
    ("isIP valid ipv4", 'isIP("192.168.0.1")', True),
    ("isIP invalid ipv4", 'isIP("192.168.0.1.0")', False),
    ("ip.isCanonical valid ipv4", 'ip.isCanonical("127.0.0.1")', True),
    ("ipv4 family", 'ip("192.168.0.1").family()', 4),
    ("ipv4 isUnspecified true", 'ip("0.0.0.0").isUnspecified()', True),
    ("ipv4 isUnspecified false", 'ip("127.0.0.1").isUnspecified()', False),
    ("ipv4 isLoopback true", 'ip("127.0.0.1").isLoopback()', True),
    ("ipv4 isLoopback false", 'ip("1.2.3.4").isLoopback()', False),
    ("ipv4 isLinkLocalMulticast true", 'ip("224.0.0.1").isLinkLocalMulticast()', True),
    ("ipv4 isLinkLocalMulticast false", 'ip("224.0.1.1").isLinkLocalMulticast()', False),
    ("ipv4 isLinkLocalUnicast true", 'ip("169.254.169.254").isLinkLocalUnicast()', True),
    ("ipv4 isLinkLocalUnicast false", 'ip("192.168.0.1").isLinkLocalUnicast()', False),
    ("ipv4 isGlobalUnicast true", 'ip("192.168.0.1").isGlobalUnicast()', True),
    ("ipv4 isGlobalUnicast false", 'ip("255.255.255.255").isGlobalUnicast()', False),
    ("parse ipv6", 'string(ip("2001:db8::68"))', "2001:db8::68"),
    ("isIP valid ipv6", 'isIP("2001:db8::68")', True),
    ("isIP invalid ipv6", 'isIP("2001:db8:::68")', False),
    ("ip.isCanonical valid ipv6", 'ip.isCanonical("2001:db8::68")', True),
    ("ip.isCanonical non-canonical ipv6", 'ip.isCanonical("2001:DB8::68")', False),
    ("ipv6 family", 'ip("2001:db8::68").family()', 6),
    ("ipv6 isUnspecified true", 'ip("::").isUnspecified()', True),
    ("ipv6 isUnspecified false", 'ip("::1").isUnspecified()', False),
    ("ipv6 isLoopback true", 'ip("::1").isLoopback()', True),
    ("ipv6 isLoopback false", 'ip("2001:db8::abcd").isLoopback()', False),
    ("ipv6 isLinkLocalMulticast true", 'ip("ff02::1").isLinkLocalMulticast()', True),
    ("ipv6 isLinkLocalMulticast false", 'ip("fd00::1").isLinkLocalMulticast()', False),
    ("ipv6 isLinkLocalUnicast true", 'ip("fe80::1").isLinkLocalUnicast()', True),
    ("ipv6 isLinkLocalUnicast false", 'ip("fd80::1").isLinkLocalUnicast()', False),
    ("ipv6 isGlobalUnicast true", 'ip("2001:db8::abcd").isGlobalUnicast()', True),
    ("ipv6 isGlobalUnicast false", 'ip("ff00::1").isGlobalUnicast()', False),
    ("converting an IP address to a string", 'string(ip("192.168.0.1"))', "192.168.0.1"),
    ("ip equality", 'ip("192.168.0.1") == ip("192.168.0.1")', True),
]

CIDR_CASES = [
    ("parse ipv4", 'string(cidr("192.168.0.0/24"))', "192.168.0.0/24"),
    ("contains IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', True),
    ("does not contain IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', False),
    ("contains IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.0.1")', True),
    ("does not contain IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', False),
    ("contains CIDR ipv4 (CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', True),
    ("contains CIDR ipv4 (32-bit CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', True),
    ("does not contain IP ipv4 (CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', False),
    ("does not contain IP ipv4 (32-bit CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', False),
    ("contains CIDR ipv4 (string)", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', True),
    ("does not contain CIDR ipv4 (string)", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', False),
    ("returns IP ipv4", 'string(cidr("192.168.0.0/24").ip())', "192.168.0.0"),
    ("masks masked ipv4", 'cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")', True),
    ("masks unmasked ipv4", 'cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', True),
    ("returns prefix length ipv4", 'cidr("192.168.0.0/24").prefixLength()', 24),
    ("parse ipv6", 'string(cidr("2001:db8::/32"))', "2001:db8::/32"),
    ("contains IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', True),
    ("does not contain IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', False),
    ("contains IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:db8::1")', True),
    ("does not contain IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:dc8::1")', False),
    ("contains CIDR ipv6 (CIDR)", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', True),
    ("does not contain CIDR ipv6 (CIDR)", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', False),
    ("contains CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', True),
    ("does not contain CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', False),
    ("returns IP ipv6", 'string(cidr("2001:db8::/32").ip())', "2001:db8::"),
    ("masks masked ipv6", 'cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")', True),
    ("masks unmasked ipv6", 'cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', True),
    ("returns prefix length ipv6", 'cidr("2001:db8::/32").prefixLength()', 32),
    ("converting a CIDR to a string", 'string(cidr("192.168.0.0/24"))', "192.168.0.0/24"),
    ("isCIDR", 'isCIDR("10.0.0.0/8") && !isCIDR("10.0.0.0")', True),
]

ERROR_CASES = [
    # TestIP
    (
        "parse invalid ipv4",
        'ip("192.168.0.1.0")',
        'IP Address "192.168.0.1.0" parse error during conversion from string: '
        'ParseAddr("192.168.0.1.0"): IPv4 address too long',
    ),
    (
        "ip.isCanonical invalid ipv4",
        'ip.isCanonical("127.0.0.1.0")',
        'IP Address "127.0.0.1.0" parse error during conversion from string: '
        'ParseAddr("127.0.0.1.0"): IPv4 address too long',
    ),
    (
        "parse invalid ipv6",
        'ip("2001:db8:::68")',
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): '
        'each colon-separated field must have at least one digit (at ":68")',
    ),
    # TestCIDR
    (
        "parse invalid ipv4",
        'cidr("192.168.0.0/")',
        "network address parse error during conversion from string: network address parse error during "
        'conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ),
    (
        "parse invalid ipv6",
        'cidr("2001:db8::/")',
        "network address parse error during conversion from string: network address parse error during "
        'conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    ),
    # the library's own refusals (parseIPAddr, parseCIDR)
    ("ipv4-mapped ipv6", 'ip("::ffff:1.2.3.4")', 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
    ("zone", 'ip("fe80::1%eth0")', 'IP address "fe80::1%eth0" with zone value is not allowed'),
    (
        "leading zero",
        'ip("01.2.3.4")',
        'IP Address "01.2.3.4" parse error during conversion from string: '
        'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero',
    ),
    (
        "not an address",
        'ip("foo")',
        'IP Address "foo" parse error during conversion from string: ParseAddr("foo"): unable to parse IP',
    ),
    (
        "prefix out of range",
        'cidr("10.0.0.0/33")',
        "network address parse error during conversion from string: network address parse error during "
        'conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range',
    ),
]


@pytest.mark.parametrize(("name", "expression", "want"), IP_CASES, ids=[c[0] for c in IP_CASES])
def test_ip(name: str, expression: str, want: Any) -> None:
    assert _eval(expression) == want


@pytest.mark.parametrize(("name", "expression", "want"), CIDR_CASES, ids=[c[0] for c in CIDR_CASES])
def test_cidr(name: str, expression: str, want: Any) -> None:
    assert _eval(expression) == want


@pytest.mark.parametrize(("name", "expression", "error"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_network_errors_are_worded_as_go(name: str, expression: str, error: str) -> None:
    with pytest.raises(CelError) as exc:
        _eval(expression)
    assert str(exc.value) == error


def test_values_carry_their_cel_types() -> None:
    assert isinstance(_eval('ip("10.0.0.1")'), IP)
    assert isinstance(_eval('cidr("10.0.0.0/8")'), CIDR)
