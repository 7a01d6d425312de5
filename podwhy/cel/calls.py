"""The functions an expression calls: global functions by name and methods by receiver type,
from CEL's standard library, cel-go's extensions Kubernetes enables and k8s.io/apiserver's
libraries. The names here are also what the checker knows as declared."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from podwhy.cel.errors import NO_SUCH_OVERLOAD, CelError
from podwhy.cel.functions import size, to_bool, to_bytes, to_double, to_int, to_string, to_uint
from podwhy.cel.library import ip as ip_lib
from podwhy.cel.library import lists, optional, urls
from podwhy.cel.library.format import BASE_FORMATS, Format, format_functions, validate
from podwhy.cel.library.quantity import is_quantity, quantity, quantity_method, sign
from podwhy.cel.library.regex import matches
from podwhy.cel.library.semver import is_semver, semver, semver_method
from podwhy.cel.library.strings import quote, string_method
from podwhy.cel.values import Semver, need
from podwhy.model.quantity import Quantity

Function = Callable[..., Any]


def _string(value: Any) -> str:
    """string(): also of the IP and CIDR types."""
    if isinstance(value, (ip_lib.IP, ip_lib.CIDR)):
        return str(value)
    return to_string(value)


def _no_overload(name: str) -> Any:
    raise CelError(f"no such overload: {name}")


GLOBAL_FUNCTIONS: dict[str, Function] = {
    "quantity": quantity,
    "isQuantity": is_quantity,
    "sign": sign,
    "semver": semver,
    "isSemver": lambda *args: is_semver(*args) if len(args) in (1, 2) else _no_overload("isSemver"),
    "size": size,
    "int": to_int,
    "uint": to_uint,
    "double": to_double,
    "bool": to_bool,
    "bytes": to_bytes,
    "string": _string,
    "matches": lambda s, pattern: matches(need(s, str), need(pattern, str)),
    "dyn": lambda value: value,
    "strings.quote": lambda s: quote(need(s, str)),
    **optional.GLOBALS,
    **lists.GLOBALS,
    **urls.GLOBALS,
    **ip_lib.GLOBALS,
    **format_functions(BASE_FORMATS),
}

# The methods, by the receiver types that have them (for the checker: every method name).
METHOD_NAMES = frozenset(
    {
        # strings (standard and ext.Strings v2) and regex
        "contains", "startsWith", "endsWith", "matches", "size", "lowerAscii", "upperAscii", "trim",
        "split", "indexOf", "lastIndexOf", "charAt", "substring", "replace", "find", "findAll", "join",
        # quantity and semver
        "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "isInteger", "asInteger",
        "asApproximateFloat", "major", "minor", "patch",
        # lists
        "isSorted", "sum", "min", "max", "slice", "flatten", "sort", "reverse", "distinct",
        # optional
        "hasValue", "value", "orValue", "or", "first", "last", "unwrapOpt",
        # URLs
        "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
        # IP and CIDR
        "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
        "isGlobalUnicast", "containsIP", "containsCIDR", "ip", "prefixLength", "masked",
        # format
        "validate",
        # the authorizer library (declared; podwhy does not evaluate the authorizer)
        "group", "resource", "subresource", "namespace", "name", "check", "allowed", "reason",
        "errored", "error", "path", "serviceAccount", "fieldSelector", "labelSelector",
    }
)  # fmt: skip


# What the API server's CEL environment declares (cel-go's standard library, ext.Strings v2,
# ext.Lists v3; k8s.io/apiserver/pkg/cel/environment/base.go) that podwhy does not evaluate: the
# checker knows them, and an evaluation reaching one is not evaluated (CelNotEvaluatedError),
# never a compile error the API server would not give.
UNEVALUATED_GLOBALS = frozenset({"timestamp", "duration", "type"})
UNEVALUATED_METHODS = frozenset(
    {
        # timestamps and durations
        "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
        "getHours", "getMinutes", "getSeconds", "getMilliseconds",
        # ext.Strings (version 1 on): `'%s'.format([x])`; ext.Lists (version 2 on): the sortBy macro
        "format", "sortBy",
    }
)  # fmt: skip
# Macros among them: their first argument is a variable the macro binds, not a reference.
UNEVALUATED_MACROS = frozenset({"sortBy"})
# The type denotations (`type(x) == string`).
UNEVALUATED_IDENTS = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type"})


def unevaluated(node_function: str, member: bool) -> bool:
    """Whether a call of NODE_FUNCTION (a method when MEMBER) is one podwhy does not evaluate."""
    return node_function in (UNEVALUATED_METHODS if member else UNEVALUATED_GLOBALS)


def call_global(name: str, args: list[Any], extra: Mapping[str, Function]) -> Any:
    fn = extra.get(name) or GLOBAL_FUNCTIONS.get(name)
    if fn is None:
        raise CelError(f"no such overload: {name}")
    try:
        return fn(*args)
    except TypeError:
        raise CelError(NO_SUCH_OVERLOAD) from None


def call_method(name: str, target: Any, args: list[Any]) -> Any:
    if isinstance(target, str):
        try:
            return string_method(name, target, args)
        except IndexError:
            raise CelError(NO_SUCH_OVERLOAD) from None
    if isinstance(target, list):
        return _list_method(name, target, args)
    if isinstance(target, Quantity):
        return quantity_method(name, target, args)
    if isinstance(target, Semver):
        return semver_method(name, target, args)
    if isinstance(target, optional.Optional):
        return optional.optional_method(name, target, args)
    if isinstance(target, urls.URL):
        return urls.url_method(name, target, args)
    if isinstance(target, ip_lib.IP):
        return ip_lib.ip_method(name, target, args)
    if isinstance(target, ip_lib.CIDR):
        return ip_lib.cidr_method(name, target, args)
    if isinstance(target, Format) and name == "validate":
        return validate(target, args)
    if name == "size" and not args:
        return size(target)
    raise CelError(NO_SUCH_OVERLOAD)


def _list_method(name: str, items: list[Any], args: list[Any]) -> Any:
    if name == "size" and not args:
        return len(items)
    if name == "join":
        sep = need(args[0], str) if args else ""
        if not all(isinstance(item, str) for item in items):
            raise CelError(NO_SUCH_OVERLOAD)
        return sep.join(items)
    if name in optional.LIST_METHODS and not args:
        return optional.LIST_METHODS[name](items)
    return lists.list_method(name, items, args)
