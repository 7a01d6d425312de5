"""made_safe finds a report with nothing to escape in its JSON at once, and gives exactly what the
string-by-string walk gives otherwise (issue 39: the walk over a 5,000-node report took a second)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec import UNSET, UnsetType

from podwhy.errors import ESCAPES
from podwhy.report import safe
from podwhy.report.safe import _walk, made_safe

# Every character the walk escapes, the ones JSON writes as escapes of its own, and plain ones.
SPECIAL = "".join(chr(c) for c in ESCAPES) + '\\"/ubfrnt\u00e9\u2027\u202f\u2065\u206a\ufffd\U0001f600'
texts = st.text(alphabet=st.sampled_from(SPECIAL) | st.characters(), max_size=12)


class Row(msgspec.Struct):
    name: str
    reasons: list[str]
    labels: dict[str, str]
    count: int = 0
    rows: list[Row] = []
    note: str | UnsetType = UNSET


rows = st.deferred(
    lambda: st.builds(
        Row,
        texts,
        st.lists(texts, max_size=3),
        st.dictionaries(texts, texts, max_size=3),
        st.integers(),
        st.lists(rows, max_size=2),
        st.just(UNSET) | texts,
    )
)


@given(rows)
def test_made_safe_is_the_walk(row: Row) -> None:
    walked = _walk(row)
    safe = made_safe(row)
    assert safe == walked
    if walked is row:
        assert safe is row


@given(st.text(alphabet=st.sampled_from(SPECIAL), min_size=1, max_size=6))
def test_a_string_to_escape_is_found_wherever_it_is(text: str) -> None:
    row = Row("a", ["b", f"x{text}y"], {"k": "v"})
    assert made_safe(row) == _walk(row)
    assert (made_safe(row) is row) == (_walk(row) is row)


@given(st.lists(rows, min_size=1, max_size=4), st.booleans())
def test_records_of_long_lists_are_looked_at_once_each_part(records: list[Row], shared: bool) -> None:
    """With every list of records taken as long (its records' shared parts encoded once each)."""
    if shared:  # records holding the very lists and dicts of others
        records = [Row(r.name, records[0].reasons, records[-1].labels, r.count, r.rows) for r in records]
    row = Row("report", [], {}, 0, records)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(safe, "SHARED_RECORDS", 1)
        walked, safe_row = _walk(row), made_safe(row)
    assert safe_row == walked
    assert (safe_row is row) == (walked is row)


@given(
    st.integers(min_value=0, max_value=safe.SHARED_RECORDS),
    st.sampled_from(["name", "reason", "key", "value", "nested"]),
    st.text(alphabet=st.sampled_from(SPECIAL), min_size=1, max_size=3),
)
def test_a_string_to_escape_in_one_record_of_a_long_list_is_found(at: int, where: str, text: str) -> None:
    """A report's `nodes`: records sharing their lists, one of them holding the string."""
    reasons, labels, nested = ["fits"], {"zone": "a"}, [Row("inner", [], {})]
    records = [Row(f"node-{i}", reasons, labels, i, nested) for i in range(safe.SHARED_RECORDS + 1)]
    own = {
        "name": Row(f"node{text}", reasons, labels, 0, nested),
        "reason": Row("node", [f"x{text}"], labels),
        "key": Row("node", reasons, {text: "v"}),
        "value": Row("node", reasons, {"k": text}),
        "nested": Row("node", reasons, labels, 0, [Row("inner", [text], {})]),
    }[where]
    records[at] = own
    row = Row("report", [], {}, 0, records)
    assert safe._nothing_to_escape(row) == (_walk(row) is row)  # never unsure: no walk needed to find it
    assert made_safe(row) == _walk(row)
    assert (made_safe(row) is row) == (_walk(row) is row)


def test_a_long_list_with_nothing_to_escape_is_found_so_at_once() -> None:
    reasons, labels = ["fits"], {"zone": "a"}
    records = [Row(f"node-{i}", reasons, labels, i, [], UNSET if i % 2 else "n") for i in range(safe.SHARED_RECORDS)]
    row = Row("report", [], {}, 0, records)
    assert safe._nothing_to_escape(row)
    assert made_safe(row) is row
