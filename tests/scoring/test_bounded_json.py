"""The counting reader of uploaded JSON (scoring/bounded_json.py): what it counts of any document, cut into any
chunks, is what the document holds, strings with quotes, backslashes and brackets inside included; and each
limit refuses naming the file and the field."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.bounded_json import Budget, JsonRefused, JsonScan, loads

TEXT = st.text(alphabet=st.sampled_from('ab"\\[]{},:\n\u00e9\u4e2d '), max_size=12)
DOCS = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | TEXT,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5),
    max_leaves=40,
)


def _held(doc) -> tuple[int, int]:
    """(what the reader counts: each container once and each of its items after the first, by its comma; the
    deepest nesting)."""
    if isinstance(doc, list | dict):
        items = list(doc.values()) if isinstance(doc, dict) else doc
        inner = [_held(x) for x in items]
        return 1 + max(len(items) - 1, 0) + sum(v for v, _ in inner), 1 + max((d for _, d in inner), default=0)
    return 0, 0


@settings(max_examples=300, deadline=None)
@given(doc=DOCS, cuts=st.lists(st.integers(1, 7), min_size=1, max_size=40))
def test_counts_and_depth_are_the_documents_whatever_the_chunks(doc, cuts):
    data = json.dumps(doc, ensure_ascii=False).encode()
    scan = JsonScan("f.json", Budget(max_bytes=10**9, max_values=10**9, max_depth=10**6))
    at, i = 0, 0
    while at < len(data):
        size = cuts[i % len(cuts)]
        scan.feed(data[at : at + size])
        at, i = at + size, i + 1
    values, depth = _held(doc)
    assert scan.budget.values_used == values
    assert scan.depth == 0 and not scan.in_string
    deepest = Budget(max_bytes=10**9, max_depth=depth)
    loads("f.json", data, deepest)  # exactly as deep as allowed: read
    if depth:
        with pytest.raises(JsonRefused, match="nested deeper"):
            loads("f.json", data, Budget(max_bytes=10**9, max_depth=depth - 1))


def test_each_limit_names_the_file_and_the_field():
    doc = json.dumps({"a": [1, {"b": [[[[1]]]]}]}).encode()
    with pytest.raises(JsonRefused) as exc:
        loads("t.json", doc, Budget(max_bytes=100, max_depth=4))
    assert str(exc.value) == "t.json: a[1].b[0]: nested deeper than 4 levels"
    with pytest.raises(JsonRefused, match="^t.json: more than 3 values in the upload"):
        loads("t.json", b"[1,2,3,4]", Budget(max_bytes=100, max_values=3))
    with pytest.raises(JsonRefused, match="^t.json: the upload is over 5 bytes"):
        loads("t.json", b"[1,2,3,4]", Budget(max_bytes=5))
    with pytest.raises(JsonRefused, match=r"^t.json: a\[1\].b: contains a NUL"):
        loads("t.json", b'{"a": [1, {"b": "x\\u0000"}]}')
    # Several files share one upload's budget.
    budget = Budget(max_bytes=100, max_values=5)
    loads("one.json", b"[1,2,3]", budget)
    with pytest.raises(JsonRefused, match="^two.json: more than 5 values"):
        loads("two.json", b"[1,2,3]", budget)
