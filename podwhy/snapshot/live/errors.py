"""Why a request to the API server got no answer, in kubectl's words where it has them
(a refused connection, an untrusted certificate, a timeout), in one line with what to do."""

from __future__ import annotations

import re
import ssl
from urllib.parse import urlsplit

from podwhy.errors import PodwhyError

# What kubectl says of a refused connection, and how else podwhy can work.
REFUSED_HINT = (
    "did you specify the right host or port? It is the server of the kubeconfig's context, chosen with"
    " --kubeconfig and --context; to explain offline, pass --from and a dump"
)
# What to do when the server's certificate is not trusted.
UNTRUSTED_HINT = (
    "set the kubeconfig cluster's certificate-authority or certificate-authority-data to the CA that"
    " signed the server's certificate, or skip the check with --insecure-skip-tls-verify, as kubectl does"
)


class HttpError(Exception):
    """An answer of the API server that is not a success: its HTTP status, reason and message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message


def connection_error(host: str, exc: Exception) -> PodwhyError:
    """Why a request to HOST got no answer, in one line, with what to do when podwhy knows."""
    text = str(exc)
    tls = _ssl_error(exc)
    if tls is not None or "CERTIFICATE_VERIFY_FAILED" in text or "SSLError" in type(exc).__name__:
        detail = _ssl_detail(tls, text)
        untrusted = isinstance(tls, ssl.SSLCertVerificationError) or "certificate verify failed" in detail
        return PodwhyError(f"TLS handshake with {host} failed: {detail}", hint=UNTRUSTED_HINT if untrusted else None)
    if "timed out" in text.lower() or "Timeout" in type(exc).__name__:
        return PodwhyError(f"{host} did not answer in time (request timeout)")
    if "Connection refused" in text:
        # kubectl's words: "The connection to the server HOST:PORT was refused"
        return PodwhyError(f"the connection to the server {_host_port(host)} was refused", hint=REFUSED_HINT)
    return PodwhyError(f"cannot reach the API server at {host}: {_reason(text)}")


def _host_port(url: str) -> str:
    """The server's HOST[:PORT] as kubectl names it in its message (the URL's host)."""
    return urlsplit(url).netloc.rpartition("@")[2] or url


def _ssl_error(exc: BaseException) -> ssl.SSLError | None:
    """The ssl module's error behind a client's exception (urllib3 wraps it in one or two)."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        error = todo.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        if isinstance(error, ssl.SSLError):
            return error
        more = [getattr(error, "reason", None), error.__cause__, error.__context__, *error.args]
        todo.extend(e for e in more if isinstance(e, BaseException))
    return None


def _ssl_detail(error: ssl.SSLError | None, text: str) -> str:
    """The TLS library's message whole (`certificate verify failed: self-signed certificate
    (_ssl.c:1006)`), without its `[SSL: CODE]` prefix."""
    if error is not None and str(error):
        return re.sub(r"^\[SSL: [A-Z0-9_]+\] ", "", str(error))
    marker = "certificate verify failed"
    i = text.find(marker)
    if i < 0:
        return "the server's certificate is not trusted"
    end = text.find(")", i)
    return text[i : end + 1] if end >= 0 else text[i:]


def _reason(text: str) -> str:
    for hint in ("Connection refused", "Name or service not known", "No route to host", "Connection reset"):
        if hint in text:
            return hint.lower()
    return text.splitlines()[0][:200]
