"""Agents' names on a board, from outside: the name a team gives its agent is the name the board shows, and no
organization's submission (the upload form or the API, as its member or with its key) takes a name already on
the board, whatever its case, spacing or look-alike letters; a submitted agent's row says which organization
sent it."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from leaderboard.models import Agent, Membership
from runs.models import Run
from submissions.models import Submission
from tests.builders import tau2 as t
from tests.builders.review import make_user
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db
URL = "/api/benchmarks/mini-tau/submissions"


def _post(key: str, data: dict):
    return Client().post(URL, data, HTTP_AUTHORIZATION=f"Bearer {key}")


def _archive(files: dict[str, bytes] | None = None):
    return SimpleUploadedFile("submission.zip", t.zipped(files or t.files()), content_type="application/zip")


def _named(name: str) -> dict[str, bytes]:
    declared = {**t.DECLARED, "model_name": name}
    return t.files(declared)


def _member_of(org, client: Client) -> None:
    user = make_user(f"member-{org.slug}")
    Membership.objects.create(user=user, organization=org)
    client.force_login(user)


def _form(client: Client, name: str, files: dict[str, bytes] | None = None):
    upload = SimpleUploadedFile("s.zip", t.zipped(files or t.files()), content_type="application/zip")
    data = {"agent": "__new__", "new_agent_name": name, "format": "tau2", "file": upload}
    return client.post("/b/mini-tau/submit/", data)


def test_the_name_a_team_gives_is_the_agents_name_on_the_board(client):
    w = t.mini_world()
    _member_of(w.org_a, client)
    # submission.json's model_name is "Mini Agent"; the team names its agent "Mini Orchestra".
    response = _form(client, "Mini Orchestra")
    assert response.status_code == 302, response.content.decode()[-2000:]
    agent = Submission.objects.get().agent
    assert (agent.slug, agent.name, agent.organization) == ("mini-orchestra", "Mini Orchestra", w.org_a)
    compute_all()
    html = Client().get("/b/mini-tau/r/community/?tier=all").content.decode()
    row = re.search(r'<tr data-agent="mini-orchestra".*?</tr>', html, re.S).group(0)
    assert re.search(r'<a href="/agents/mini-orchestra/">Mini Orchestra</a>', row)
    # Under the name, who sent it, then the model it declared.
    assert '<span class="sub">by Org A · Mini Agent</span>' in row


def test_the_api_takes_the_agents_name():
    w = t.mini_world()
    answer = _post(w.key_a, {"archive": _archive(), "agent_name": "Mini Orchestra"})
    assert answer.status_code == 201, answer.content
    assert answer.json()["agent"] == "mini-orchestra"
    assert Agent.objects.get(slug="mini-orchestra").name == "Mini Orchestra"


@pytest.mark.parametrize(
    "lookalike",
    [
        "Mini Agent",  # the same
        "MINI AGENT",  # case
        "Mini   Agent ",  # spacing
        "Mini \u0410gent",  # a Cyrillic "А"
        "M\u0456ni Agent",  # a Cyrillic "і"
        "Mini Ag\u0435nt",  # a Cyrillic "е"
        "Min\u0131 Agent",  # a dotless "ı"
    ],
)
def test_another_organization_cannot_take_a_name_on_the_board_through_the_api(lookalike):
    w = t.mini_world()
    assert _post(w.key_a, {"archive": _archive(), "agent": "a-agent"}).status_code == 201  # "Mini Agent", Org A's
    runs = Run.objects.count()
    # Org B's key, a new agent of its own whose name (from model_name) looks like Org A's.
    answer = _post(w.key_b, {"archive": _archive(_named(lookalike)), "agent": "b-clone"})
    assert answer.status_code == 422, answer.content
    (problem,) = answer.json()["problems"]
    assert "Mini Agent" in problem and "Org A" in problem and "choose another" in problem
    assert Submission.objects.count() == 1 and Run.objects.count() == runs
    assert not Agent.objects.filter(slug="b-clone").exists()


def test_another_organization_cannot_take_a_name_on_the_board_through_the_form(client):
    w = t.mini_world()
    assert _post(w.key_a, {"archive": _archive(), "agent": "a-agent"}).status_code == 201
    _member_of(w.org_b, client)
    response = _form(client, "M\u0456ni Agent")  # a Cyrillic "і": its slug ("mni-agent") is new
    assert response.status_code == 400
    assert "Mini Agent" in response.content.decode() and "choose another" in response.content.decode()
    assert Submission.objects.count() == 1 and not Agent.objects.filter(slug="mni-agent").exists()


def test_nor_the_name_of_the_benchmark_teams_agent(client):
    w = t.mini_world()  # the team's "Team agent" is on round r1 of this benchmark
    answer = _post(w.key_b, {"archive": _archive(_named("TEAM AGENT")), "agent": "b-team"})
    assert answer.status_code == 422 and "Team agent" in answer.json()["problems"][0]
    assert not Submission.objects.exists()


def test_a_team_resubmits_its_own_agent_under_its_name():
    w = t.mini_world()
    assert _post(w.key_a, {"archive": _archive(), "agent": "a-agent"}).status_code == 201
    again = _post(w.key_a, {"archive": _archive(), "agent": "a-agent"})
    assert again.status_code == 201, again.content
    assert Submission.objects.filter(status="live").count() == 1


def test_an_editor_cannot_rename_an_agent_to_a_name_on_its_board(client):
    from bundles.importer import bundle_import
    from tests.builders.site import scored_bundle

    bundle_import(doc=scored_bundle())  # sbench's published round r1: agents Full, Under and Solo
    client.force_login(make_user("edna", "Editors"))
    under = Agent.objects.get(slug="under")
    url = f"/admin/leaderboard/agent/{under.pk}/change/"
    form = {"slug": "under", "primary_language": "en", "languages": "[]", "change_reason": "Its maker renamed it"}
    refused = client.post(url, {**form, "name": "FU\u217cL"})  # "FUⅼL": a small roman numeral fifty for an "L"
    assert refused.status_code == 200 and "is taken on this board by the benchmark team&#x27;s agent" in (
        refused.content.decode()
    )
    assert Agent.objects.get(slug="under").name == "Under"
    assert client.post(url, {**form, "name": "Under Two"}).status_code == 302
    assert Agent.objects.get(slug="under").name == "Under Two"
