"""apimachinery's content validation of label keys and values, qualified names and DNS names.

One implementation for every caller: the boolean checks used by selectors and resource
names, and the error lists whose wording parse errors repeat (IsQualifiedName, IsLabelValue,
IsDNS1123Subdomain, IsDNS1123Label). Lengths are in bytes and patterns must match the whole value, as Go's do.
"""

from __future__ import annotations

import re

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_FMT = f"({QUALIFIED_NAME_FMT})?"
LABEL_VALUE_MAX_LENGTH = 63
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1123_LABEL_MAX_LENGTH = 63

_QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    """content.MaxLenError (label keys and values, from v1.35)."""
    return f"must be no more than {length} bytes"


def _dns_max_len_error(length: int) -> str:
    """util/validation.MaxLenError, which IsDNS1123Subdomain and IsDNS1123Label say in every
    release podwhy emulates."""
    return f"must be no more than {length} characters"


def _byte_len(value: str) -> int:
    return len(value.encode())


# ---------------------------------------------------------------- boolean checks


def is_dns1123_subdomain(value: str) -> bool:
    return _byte_len(value) <= DNS1123_SUBDOMAIN_MAX_LENGTH and _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None


def is_qualified_name(value: str) -> bool:
    """IsQualifiedName: an optional DNS-subdomain prefix and '/', then a name of at most 63 bytes."""
    parts = value.split("/")
    if len(parts) > 2:
        return False
    if len(parts) == 2 and (not parts[0] or not is_dns1123_subdomain(parts[0])):
        return False
    name = parts[-1]
    return 0 < _byte_len(name) <= QUALIFIED_NAME_MAX_LENGTH and _QUALIFIED_NAME_RE.fullmatch(name) is not None


def is_valid_label_key(key: str) -> bool:
    """A label key is a qualified name."""
    return is_qualified_name(key)


def is_valid_label_value(value: str) -> bool:
    return _byte_len(value) <= LABEL_VALUE_MAX_LENGTH and _LABEL_VALUE_RE.fullmatch(value) is not None


# ---------------------------------------------------------------- error lists (upstream wording)


def dns1123_subdomain_errors(value: str) -> list[str]:
    """IsDNS1123Subdomain."""
    errs: list[str] = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_dns_max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is None:
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def dns1123_label_errors(value: str) -> list[str]:
    """IsDNS1123Label (container and volume names): a valid subdomain that is no label
    holds dots."""
    errs: list[str] = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(_dns_max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if _DNS1123_LABEL_RE.fullmatch(value) is None:
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value) is not None:
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def label_key_errors(key: str) -> list[str]:
    """IsQualifiedName as labels.NewRequirement reports it for a label key."""
    errs: list[str] = []
    parts = key.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + _regex_error(_QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in dns1123_subdomain_errors(prefix))
    if not name:
        errs.append("name part must be non-empty")
    elif _byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + _max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if _QUALIFIED_NAME_RE.fullmatch(name) is None:
        errs.append(
            "name part " + _regex_error(_QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def label_value_errors(value: str) -> list[str]:
    """IsLabelValue."""
    errs: list[str] = []
    if _byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(_max_len_error(LABEL_VALUE_MAX_LENGTH))
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        errs.append(_regex_error(_LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs
