"""From `make serve`'s demo data, every demo account has something to do: the tester and each reviewer a run in
their queue (the third reviewer's decision included), the vendor a round in preview with its own runs, each
linked to its page, and the editor a round to publish."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

pytestmark = pytest.mark.django_db

PASSWORD = "demo-pass-2026"


@pytest.fixture
def demo():
    call_command("load_demo", stdout=io.StringIO())


def _admin(client, name: str) -> str:
    client.force_login(get_user_model().objects.get(username=f"{name}@example.org"))
    return client.get("/admin/runs/run/queue/").content.decode()


def test_the_tester_and_both_reviewers_find_runs_in_their_queues(client, demo):
    from runs.selectors import queue_counts

    users = {n: get_user_model().objects.get(username=f"{n}@example.org") for n in ("tester", "reviewer", "reviewer2")}
    assert queue_counts(users["tester"])["tester"] >= 1
    for name in ("reviewer", "reviewer2"):
        counts = queue_counts(users[name])
        assert counts["second"] >= 1 and counts["third"] >= 1, (name, counts)
    # What the tester sees in the admin: a run to review, with its link to the review form.
    html = _admin(client, "tester")
    assert "/admin/runs/verdict/add/?run=" in html and "role=tester" in html
    html = _admin(client, "reviewer")
    assert "role=second" in html and "role=third" in html


def test_the_vendor_previews_its_own_runs_each_linked_to_its_page(client, demo):
    assert client.post("/signin/", {"username": "vendor@example.org", "password": PASSWORD}).status_code == 302
    index = client.get("/preview/").content.decode()
    assert "Round 3" in index
    from leaderboard.models import Round

    rnd = Round.objects.get(benchmark__slug="artb", key="2026-r3")
    assert rnd.status == "preview"
    html = client.get(f"/preview/{rnd.benchmark.slug}/{rnd.key}/").content.decode()
    assert "Nimbus Agent" in html and "artb-r3-nimbus-flight-compare" in html
    assert "Atlas Operator" not in html  # another vendor's runs stay out of this preview
