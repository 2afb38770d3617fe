"""Staff see a round's pages before it is published (its board, its agents' pages, its runs' pages, their JSON,
its downloads); those pages keep the review blind (seed 000 §5: the second reviewer scores "without seeing the
first outcome") and the round's parameter values private (000: "kept private until results are published"),
and everyone else gets "not found" from each of them."""

import re

import pytest

from recompute.boards import snapshot_recompute
from runs.services import round_enter_preview, verdict_record
from snapshots.models import BoardSnapshot
from tests.builders.review import BENCH, ROUND, SECRET_CITY, TESTER_NOTE, make_people, make_user, make_world

pytestmark = pytest.mark.django_db

PAGES = [
    f"/b/{BENCH}/r/{ROUND}/",
    f"/b/{BENCH}/r/{ROUND}/agents/acme-agent/",
    f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/",
    f"/b/{BENCH}/r/{ROUND}/runs/acme-trip.json",
    f"/b/{BENCH}/r/{ROUND}/tasks/",
    f"/b/{BENCH}/r/{ROUND}/tasks.csv",
    f"/b/{BENCH}/r/{ROUND}/board.csv",
    f"/b/{BENCH}/r/{ROUND}/changelog/",
    f"/b/{BENCH}/tradeoffs/?round={ROUND}",
    f"/b/{BENCH}/compare/?round={ROUND}&a=acme-agent&b=other-agent",
]


@pytest.fixture
def w():
    w = {**make_world(), **make_people()}
    w["round"] = round_enter_preview(round=w["round"], by=w["editor"])
    return w


def _recompute():
    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)


def _read(client, user, path: str) -> tuple[int, str]:
    client.force_login(user)
    answer = client.get(path)
    text = answer.content.decode()
    return answer.status_code, re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"|"X-CSRFToken": "[^"]*"', "", text)


def test_staff_read_every_page_of_the_round_and_nobody_else_does(client, w):
    _recompute()
    vendor = make_user("vic", "Vendors", org="Acme")  # the vendor of acme-agent: its own run page only
    for path in PAGES:
        for who in ("editor", "tester", "second"):
            assert _read(client, w[who], path)[0] == 200, (who, path)
        client.logout()
        assert client.get(path).status_code == 404, path
        expected = 200 if "/runs/acme-trip" in path else 404
        assert _read(client, vendor, path)[0] == expected, path


def test_the_second_reviewer_reads_nothing_of_the_testers_verdict_on_these_pages(client, w):
    _recompute()
    before = {path: _read(client, w["second"], path) for path in PAGES}
    verdict_record(run=w["acme-trip"], role="tester", reviewer=w["tester"], outcome="fail", note=TESTER_NOTE)
    _recompute()
    for path in PAGES:
        status, after = _read(client, w["second"], path)
        assert status == 200 and TESTER_NOTE not in after, path
        assert after == before[path][1], path
    # Nor any page the round's parameter values: they stay private until publication, from staff's pages too.
    for path in PAGES:
        assert SECRET_CITY not in _read(client, w["editor"], path)[1], path
