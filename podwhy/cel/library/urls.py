"""The Kubernetes URLs library (k8s.io/apiserver/pkg/cel/library/urls.go): url(), isURL() and the
URL's getters, over a parser that accepts and refuses what Go's net/url does, in its words."""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

import msgspec

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.values import go_quote, need

_SCHEME_CHARS = frozenset(string.ascii_letters + string.digits + "+-.")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-_.~")
# What Go's shouldEscape leaves alone in a path, and what a path's valid encoding may hold.
_PATH_SAFE = _UNRESERVED | frozenset("$&+,/:;=@")
_PATH_VALID = _PATH_SAFE | frozenset("!'()*[]%")
_HOST_SAFE = _UNRESERVED | frozenset("!$&'()*+,;=:[]<>\"%")
_HEX = frozenset(string.hexdigits)


class URLError(Exception):
    """Go's *url.Error text: `parse "<url>": <reason>`."""


class URL(msgspec.Struct, frozen=True):
    """A parsed URL: what url.Parse keeps of it."""

    CEL_TYPE = "kubernetes.URL"

    text: str
    scheme: str = ""
    opaque: str = ""
    host: str = ""
    path: str = ""
    raw_path: str = ""
    raw_query: str = ""


def _fail(raw: str, reason: str) -> URLError:
    return URLError(f"parse {go_quote(raw)}: {reason}")


def _unescape(raw: str, text: str, host: bool) -> str:
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "%":
            code = text[i + 1 : i + 3]
            if len(code) < 2 or not set(code) <= _HEX:
                raise _fail(raw, f"invalid URL escape {go_quote(text[i : i + 3])}")
            out.append(int(code, 16))
            i += 3
            continue
        if host and c.isascii() and c not in _HOST_SAFE:
            raise _fail(raw, f"invalid character {go_quote(c)} in host name")
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")


def _escape_path(path: str) -> str:
    return "".join(c if c in _PATH_SAFE else "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in path)


def _split_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if c in string.ascii_letters:
            continue
        if c in _SCHEME_CHARS:
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise _fail(raw, "missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _valid_port(colon_port: str) -> bool:
    return colon_port == "" or (colon_port[0] == ":" and all(c in string.digits for c in colon_port[1:]))


def _parse_host(raw: str, host: str) -> str:
    if host.startswith("["):
        end = host.rfind("]")
        if end < 0:
            raise _fail(raw, "missing ']' in host")
        tail = host[end + 1 :]
    else:
        colon = host.rfind(":")
        tail = host[colon:] if colon >= 0 else ""
    if not _valid_port(tail):
        raise _fail(raw, f"invalid port {go_quote(tail)} after host")
    return _unescape(raw, host, host=True)


def _parse(raw: str, via_request: bool) -> URL:
    """url.ParseRequestURI (via_request) or url.Parse without the fragment."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise _fail(raw, "net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise _fail(raw, "empty url")
    if raw == "*":
        return URL(raw, path="*")
    scheme, rest = _split_scheme(raw)
    scheme = scheme.lower()
    rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return URL(raw, scheme=scheme, opaque=rest, raw_query=query)
        if via_request:
            raise _fail(raw, "invalid URI for request")
        colon, slash = rest.find(":"), rest.find("/")
        if colon >= 0 and (slash < 0 or colon < slash):
            raise _fail(raw, "first path segment in URL cannot contain colon")
    host = ""
    if (scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, sep, path = rest[2:].partition("/")
        rest = sep + path
        host = _parse_host(raw, authority[authority.rfind("@") + 1 :])
    path = _unescape(raw, rest, host=False)
    return URL(raw, scheme=scheme, host=host, path=path, raw_path=rest, raw_query=query)


def parse_url(value: Any) -> URL:
    text = need(value, str)
    try:
        _parse(text, via_request=True)
        return _parse(text.partition("#")[0], via_request=False)
    except URLError as exc:
        raise CelError(f"URL parse error during conversion from string: {exc}") from None


def request_uri_errors(text: str) -> list[str]:
    """url.ParseRequestURI's error, if any, as the format library reports it."""
    try:
        _parse(text, via_request=True)
    except URLError as exc:
        return [str(exc)]
    return []


def is_url(value: Any) -> bool:
    try:
        _parse(need(value, str), via_request=True)
    except URLError:
        return False
    return True


def _split_host_port(host: str) -> tuple[str, str]:
    colon = host.rfind(":")
    port = ""
    if colon >= 0 and _valid_port(host[colon:]):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _query(raw_query: str) -> dict[str, list[str]]:
    """url.ParseQuery, its errors skipped as Query() skips them; keys and values unescaped."""
    out: dict[str, list[str]] = {}
    for part in raw_query.split("&"):
        if not part or ";" in part:
            continue
        key, _, value = part.partition("=")
        try:
            key = _unescape("", key.replace("+", " "), host=False)
            value = _unescape("", value.replace("+", " "), host=False)
        except URLError:
            continue
        out.setdefault(key, []).append(value)
    return out


def _escaped_path(u: URL) -> str:
    if u.raw_path and all(c in _PATH_VALID or not c.isascii() for c in u.raw_path) and u.raw_path.isascii():
        return u.raw_path
    return "*" if u.path == "*" else _escape_path(u.path)


def url_method(name: str, u: URL, args: list[Any]) -> Any:
    if args:
        raise CelError(NO_SUCH_OVERLOAD)
    if name == "getScheme":
        return u.scheme
    if name == "getHost":
        return u.host
    if name in ("getHostname", "getPort"):
        host, port = _split_host_port(u.host)
        return host if name == "getHostname" else port
    if name == "getEscapedPath":
        return _escaped_path(u)
    if name == "getQuery":
        return _query(u.raw_query)
    raise CelError(NO_SUCH_OVERLOAD)


GLOBALS: dict[str, Callable[..., Any]] = {"url": parse_url, "isURL": is_url}
