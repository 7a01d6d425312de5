"""The reference YAML reader: PyYAML (libyaml's C parser when present), read as YAML 1.1.

It reads what the fast reader cannot take (one document or one List item at a time) and is
the yardstick the fast reader is tested against. Scalars are resolved as YAML 1.1 does,
except timestamps, which stay strings as in JSON. A scalar read as a number, boolean or null
keeps the text it was written as (`Scalar`), and `coerce` uses the target type to pick one:
a string field reads the text (`pod-template-hash: 0755` is "0755", not 493), a typed field
reads the value, and a null leaves a field unset (`nodeName: ~` is "", not "~").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, TypeVar

import msgspec
import msgspec.inspect as mi
import yaml

from podwhy.snapshot.limits import MAX_YAML_ALIAS_NODES, MAX_YAML_DEPTH

_StructT = TypeVar("_StructT", bound=msgspec.Struct)
_SafeLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_NULL_TAG = "tag:yaml.org,2002:null"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_STR_TAG = "tag:yaml.org,2002:str"


class Scalar:
    """A scalar YAML 1.1 reads as a number, boolean or null, with the text it was written as."""

    __slots__ = ("text", "value")

    def __init__(self, value: Any, text: str) -> None:
        self.value = value
        self.text = text

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Scalar)
            and type(self.value) is type(other.value)
            and self.value == other.value
            and self.text == other.text
        )

    def __hash__(self) -> int:
        return hash((type(self.value), self.value, self.text))

    def __repr__(self) -> str:
        return f"Scalar({self.value!r}, {self.text!r})"


class DuplicateKeyError(yaml.YAMLError):
    """A mapping holds a key twice (YAML forbids it; go-yaml v3, which kustomize and helm read
    with, refuses it in these words). Lines count from 0 in the text loaded."""

    def __init__(self, key: str, line: int, first_line: int) -> None:
        super().__init__(f"mapping key {key!r} already defined")
        self.key = key
        self.line = line
        self.first_line = first_line


class Loader(_SafeLoader):  # type: ignore[misc]
    """SafeLoader without the timestamp resolver, whose non-string scalars remember their text,
    refusing a mapping that holds a key twice."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        check_unique_keys(node)
        return super().construct_mapping(node, deep)


def check_unique_keys(node: Any) -> None:
    """DuplicateKeyError if the mapping NODE holds a scalar key twice (compared as written)."""
    if not isinstance(node, yaml.MappingNode):
        return
    seen: dict[str, Any] = {}
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode):
            first = seen.setdefault(key_node.value, key_node)
            if first is not key_node:
                raise DuplicateKeyError(key_node.value, key_node.start_mark.line, first.start_mark.line)


class UniqueKeySafeLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader refusing a mapping that holds a key twice (kube-scheduler decodes its
    configuration strictly)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        check_unique_keys(node)
        return super().construct_mapping(node, deep)


Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}


def _keeping_text(construct: Callable[[Any, yaml.ScalarNode], Any]) -> Callable[[Any, yaml.ScalarNode], Scalar]:
    def build(loader: Any, node: yaml.ScalarNode) -> Scalar:
        try:
            value = construct(loader, node)
        except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
            raise yaml.constructor.ConstructorError(
                None, None, f"a number of {len(str(node.value))} characters: too long to read", node.start_mark
            ) from None
        return Scalar(value, str(node.value))

    return build


for _tag, _construct in (
    (_NULL_TAG, yaml.constructor.SafeConstructor.construct_yaml_null),
    (_BOOL_TAG, yaml.constructor.SafeConstructor.construct_yaml_bool),
    (_INT_TAG, yaml.constructor.SafeConstructor.construct_yaml_int),
    (_FLOAT_TAG, yaml.constructor.SafeConstructor.construct_yaml_float),
):
    Loader.add_constructor(_tag, _keeping_text(_construct))


def load_all(data: bytes | str) -> list[Any]:
    """Every document of a stream (yaml.YAMLError if it is malformed, or nested or aliased past
    the bounds of limits.py)."""
    text = data if isinstance(data, bytes) else data.encode()
    check_depth(text)
    check_aliases(text)
    return list(yaml.load_all(data, Loader=Loader))


class BoundError(yaml.YAMLError):
    """A document past one of limits.py's bounds, said in words of the problem."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


# What opens a level: a flow bracket, or a line's indent and the `- `, `? `, `: ` markers after it.
_NESTING = re.compile(rb"[\[{\]}]|^[ \t]*(?:[-?:][ \t]+)*", re.MULTILINE)


def check_depth(data: bytes) -> None:
    """BoundError when DATA may nest deeper than MAX_YAML_DEPTH, told before libyaml parses it (its
    parser recurses in C, once per level, and would overflow the stack rather than fail). An upper
    bound: the deepest run of open flow brackets plus the widest indent and markers of a line;
    brackets in strings count too, which leaves a real document far below the bound."""
    if len(data) <= MAX_YAML_DEPTH:  # every level takes a byte at least
        return
    flow = deepest = block = 0
    for match in _NESTING.finditer(data):
        token = match[0]
        if token in (b"[", b"{"):
            flow += 1
            deepest = max(deepest, flow)
        elif token in (b"]", b"}"):
            flow = max(flow - 1, 0)
        else:
            block = max(block, len(token))
    if deepest + block > MAX_YAML_DEPTH:
        raise BoundError(f"nested more than {MAX_YAML_DEPTH} levels deep (MAX_YAML_DEPTH)")


# An alias (`*name`): a star and a name; YAML reads one at the start of a line or after a space or
# flow indicator (searched for the star first: a literal is found fast).
_ALIAS = re.compile(rb"\*[^\s\[\]{},]")
_BEFORE_ALIAS = frozenset(b" \t\r\n[{,")


def _has_alias(data: bytes) -> bool:
    return any(m.start() == 0 or data[m.start() - 1] in _BEFORE_ALIAS for m in _ALIAS.finditer(data))


def check_aliases(data: bytes) -> None:
    """BoundError when DATA's aliases, expanded, would add more than MAX_YAML_ALIAS_NODES nodes
    (a "billion laughs"), or an alias refers to the collection it is in: counted on the node
    graph, where an alias is the node it names, before anything expands it."""
    if b"*" not in data or not _has_alias(data):
        return
    check_depth(data)
    added = 0
    try:
        roots = list(yaml.compose_all(data, Loader=Loader))
    except BoundError:
        raise
    except yaml.YAMLError:  # malformed: the reader says where
        return
    for root in roots:
        if root is not None:
            added += _alias_nodes(root)
            if added > MAX_YAML_ALIAS_NODES:
                raise BoundError(
                    f"its aliases expand to more than {MAX_YAML_ALIAS_NODES:,} nodes (MAX_YAML_ALIAS_NODES)"
                )


def _alias_nodes(root: yaml.Node) -> int:
    """How many nodes expanding ROOT's aliases adds to the nodes it holds (iteratively: no recursion)."""
    size: dict[int, int] = {}
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children_of(node)
        if done:
            open_.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in children)
            if size[key] - len(size) > MAX_YAML_ALIAS_NODES:
                return size[key] - len(size)
            continue
        if key in size:
            continue
        if key in open_:
            raise BoundError("an alias refers to a collection it is part of (a recursive alias)")
        open_.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in open_:
                raise BoundError("an alias refers to a collection it is part of (a recursive alias)")
            if id(child) not in size:
                stack.append((child, False))
    return size[id(root)] - len(size)


def _children_of(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def plain(value: Any) -> Any:
    """VALUE with every Scalar replaced by its value, recursively (mapping keys by their text)."""
    if isinstance(value, Scalar):
        return value.value
    if isinstance(value, dict):
        return {key_text(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def key_text(key: Any) -> Any:
    """A mapping key as written: keys are strings, whatever YAML 1.1 would read them as."""
    return key.text if isinstance(key, Scalar) else key


def is_null(value: Any) -> bool:
    return value is None or (isinstance(value, Scalar) and value.value is None)


# ------------------------------------------------------------------ plain-scalar readings


@lru_cache(maxsize=4096)
def plain_tag(text: str) -> str:
    """The tag YAML 1.1 (timestamps aside) gives TEXT written as a plain scalar."""
    tag: str = Loader.resolve(Loader, yaml.ScalarNode, text, (True, False))
    return tag


# Plain scalars the fast reader emits as JSON literals meaning what YAML 1.1 means by them.
_JSON_LITERAL = re.compile(r"true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][-+][0-9]+)?)?")


@lru_cache(maxsize=4096)
def reads_otherwise(text: str) -> bool:
    """Whether TEXT, written plain, is a number, boolean or null that JSON would hold as a string.

    Such a string in a field that also takes numbers may have been written plain (0755, yes,
    .inf) or quoted ('0755'); only the reference reader can tell.
    """
    return plain_tag(text) != _STR_TAG and _JSON_LITERAL.fullmatch(text) is None


# ------------------------------------------------------------------ type-directed coercion

_Coerce = Callable[[Any], Any]
_DROP = object()  # a null in a field that takes none: leave the field unset


def coerce(value: Any, tp: Any) -> Any:
    """VALUE, as read by the reference reader, made ready for msgspec.convert(..., TP)."""
    return _coercer(tp)(value)


@cache
def _coercer(tp: Any) -> _Coerce:
    return _Builder().build(mi.type_info(tp))


def _as_value(value: Any) -> Any:
    return plain(value)


def _as_str(value: Any) -> Any:
    if isinstance(value, Scalar):
        return "" if value.value is None else value.text
    return plain(value)


def _accepts_none(t: mi.Type) -> bool:
    if isinstance(t, mi.NoneType | mi.AnyType):
        return True
    return isinstance(t, mi.UnionType) and any(isinstance(m, mi.NoneType) for m in t.types)


class _Builder:
    """Compiles a msgspec type into a coercion function (recursive structs share theirs)."""

    def __init__(self) -> None:
        self._structs: dict[type, _Coerce] = {}

    def build(self, t: mi.Type) -> _Coerce:
        if isinstance(t, mi.StrType):
            return _as_str
        if isinstance(t, mi.StructType):
            return self._struct(t)
        if isinstance(t, mi.ListType):
            return self._list(self.build(t.item_type))
        if isinstance(t, mi.DictType):
            return self._dict(self.build(t.key_type), self.build(t.value_type))
        if isinstance(t, mi.UnionType):
            return self._union(t)
        return _as_value

    def _struct(self, t: mi.StructType) -> _Coerce:
        known = self._structs.get(t.cls)
        if known is not None:
            return known
        fields: dict[str, tuple[_Coerce, bool]] = {}

        def struct(value: Any) -> Any:
            if not isinstance(value, dict):
                return plain(value)
            out: dict[Any, Any] = {}
            for key, item in value.items():
                name = key_text(key)
                spec = fields.get(name)
                if spec is None:
                    continue  # not a field podwhy reads
                field_coerce, takes_none = spec
                if not takes_none and is_null(item):
                    continue  # null leaves the field at its default, as the API server reads it
                out[name] = field_coerce(item)
            return out

        self._structs[t.cls] = struct
        for f in t.fields:
            fields[f.encode_name] = (self.build(f.type), _accepts_none(f.type))
        return struct

    @staticmethod
    def _list(item: _Coerce) -> _Coerce:
        def coerce_list(value: Any) -> Any:
            return [item(v) for v in value] if isinstance(value, list) else plain(value)

        return coerce_list

    @staticmethod
    def _dict(key: _Coerce, item: _Coerce) -> _Coerce:
        def coerce_dict(value: Any) -> Any:
            if not isinstance(value, dict):
                return plain(value)
            return {key(key_text(k)): item(v) for k, v in value.items()}

        return coerce_dict

    def _union(self, t: mi.UnionType) -> _Coerce:
        members = t.types
        takes = {type(m) for m in members}
        structured = [m for m in members if isinstance(m, mi.StructType | mi.ListType | mi.DictType)]
        nested = {type(m): self.build(m) for m in structured}
        has_str = mi.StrType in takes

        def coerce_union(value: Any) -> Any:
            if isinstance(value, Scalar):
                v = value.value
                if (
                    (v is None and mi.NoneType in takes)
                    or (isinstance(v, bool) and mi.BoolType in takes)
                    or (type(v) is int and (mi.IntType in takes or mi.FloatType in takes))
                    or (isinstance(v, float) and mi.FloatType in takes)
                ):
                    return v
                return value.text if has_str and v is not None else v
            if isinstance(value, dict):
                target = nested.get(mi.StructType) or nested.get(mi.DictType)
                return target(value) if target else plain(value)
            if isinstance(value, list):
                target = nested.get(mi.ListType)
                return target(value) if target else plain(value)
            return value

        return coerce_union


def convert(value: Any, tp: type[_StructT]) -> _StructT:
    """coerce, then msgspec.convert (msgspec.ValidationError if it still does not fit)."""
    return msgspec.convert(coerce(value, tp), tp)
