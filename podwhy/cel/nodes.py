"""The parsed expression: one node class per construct."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any


class Node:
    __slots__ = ()


@dataclass(frozen=True)
class Lit(Node):
    value: Any
    # Where the literal starts in the text (for checker errors); not part of the node's identity.
    pos: int = dataclass_field(default=-1, compare=False)


@dataclass(frozen=True)
class Ident(Node):
    name: str
    # Where the name starts in the text (for compile errors); not part of the node's identity.
    pos: int = dataclass_field(default=-1, compare=False)


@dataclass(frozen=True)
class Select(Node):
    operand: Node
    field: str
    test_only: bool = False
    # `operand.?field`: an optional of the field, none when it is absent.
    optional: bool = False


@dataclass(frozen=True)
class Index(Node):
    operand: Node
    index: Node
    # `operand[?index]`: an optional of the element, none when it is absent.
    optional: bool = False


@dataclass(frozen=True)
class Call(Node):
    target: Node | None
    function: str
    args: tuple[Node, ...]
    # Where the call's "(" is in the text (cel-go's location of a call); not part of its identity.
    pos: int = dataclass_field(default=-1, compare=False)


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple[Node, ...]
    # The indexes of the optional elements (`[?opt, x]`): an element there is an optional, its
    # value added only when present (cel-go's CreateList optional indices).
    optional: tuple[int, ...] = ()


@dataclass(frozen=True)
class MapLit(Node):
    entries: tuple[tuple[Node, Node], ...]
    # The indexes of the optional entries (`{?key: opt}`): an entry there is set only when its
    # optional value is present, and removed when it is none (cel-go's optional map entries).
    optional: tuple[int, ...] = ()


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Logical(Node):
    op: str  # "&&" or "||"
    terms: tuple[Node, ...]


@dataclass(frozen=True)
class Cond(Node):
    cond: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True)
class Comprehension(Node):
    macro: str  # all, exists, exists_one, map, filter, transformMap, transformMapEntry
    target: Node
    var: str
    filter: Node | None
    body: Node
    # The second variable of ext.TwoVarComprehensions (index or key first, then the value).
    var2: str | None = None


@dataclass(frozen=True)
class Bind(Node):
    var: str
    init: Node
    body: Node


@dataclass(frozen=True)
class StructLit(Node):
    """`Name{field: value, ?optional: opt}`: a message of a type the environment resolves."""

    name: str
    # (field, value, optional): an optional field is set only when its value is present.
    fields: tuple[tuple[str, Node, bool], ...]
    pos: int = dataclass_field(default=-1, compare=False)
