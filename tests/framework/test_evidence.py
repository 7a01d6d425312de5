"""Typed evidence: every kind is in the union the report and its schema know, under its own tag."""

from __future__ import annotations

import typing

import msgspec

from podwhy.framework import evidence as ev


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    direct_subclasses: list[type] = cls.__subclasses__()
    for direct in direct_subclasses:
        out |= {direct, *_subclasses(direct)}
    return out


def test_every_kind_is_in_the_union_once() -> None:
    members = typing.get_args(ev.AnyEvidence)
    assert set(members) == _subclasses(ev.Evidence)
    infos = [msgspec.inspect.type_info(cls) for cls in members]
    tags = [info.tag for info in infos if isinstance(info, msgspec.inspect.StructType)]
    assert len(tags) == len(members) and len(set(tags)) == len(tags)


def test_wire_names_round_trip() -> None:
    items: list[ev.AnyEvidence] = [
        ev.UnschedulableEvidence(node="n1", spec_unschedulable=True),
        ev.HostPortEvidence(
            host_ip="0.0.0.0", protocol="TCP", host_port=80, used_by=[ev.PortHolder(pod="default/p", host_ip="::")]
        ),
        ev.VolumeCountEvidence(driver="d", attached=2, new=1, limit=2, new_volumes=["v"]),
    ]
    wire = msgspec.json.encode(items)
    assert wire == (
        b'[{"kind":"unschedulable","node":"n1","spec.unschedulable":true},'
        b'{"kind":"hostPort","hostIP":"0.0.0.0","protocol":"TCP","hostPort":80,'
        b'"usedBy":[{"pod":"default/p","hostIP":"::"}]},'
        b'{"kind":"volumeCount","driver":"d","attached":2,"new":1,"limit":2,"newVolumes":["v"]}]'
    )
    assert msgspec.json.decode(wire, type=list[ev.AnyEvidence]) == items
