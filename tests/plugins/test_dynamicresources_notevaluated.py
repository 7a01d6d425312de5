"""DynamicResources with device selectors podwhy's CEL does not evaluate (timestamp(), ...).

Upstream's allocator (k8s.io/dynamic-resource-allocation/structured, allocator_incubating.go's
selectorsMatch) evaluates every selector it reaches; podwhy cannot tell what such a selector
says of a device. The node keeps upstream's verdict when the search never reads one, or when the
verdict is the same whether they all match or none does; otherwise its Filter status is podwhy's
own NotEvaluated, never a rejection and never a pass. CEL compile errors and real runtime errors
stay upstream's errors (the "CEL runtime error" and "too many devices" cases of
test_dynamicresources.py, after allocator_testing.go)."""

from __future__ import annotations

import pytest

from podwhy.framework.notevaluated import NotEvaluated, UnevaluatedSelector
from podwhy.framework.status import Code, Status
from podwhy.model import objects as o
from podwhy.report.words.notevaluated import not_evaluated_text
from tests.builders import make_node
from tests.plugins.test_dynamicresources import (
    CANNOT_ALLOCATE,
    CLAIM,
    DRIVER_A,
    NODE1,
    NODE2,
    NS,
    by_name,
    device,
    exact,
    first_available,
    make_claim,
    make_class,
    make_slice,
    run,
    sub,
)

# A selector podwhy does not evaluate: whether the device was made before 2025.
MADE = f'timestamp(device.attributes["{DRIVER_A}"].made) < timestamp("2025-01-01T00:00:00Z")'
# Big devices match without reading the date; for the others the date decides.
BIG_OR_MADE = f'device.attributes["{DRIVER_A}"].model == "big" || {MADE}'
CLAIM_SELECTOR = UnevaluatedSelector(f"claim {NS}/{CLAIM}", 0, "cel:timestamp")

OK = (Code.Success, [], None)
CANNOT = (Code.UnschedulableAndUnresolvable, [CANNOT_ALLOCATE], None)


def unknown(*selectors: UnevaluatedSelector) -> tuple[Code, list[str], NotEvaluated]:
    return (Code.Success, [], NotEvaluated(selectors=selectors))


def outcome(status: Status) -> tuple[Code, list[str], NotEvaluated | None]:
    return status.code, status.reasons, status.not_evaluated


def big(name: str) -> dict[str, object]:
    return device(name, model="big", made="2024-06-01T00:00:00Z")


def small(name: str) -> dict[str, object]:
    return device(name, model="small", made="2024-06-01T00:00:00Z")


CASES: list[tuple[str, list[o.ResourceClaim], list[o.DeviceClass], list[o.ResourceSlice], object]] = [
    (
        "an unknown selector on the only candidate device: not evaluated",
        [make_claim(exact(selectors=[MADE]))],
        [make_class()],
        [make_slice(small("dev-1"))],
        unknown(CLAIM_SELECTOR),
    ),
    (
        "the device class's selector is the unknown one: named as upstream names its owner",
        [make_claim()],
        [make_class("class-a", DRIVER_A, MADE)],
        [make_slice(small("dev-1"))],
        unknown(UnevaluatedSelector("class class-a", 1, "cel:timestamp")),
    ),
    (
        "another device matches by evaluated selectors before the search reads the unknown one: passes",
        [make_claim(exact(selectors=[BIG_OR_MADE]))],
        [make_class()],
        [make_slice(big("dev-1"), small("dev-2"))],
        OK,
    ),
    (
        "the unknown device comes first: upstream allocates it or the other one, not evaluated",
        [make_claim(exact(selectors=[BIG_OR_MADE]))],
        [make_class()],
        [make_slice(small("dev-1"), big("dev-2"))],
        unknown(CLAIM_SELECTOR),
    ),
    (
        "the unknown device needed besides the matching one: not evaluated",
        [make_claim(exact(count=2, selectors=[BIG_OR_MADE]))],
        [make_class()],
        [make_slice(small("dev-1"), big("dev-2"))],
        unknown(CLAIM_SELECTOR),
    ),
    (
        "the unknown device read but ruled out by a constraint whatever it says: the same allocation, passes",
        [
            make_claim(
                exact("req-0", selectors=[f'device.attributes["{DRIVER_A}"].model == "big"']),
                exact("req-1", selectors=[BIG_OR_MADE]),
                constraints=[{"matchAttribute": f"{DRIVER_A}/model"}],
            )
        ],
        [make_class()],
        [make_slice(big("dev-0"), small("dev-1"), big("dev-2"))],
        OK,
    ),
    (
        "too few devices even counting the unknown one as matching: fails as upstream says",
        [make_claim(exact(count=2, selectors=[MADE]))],
        [make_class()],
        [make_slice(small("dev-1"))],
        CANNOT,
    ),
    (
        "the unknown device in use already: never read, fails as upstream says",
        [
            make_claim(exact(selectors=[MADE])),
            make_claim(name="other", allocated=[(DRIVER_A, NODE1, "dev-1")], on_node=NODE1),
        ],
        [make_class()],
        [make_slice(small("dev-1"))],
        CANNOT,
    ),
    (
        "a prioritized list whose first choice rests on the unknown selector: not evaluated",
        [make_claim(first_available("req-0", sub("made", selectors=[MADE]), sub("any")))],
        [make_class()],
        [make_slice(small("dev-1"))],
        unknown(CLAIM_SELECTOR),
    ),
    (
        "All devices, one of them unknown: how many the request takes is unknown",
        [make_claim(exact(mode="All", count=None, selectors=[BIG_OR_MADE]))],
        [make_class()],
        [make_slice(big("dev-1"), small("dev-2"))],
        unknown(CLAIM_SELECTOR),
    ),
    (
        "a real runtime error read before the unknown selector stays upstream's error",
        [make_claim(exact(selectors=[f'device.attributes["{DRIVER_A}"].missing == 1', MADE]))],
        [make_class()],
        [make_slice(small("dev-1"))],
        (Code.Error, [f"claim {NS}/{CLAIM}: selector #0: CEL runtime error: no such key: missing"], None),
    ),
    (
        "division by zero stays upstream's runtime error",
        [make_claim(exact(selectors=["1 / 0 == 0", MADE]))],
        [make_class()],
        [make_slice(small("dev-1"))],
        (Code.Error, [f"claim {NS}/{CLAIM}: selector #0: CEL runtime error: division by zero"], None),
    ),
    (
        "a runtime error only some readings of the unknown selector reach: not evaluated",
        [make_claim(exact(selectors=[MADE, "1 / 0 == 0"]))],
        [make_class()],
        [make_slice(small("dev-1"))],
        unknown(CLAIM_SELECTOR),
    ),
    (
        "a compile error stays upstream's error",
        [make_claim(exact(selectors=[f"{MADE} &&"]))],
        [make_class()],
        [make_slice(small("dev-1"))],
        "compile",
    ),
]


@pytest.mark.parametrize(("claims", "classes", "slices", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter_with_unknown_selectors(
    claims: list[o.ResourceClaim], classes: list[o.DeviceClass], slices: list[o.ResourceSlice], want: object
) -> None:
    nodes = [make_node(NODE1).obj(), make_node(NODE2).obj()]
    pre, verdicts, state = run(by_name(), claims, classes, slices, nodes)
    assert pre.is_success()
    got = outcome(verdicts[NODE1])
    if want == "compile":
        assert got[0] == Code.Error and got[2] is None
        assert got[1][0].startswith(f"claim {NS}/{CLAIM}: selector #0: CEL compile error: compilation failed: ")
    else:
        assert got == want
    # No devices on the other node: nothing read there, upstream's rejection.
    assert outcome(verdicts[NODE2]) == CANNOT
    if got[2] is not None:
        assert NODE1 not in state.node_allocations  # nothing chosen: nothing to score or reserve


def test_unknown_selectors_are_said_by_name_never_by_text() -> None:
    # The expression comes from the cluster: the words name its owner and the function only.
    device_class = make_class("class-a", DRIVER_A, f'"[red]x[/red]" != "" && {MADE}')
    _, verdicts, _ = run(by_name(), [make_claim()], [device_class], [make_slice(small("dev-1"))])
    fact = verdicts[NODE1].not_evaluated
    assert fact is not None
    assert not_evaluated_text(fact) == (
        "not evaluated: device selector #1 of class class-a needs CEL's timestamp, which podwhy does not evaluate"
    )
