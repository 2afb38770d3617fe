"""A hypothesis fuzz pass over the vote endpoint: random form fields, keys and winners, posted by the
matchup's voter and by someone else. Never a 500; a vote is stored only for a valid winner on the voter's own
open matchup, and at most once.

The API is GET-only and fuzzed against its OpenAPI schema by tests/api/test_api_schemathesis.py; not here.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders.voting import build_world, make_user, matchup_for

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)  # NUL included
field_names = st.sampled_from(["winner", "csrfmiddlewaretoken", "key", "alias", "scope", "next", "a", "b"]) | text
winners = st.sampled_from(["a", "b", "tie", "A", "", "none", "1"]) | text | st.lists(text, max_size=3)


@pytest.fixture
def fuzz_world(db):
    w = build_world()
    return {"w": w, "owner": make_user("owner@example.com"), "other": make_user("other@example.com")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    winner=winners,
    extra=st.dictionaries(field_names, text | st.lists(text, max_size=3), max_size=5),
    key_kind=st.sampled_from(["own", "other", "junk"]),
    junk_key=text.filter(lambda s: s.strip(".") != ""),
    htmx=st.booleans(),
    as_other=st.booleans(),
)
def test_the_vote_endpoint_never_500s(client, fuzz_world, winner, extra, key_kind, junk_key, htmx, as_other):
    from voting.models import Vote

    w, owner, other = fuzz_world["w"], fuzz_world["owner"], fuzz_world["other"]
    mine = matchup_for(owner, w.runs[0], w.runs[4])  # runs of two different agents
    theirs = matchup_for(other, w.runs[0], w.runs[8])
    key = {"own": mine.key, "other": theirs.key, "junk": quote(junk_key, safe="")}[key_kind]
    voter = other if as_other else owner
    client.force_login(voter)
    data = {**extra, "winner": winner}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    before = Vote.objects.count()
    response = client.post(f"/vote/m/{key}/", data, **headers)
    assert response.status_code < 500
    stored = Vote.objects.count() - before
    valid_winner = (winner[-1] if isinstance(winner, list) and winner else winner) in ("a", "b", "tie")
    own_key = (key_kind == "own" and not as_other) or (key_kind == "other" and as_other)
    if stored:
        assert stored == 1 and valid_winner and own_key
        assert response.status_code in (200, 302)
    else:
        assert 400 <= response.status_code < 500 or not (valid_winner and own_key)
        assert response.content.strip() or response.status_code == 405
    again = client.post(f"/vote/m/{key}/", {"winner": "a"}, **headers)
    assert again.status_code < 500
    if stored:
        assert Vote.objects.count() - before == 1  # a replay never adds a second vote
    assert Vote.objects.count() - before <= (1 if own_key else 0)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    scope=text,
    alias=text.filter(lambda s: s.strip(".") != "").map(lambda s: quote(s, safe="")),
    index=st.integers(0, 10**30),
)
def test_the_vote_screen_and_previews_never_500(client, fuzz_world, scope, alias, index):
    client.force_login(fuzz_world["other"])
    assert client.get("/vote/", {"scope": scope}).status_code < 500
    assert client.get(f"/vote/p/{alias}/live/").status_code < 500
    assert client.get(f"/vote/p/{alias}/{index}/").status_code < 500
    assert client.get(f"/vote/r/{alias}/").status_code < 500
