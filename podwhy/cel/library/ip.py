"""The Kubernetes IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go): ip(),
isIP(), ip.isCanonical(), cidr(), isCIDR() and their methods, parsed as Go's net/netip parses
addresses and prefixes, and refused in its words."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import go_quote, need

_HEX = "0123456789abcdefABCDEF"


class AddrError(Exception):
    """netip's parse error, as its Error() reads."""


def _addr_error(text: str, msg: str, at: str = "") -> AddrError:
    tail = f" (at {go_quote(at)})" if at else ""
    return AddrError(f"ParseAddr({go_quote(text)}): {msg}{tail}")


def _ipv4_fields(text: str, s: str) -> bytes:
    fields: list[int] = []
    val = digits = 0
    for i, c in enumerate(s):
        if "0" <= c <= "9":
            if digits == 1 and val == 0:
                raise _addr_error(text, "IPv4 field has octet with leading zero")
            val = val * 10 + int(c)
            digits += 1
            if val > 255:
                raise _addr_error(text, "IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _addr_error(text, "IPv4 field must have at least one digit", s[i:])
            if len(fields) == 3:
                raise _addr_error(text, "IPv4 address too long")
            fields.append(val)
            val = digits = 0
        else:
            raise _addr_error(text, "unexpected character", s[i:])
    if len(fields) < 3:
        raise _addr_error(text, "IPv4 address too short")
    return bytes([*fields, val])


def _hex_group(text: str, s: str) -> tuple[int, int]:
    """A group's value and its digit count."""
    acc = off = 0
    while off < len(s) and s[off] in _HEX:
        acc = (acc << 4) + int(s[off], 16)
        if off > 3:
            raise _addr_error(text, "each group must have 4 or less digits", s)
        if acc > 0xFFFF:
            raise _addr_error(text, "IPv6 field has value >=2^16", s)
        off += 1
    if off == 0:
        raise _addr_error(text, "each colon-separated field must have at least one digit", s)
    return acc, off


def _ipv6(text: str) -> tuple[bytes, str]:
    s, pct, zone = text.partition("%")
    if pct and not zone:
        raise _addr_error(text, "zone must be a non-empty string")
    ip = bytearray(16)
    ellipsis = -1
    if s.startswith("::"):
        ellipsis, s = 0, s[2:]
        if not s:
            return bytes(ip), zone
    i = 0
    while i < 16:
        acc, off = _hex_group(text, s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _addr_error(text, "embedded IPv4 address must replace the final 2 fields of the address", s)
            if i + 4 > 16:
                raise _addr_error(text, "too many hex fields to fit an embedded IPv4 at the end of the address", s)
            ip[i : i + 4] = _ipv4_fields(text, s)
            s, i = "", i + 4
            break
        ip[i], ip[i + 1] = acc >> 8, acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _addr_error(text, "unexpected character, want colon", s)
        if len(s) == 1:
            raise _addr_error(text, "colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _addr_error(text, "multiple :: in address", s)
            ellipsis, s = i, s[1:]
            if not s:
                break
    if s:
        raise _addr_error(text, "trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _addr_error(text, "address string too short")
        ip = ip[:ellipsis] + bytearray(16 - i) + ip[ellipsis:i]
    elif ellipsis >= 0:
        raise _addr_error(text, "the :: must expand to at least one field of zeros", s)
    return bytes(ip), zone


def parse_addr(text: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, str]:
    """netip.ParseAddr: the address and its zone."""
    for c in text:
        if c == ".":
            return ipaddress.IPv4Address(_ipv4_fields(text, text)), ""
        if c == ":":
            packed, zone = _ipv6(text)
            return ipaddress.IPv6Address(packed), zone
        if c == "%":
            raise _addr_error(text, "missing IPv6 address")
    raise _addr_error(text, "unable to parse IP")


def _is_4in6(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None


class IP(msgspec.Struct, frozen=True):
    CEL_TYPE = "net.IP"

    addr: ipaddress.IPv4Address | ipaddress.IPv6Address

    def __str__(self) -> str:
        return str(self.addr)


class CIDR(msgspec.Struct, frozen=True):
    CEL_TYPE = "net.CIDR"

    addr: ipaddress.IPv4Address | ipaddress.IPv6Address
    bits: int

    def __str__(self) -> str:
        return f"{self.addr}/{self.bits}"

    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_network(f"{self.addr}/{self.bits}", strict=False)


def _parse_ip(text: str) -> IP:
    try:
        addr, zone = parse_addr(text)
    except AddrError as exc:
        raise CelError(f"IP Address {go_quote(text)} parse error during conversion from string: {exc}") from None
    if zone:
        raise CelError(f"IP address {go_quote(text)} with zone value is not allowed")
    if _is_4in6(addr):
        raise CelError(f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed")
    return IP(addr)


def _prefix_error(text: str, msg: str) -> CelError:
    return CelError(
        "network address parse error during conversion from string: network address parse error during "
        f"conversion from string: netip.ParsePrefix({go_quote(text)}): {msg}"
    )


def _parse_cidr(text: str) -> CIDR:
    """netip.ParsePrefix, then the library's refusal of IPv4-mapped addresses."""
    slash = text.rfind("/")
    if slash < 0:
        raise _prefix_error(text, "no '/'")
    try:
        addr, zone = parse_addr(text[:slash])
    except AddrError as exc:
        raise _prefix_error(text, str(exc)) from None
    if zone:
        raise _prefix_error(text, "IPv6 zones cannot be present in a prefix")
    bits_text = text[slash + 1 :]
    if not bits_text.isdigit() or not bits_text.isascii() or (len(bits_text) > 1 and bits_text[0] == "0"):
        raise _prefix_error(text, f"bad bits after slash: {go_quote(bits_text)}")
    bits = int(bits_text)
    if bits > addr.max_prefixlen:
        raise _prefix_error(text, "prefix length out of range")
    if _is_4in6(addr):
        raise CelError(
            "network address parse error during conversion from string: "
            f"IPv4-mapped IPv6 address {go_quote(text)} is not allowed"
        )
    return CIDR(addr, bits)


def ip(value: Any) -> IP:
    return _parse_ip(need(value, str))


def is_ip(value: Any) -> bool:
    try:
        _parse_ip(need(value, str))
    except CelError:
        return False
    return True


def is_canonical(value: Any) -> bool:
    text = need(value, str)
    return bool(str(_parse_ip(text)) == text)


def cidr(value: Any) -> CIDR:
    return _parse_cidr(need(value, str))


def is_cidr(value: Any) -> bool:
    try:
        _parse_cidr(need(value, str))
    except CelError:
        return False
    return True


def _is_global_unicast(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Go's IsGlobalUnicast: private ranges count; the broadcast address does not."""
    if isinstance(addr, ipaddress.IPv4Address) and int(addr) == 0xFFFFFFFF:
        return False
    return not (addr.is_unspecified or addr.is_loopback or addr.is_multicast or _link_local_unicast(addr))


def _link_local_unicast(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(addr, ipaddress.IPv4Address):
        return addr in ipaddress.IPv4Network("169.254.0.0/16")
    return addr in ipaddress.IPv6Network("fe80::/10")


def _link_local_multicast(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(addr, ipaddress.IPv4Address):
        return addr in ipaddress.IPv4Network("224.0.0.0/24")
    return (int(addr) >> 112) & 0xFF0F == 0xFF02


def ip_method(name: str, value: IP, args: list[Any]) -> Any:
    if args:
        raise CelError(NO_SUCH_OVERLOAD)
    addr = value.addr
    checks: dict[str, Callable[[], bool | int]] = {
        "family": lambda: 4 if isinstance(addr, ipaddress.IPv4Address) else 6,
        "isUnspecified": lambda: addr.is_unspecified,
        "isLoopback": lambda: addr in ipaddress.ip_network("127.0.0.0/8" if addr.version == 4 else "::1/128"),
        "isLinkLocalMulticast": lambda: _link_local_multicast(addr),
        "isLinkLocalUnicast": lambda: _link_local_unicast(addr),
        "isGlobalUnicast": lambda: _is_global_unicast(addr),
    }
    check = checks.get(name)
    if check is None:
        raise CelError(NO_SUCH_OVERLOAD)
    return check()


def cidr_method(name: str, value: CIDR, args: list[Any]) -> Any:
    if name in ("containsIP", "containsCIDR") and len(args) == 1:
        arg = args[0]
        if name == "containsIP":
            other_ip = _parse_ip(arg) if isinstance(arg, str) else need(arg, IP)
            return other_ip.addr.version == value.addr.version and other_ip.addr in value.network()
        other = _parse_cidr(arg) if isinstance(arg, str) else need(arg, CIDR)
        if other.addr.version != value.addr.version:
            return False
        return value.network().overlaps(other.network()) and value.bits <= other.bits
    if not args:
        if name == "ip":
            return IP(value.addr)
        if name == "prefixLength":
            return value.bits
        if name == "masked":
            return CIDR(value.network().network_address, value.bits)
    raise CelError(NO_SUCH_OVERLOAD)


GLOBALS: dict[str, Callable[..., Any]] = {
    "ip": ip,
    "isIP": is_ip,
    "ip.isCanonical": is_canonical,
    "cidr": cidr,
    "isCIDR": is_cidr,
}
