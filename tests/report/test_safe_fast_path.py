"""made_safe finds a report with nothing to escape in its JSON at once, and gives exactly what the
string-by-string walk gives otherwise (issue 39: the walk over a 5,000-node report took a second)."""

from __future__ import annotations

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from podwhy.errors import ESCAPES
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


rows = st.deferred(
    lambda: st.builds(
        Row,
        texts,
        st.lists(texts, max_size=3),
        st.dictionaries(texts, texts, max_size=3),
        st.integers(),
        st.lists(rows, max_size=2),
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
