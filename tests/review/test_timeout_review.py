"""A run that ended at the time limit is reviewed like any run (seed 000 §5), and until it is the public board
shows it in review, as it shows an unreviewed completed run, never as a silent fail.

Seed 000 §2: "The run ends when the agent says it is done, asks a question that needs a real decision, or
after time_limit_min": reaching the limit ends the run, it does not judge it. §5: "The tester records an
outcome with a short note. A second reviewer scores the same run from the evidence alone, without seeing the
first outcome. If they disagree, a third reviewer decides." §4: "Untested tasks are left out rather than
counted as 0".

The round (published, imported as a bundle): agent Kit on two core tasks.
- flights (dimension planning): ended at the 30-minute limit, no verdict, no outcome label;
- email (dimension email): completed, tester and second reviewer both said pass -> pass, 2 points.

Before any verdict on the timeout (§4 score = points / (2 x tested) x 10):
    tested 1 of 2 (email only; flights in review), points 2, overall 2 / (2 x 1) x 10 = 10.0.
Read as a fail it would be tested 2 of 2, points 2 + 0, overall 2 / (2 x 2) x 10 = 5.0.
After the tester says partial, the second reviewer fail (they disagree: 1 point against 0) and the third
reviewer partial (§3: partial 1 point):
    tested 2 of 2, points 2 + 1 = 3, overall 3 / (2 x 2) x 10 = 7.5.
"""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from bundles.importer import bundle_import
from runs.models import Run
from tests.builders.review import make_user
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

BENCH = "tob"
TESTER_NOTE = "Tester: hotel booked, flights never searched before the limit"


def timeout_bundle() -> dict:
    return {
        "benchmark": {
            "slug": BENCH,
            "name": "Timeout outcomes",
            "methodology": "outcomes",
            "params": {"preview_hours": 0},  # published as imported, without a vendor window
        },
        "agents": [{"slug": "kit", "name": "Kit", "primary_language": "en"}],
        "tasks": [
            {"key": "flights", "title": "Flights", "version": "1.0", "kind": "core", "dimensions": ["planning"]},
            {"key": "email", "title": "Email", "version": "1.0", "kind": "core", "dimensions": ["email"]},
        ],
        "rounds": [
            {
                "key": "r1",
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-02-01T12:00:00Z",
                "entries": [{"agent": "kit"}],
            }
        ],
        "runs": [
            {
                "id": "kit-flights",
                "round": "r1",
                "agent": "kit",
                "task": "flights",
                "status": "timeout",
                "wall_seconds": 1800.0,
            },
            {
                "id": "kit-email",
                "round": "r1",
                "agent": "kit",
                "task": "email",
                "status": "completed",
                "outcome": "pass",
                "verdicts": [
                    {"role": "tester", "outcome": "pass", "note": "sent"},
                    {"role": "second", "outcome": "pass", "note": "sent"},
                ],
            },
        ],
    }


@pytest.fixture
def people():
    return {
        "tester": make_user("tess", "Testers"),
        "second": make_user("sam", "Reviewers"),
        "third": make_user("thea", "Reviewers"),
    }


@pytest.fixture
def world(people):
    bundle_import(doc=timeout_bundle())
    compute_all()
    return {**people, "run": Run.objects.get(key="kit-flights")}


def kit_row(client) -> str:
    html = client.get(f"/b/{BENCH}/").content.decode()
    found = re.search(r'<tr data-agent="kit".*?</tr>', html, re.S)
    assert found, "no row for Kit on the board"
    return re.sub(r"\s+", " ", found.group(0))


def overall(row: str) -> str:
    found = re.search(r'title="\d+ points over \d+ tested tasks"> <a [^>]*>([^<]+)</a>', row)
    assert found, row
    return found.group(1)


def queue(client, user) -> dict[str, tuple[str, str | None]]:
    """The reviewers' queue page as `user` sees it: run key -> ("Waiting for" text, the review link)."""
    client.force_login(user)
    html = client.get("/admin/runs/run/queue/").content.decode()
    rows = re.findall(r'<tr class="row\d" data-run="([^"]+)">(.*?)</tr>', html, re.S)
    out = {}
    for key, body in rows:
        link = re.search(r'<a class="button" href="([^"]+)">', body)
        out[key] = (re.findall(r"<td>([^<]*)</td>", body)[-1], unescape(link.group(1)) if link else None)
    return out


def review_from_queue(client, user, key: str, outcome: str, note: str = "") -> None:
    """`user` opens their queue, follows the run's review link and records a verdict on its form."""
    waiting, link = queue(client, user).get(key, ("", None))
    assert link, f"{key} is not in {user.username}'s queue"
    assert client.get(link).status_code == 200
    role = parse_qs(urlsplit(link).query)["role"][0]
    run = Run.objects.get(key=key)
    response = client.post(
        link,
        {"run": run.pk, "role": role, "outcome": outcome, "note": note, "reason": "Timeout run reviewed (000 §5)."},
    )
    assert response.status_code == 302, response.content.decode()[:2000]


def test_it_lists_an_unreviewed_timeout_run_in_the_testers_queue(client, world):
    mine = queue(client, world["tester"])
    assert mine["kit-flights"] == ("tester", f"/admin/runs/verdict/add/?run={world['run'].pk}&role=tester")
    assert "kit-email" not in mine  # decided: both verdicts agree


def test_the_board_shows_an_unreviewed_timeout_as_in_review_not_as_a_fail(client, world):
    row = kit_row(client)
    # 2 points over 1 tested task: 2 / (2 x 1) x 10 = 10.0 (a fail would make it 2 / (2 x 2) x 10 = 5.0).
    assert 'title="2 points over 1 tested tasks"' in row
    assert overall(row) == "10.0"
    assert "tested 1 of 2" in row and "1 in review" in row
    run_page = client.get(f"/b/{BENCH}/r/r1/runs/kit-flights/").content.decode()
    assert "outcome: in review" in run_page and "outcome: fail" not in run_page


def test_the_timeout_gets_the_blind_double_review_and_the_board_counts_its_outcome(client, world):
    review_from_queue(client, world["tester"], "kit-flights", "partial", TESTER_NOTE)
    assert "kit-flights" not in queue(client, world["tester"])
    # The second reviewer is asked next, and their form shows nothing of the tester's verdict.
    waiting, link = queue(client, world["second"])["kit-flights"]
    assert waiting == "second review"
    form = client.get(link).content.decode()
    assert TESTER_NOTE not in form and "partial</" not in form
    compute_all()
    assert "1 in review" in kit_row(client)  # one verdict of two: still in review, still not counted

    review_from_queue(client, world["second"], "kit-flights", "fail")
    # partial (1 point) against fail (0 points): they disagree, the third reviewer decides.
    assert queue(client, world["third"])["kit-flights"][0] == "third decision"
    compute_all()
    assert "1 in review" in kit_row(client)

    review_from_queue(client, world["third"], "kit-flights", "partial")
    assert "kit-flights" not in queue(client, world["third"])
    compute_all()
    row = kit_row(client)
    # email pass 2 + flights partial 1 = 3 points over 2 tested tasks: 3 / (2 x 2) x 10 = 7.5.
    assert 'title="3 points over 2 tested tasks"' in row
    assert overall(row) == "7.5"
    assert "tested 2 of 2" in row and "in review" not in row
    run_page = client.get(f"/b/{BENCH}/r/r1/runs/kit-flights/").content.decode()
    assert "outcome: partial" in run_page
