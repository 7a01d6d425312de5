"""Lists and maps many objects hold as one (podwhy/model/shared.py): they read and encode as plain
ones, refuse every change in place, and their copies are plain ones, free to change."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from podwhy.model import objects as o
from podwhy.model import shared
from podwhy.model.shared import SharedDict, SharedList


def _list() -> SharedList[int]:
    return SharedList([3, 1, 2])


def _dict() -> SharedDict[str, str]:
    return SharedDict({"a": "1", "b": "2"})


def _iadd(x: Any) -> None:
    x += [4]


def _ior(x: Any) -> None:
    x |= {"c": "3"}


LIST_CHANGES: list[Callable[[Any], object]] = [
    lambda x: x.append(4),
    lambda x: x.extend([4]),
    lambda x: x.insert(0, 4),
    lambda x: x.remove(1),
    lambda x: x.pop(),
    lambda x: x.clear(),
    lambda x: x.sort(),
    lambda x: x.reverse(),
    lambda x: x.__setitem__(0, 4),
    lambda x: x.__setitem__(slice(0, 1), [4]),
    lambda x: x.__delitem__(0),
    _iadd,
    lambda x: x.__imul__(2),
]
DICT_CHANGES: list[Callable[[Any], object]] = [
    lambda x: x.__setitem__("c", "3"),
    lambda x: x.__delitem__("a"),
    lambda x: x.setdefault("c", "3"),
    lambda x: x.update(c="3"),
    lambda x: x.pop("a"),
    lambda x: x.popitem(),
    lambda x: x.clear(),
    _ior,
]


@pytest.mark.parametrize("change", LIST_CHANGES)
def test_a_shared_list_refuses_every_change_in_place(change: Callable[[Any], object]) -> None:
    value = _list()
    with pytest.raises(TypeError, match="changed in place"):
        change(value)
    assert value == [3, 1, 2]


@pytest.mark.parametrize("change", DICT_CHANGES)
def test_a_shared_map_refuses_every_change_in_place(change: Callable[[Any], object]) -> None:
    value = _dict()
    with pytest.raises(TypeError, match="changed in place"):
        change(value)
    assert value == {"a": "1", "b": "2"}


COPIES: list[Callable[[Any], Any]] = [
    list,
    lambda x: x.copy(),
    lambda x: x[:],
    lambda x: [*x],
    copy.copy,
    copy.deepcopy,
    lambda x: pickle.loads(pickle.dumps(x)),
]
MAP_COPIES: list[Callable[[Any], Any]] = [
    dict,
    lambda x: x.copy(),
    lambda x: {**x},
    lambda x: x | {},
    copy.copy,
    copy.deepcopy,
    lambda x: pickle.loads(pickle.dumps(x)),
]


@pytest.mark.parametrize("copied", COPIES)
def test_a_copy_of_a_shared_list_is_a_plain_one(copied: Callable[[Any], Any]) -> None:
    value = _list()
    out = copied(value)
    assert type(out) is list and out == value
    out.append(4)
    assert value == [3, 1, 2]


@pytest.mark.parametrize("copied", MAP_COPIES)
def test_a_copy_of_a_shared_map_is_a_plain_one(copied: Callable[[Any], Any]) -> None:
    value = _dict()
    out = copied(value)
    assert type(out) is dict and out == value
    out["c"] = "3"
    assert value == {"a": "1", "b": "2"}


def test_shared_values_read_and_encode_as_plain_ones() -> None:
    held = o.ObjectMeta(name="p", labels=_dict(), owner_references=SharedList([o.OwnerReference(kind="Job")]))
    plain = o.ObjectMeta(name="p", labels={"a": "1", "b": "2"}, owner_references=[o.OwnerReference(kind="Job")])
    assert held == plain
    assert msgspec.json.encode(held) == msgspec.json.encode(plain)
    assert msgspec.to_builtins(held) == msgspec.to_builtins(plain)
    assert sorted(_list()) == [1, 2, 3] and _list().__add__([4]) == [3, 1, 2, 4]


def test_the_shared_empties_are_left_out_of_encodings_as_defaults() -> None:
    """msgspec leaves out a field only when it is exactly an empty list or dict: the shared empty
    ones are plain, so an object holding them encodes as one that was decoded."""
    held = o.ObjectMeta(name="p", labels=shared.EMPTY_DICT, owner_references=shared.EMPTY_LIST)
    assert msgspec.json.encode(held) == b'{"name":"p"}'


def test_intact_says_whether_a_shared_empty_was_changed() -> None:
    assert shared.intact()
    shared.EMPTY_LIST.append(1)
    try:
        assert not shared.intact()
    finally:
        shared.EMPTY_LIST.clear()
    shared.EMPTY_DICT["k"] = "v"
    try:
        assert not shared.intact()
    finally:
        shared.EMPTY_DICT.clear()
    assert shared.intact()
