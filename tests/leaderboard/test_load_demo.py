import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_demo_accounts_sign_in_on_the_site_and_in_the_admin(client):
    call_command("load_demo", stdout=io.StringIO())
    response = client.post("/signin/", {"username": "vendor@example.org", "password": "demo-pass-2026"})
    assert response.status_code == 302 and "_auth_user_id" in client.session
    client.logout()
    response = client.post(
        "/admin/login/", {"username": "editor@example.org", "password": "demo-pass-2026", "next": "/admin/"}
    )
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200
    # The demo leaves one publication for the editor to finish (#32.14): the Inspect quiz, a benchmark without
    # a vendor window, has a draft round; "Publish" in the admin publishes it; ARTB keeps its 48 hours.
    from leaderboard.models import Benchmark, Round

    assert Benchmark.objects.get(slug="artb").preview_hours == 48
    assert Benchmark.objects.get(slug="inspect-quiz").preview_hours == 0
    draft = Round.objects.get(benchmark__slug="inspect-quiz", key="2026-r2")
    assert draft.status == "draft"
    asked = client.post("/admin/leaderboard/round/", {"action": "publish", "_selected_action": [draft.pk]})
    assert "Publish: are you sure?" in asked.content.decode() and Round.objects.get(pk=draft.pk).status == "draft"
    response = client.post(
        "/admin/leaderboard/round/", {"action": "publish", "_selected_action": [draft.pk], "post": "yes"}, follow=True
    )
    assert "Inspect quiz 2026 round 2 is published." in response.content.decode()
    assert Round.objects.get(pk=draft.pk).status == "published"
