"""Lists and maps that many objects of a snapshot hold as one (issue 39: memory per pod).

A fleet's pods repeat their tolerations, containers, labels and owners, and most hold a dozen
empty lists; podwhy.snapshot.compact gives every pod the one equal value it saw first. A value
so shared must never change in place, or every pod holding it would change: these types read
as `list` and `dict` do (equal to a plain one, encoded alike) and refuse every change in place
with a TypeError that names the cause. A copy (`list(x)`, `x.copy()`, `x[:]`, `{**x}`,
`copy.copy`, `copy.deepcopy`) is a plain one, free to change.

The empty list and map every object without one holds are plain ones (msgspec leaves a field out
of an encoding only when it is exactly its default, an empty `list` or `dict`, not a subclass):
`intact()` says whether they are still empty, and the commands check it before answering
(podwhy.cli.output), as the tests do after each test (tests/conftest.py).
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

MESSAGE = "a value the snapshot's objects share was changed in place: change a copy (podwhy/model/shared.py)"


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(MESSAGE)


class SharedList(list[T]):
    """A list many objects hold: read-only in place; copies are plain lists."""

    __slots__ = ()

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list[T]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[T]:
        import copy

        return [copy.deepcopy(item, memo) for item in self]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


class SharedDict(dict[K, V]):
    """A map many objects hold: read-only in place; copies are plain dicts."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = setdefault = update = pop = popitem = clear = _refuse

    def __copy__(self) -> dict[K, V]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[K, V]:
        import copy

        return {copy.deepcopy(key, memo): copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


# The empty list and map every object without one holds.
EMPTY_LIST: list[Any] = []
EMPTY_DICT: dict[Any, Any] = {}


def intact() -> bool:
    """Whether the shared empty list and map are still empty (nothing added to one in place)."""
    return not EMPTY_LIST and not EMPTY_DICT
