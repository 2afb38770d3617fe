"""A board says "an older round" of a published round that a newer published round follows, and of no other:
not of a benchmark's only round, nor of a round not yet published that staff look at before the public."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.builders.site import checks_bundle

pytestmark = pytest.mark.django_db

OLDER = "<strong>an older round</strong>"


def test_only_a_published_round_with_a_newer_one_is_called_older(load, client):
    load(checks_bundle(round_key="r1"), checks_bundle(round_key="r2"))
    # r1 and r2 both published, r2 the newer: r1 is the older round, r2 (also the board's default) is not.
    assert OLDER in client.get("/b/qbench/r/r1/").content.decode()
    assert OLDER not in client.get("/b/qbench/r/r2/").content.decode()
    assert OLDER not in client.get("/b/qbench/").content.decode()


@pytest.mark.parametrize("status", ["draft", "preview"])
def test_a_benchmarks_only_round_not_yet_published_is_no_older_round(load, client, status):
    load(checks_bundle(round_key="r1", status=status))
    client.force_login(User.objects.create_user("edna", is_staff=True))
    html = client.get("/b/qbench/r/r1/").content.decode()
    assert "Not published" in html and OLDER not in html
