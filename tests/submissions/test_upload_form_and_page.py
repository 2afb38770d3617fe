"""The two real τ²-bench submissions sent through the site's upload form, as their submitters and readers see
them: the form's answers (a clear error for what cannot be read, nothing stored), the submission's page (its
checks with reasons, each claim beside the recomputed figure, its runs through the run pages), and the board of
the community round filtered by tier. Figures counted by hand from the trajectories (tests/submissions/
test_real_submissions.py): ToolOrchestra airline 28/50 = 56.0%, retail 96/114 = 84.2105%; Button airline
38/50 = 76.0%. Both ran τ²-bench's first task set (2025-06-10): against it their claims agree; against today's
alone the task-version check fails and both are flagged."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Membership, Organization
from runs.models import Run
from snapshots.models import BoardSnapshot
from submissions.models import Submission
from tests.builders.review import make_user
from tests.builders.tau2 import BUTTON, TOOLORCHESTRA
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db


def _zip(folder: Path, top: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*.json")):
            z.write(path, f"{top}{path.relative_to(folder)}")
    return out.getvalue()


def _member(org_slug: str):
    user = make_user(f"member-of-{org_slug}", "Vendors")
    Membership.objects.create(user=user, organization=Organization.objects.get(slug=org_slug))
    return user


def _send(client, folder: Path, org: str, agent: str = "__new__", name: str = "", **kw):
    client.force_login(_member(org))
    upload = SimpleUploadedFile("submission.zip", _zip(folder, **kw), content_type="application/zip")
    data = {"agent": agent, "new_agent_name": name, "format": "tau2", "file": upload}
    return client.post("/b/tau2/submit/", data)


def _row(html: str, attr: str, name: str) -> str:
    at = html.index(f'{attr}="{name}"')
    return html[at : html.index("</tr>", at)]


def test_toolorchestra_through_the_form_lands_on_its_page_with_its_claims_checked(tau2_releases, client):
    response = _send(client, TOOLORCHESTRA, "nvidia", name="ToolOrchestra", top="toolorchestra/")
    sub = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/b/tau2/submissions/{sub.pk}/"
    # The agent is the one the team named, not its model (submission.json's model_name, Nemotron-Orchestrator-8B).
    assert (sub.agent.slug, sub.agent.name) == ("toolorchestra", "ToolOrchestra")
    # Through the form as through the command: its runs are filed under other tasks' ids (graded_as_filed).
    graded = next(c for c in sub.checks if c["name"] == "graded_as_filed")
    assert graded["passed"] is False and graded["detail"].startswith("airline: 43 of 50 runs were graded as another")
    html = client.get(response["Location"]).content.decode()
    # airline: 28/50 = 56.0 claimed 56.0; retail 96/114 = 84.2105 claimed 84.2 (within 0.05): both agree.
    airline = _row(html, "data-figure", "airline pass^1")
    assert ">56.0<" in airline and ">56.000<" in airline and ">agrees<" in airline
    retail = _row(html, "data-figure", "retail pass^1")
    assert ">84.2<" in retail and ">84.211<" in retail and ">agrees<" in retail
    telecom = _row(html, "data-figure", "telecom pass^1")
    assert ">88.6<" in telecom and ">not verifiable<" in telecom and ">agrees<" not in telecom
    # Every run is of the benchmark's own tasks in the version they ran; the declared user simulator (gpt-5) is
    # not the one the files ran: that check fails with both values, and the tier is flagged.
    versions = _row(html, "data-check", "task_versions")
    assert ">passed<" in versions and "task set 2025-06-10" in versions
    assert "Every run is of the benchmark&#x27;s own task, in a version the track takes" in versions
    models = _row(html, "data-check", "declared_models")
    assert ">failed<" in models and "declared user_simulator &#x27;gpt-5&#x27;" in models
    assert sub.tier == "flagged"
    assert "sdiao@nvidia.com" not in html  # the contact address is never published
    # 164 runs (50 airline + 114 retail), each linking to its run page with its transcript.
    assert "164 runs" in html
    run = Run.objects.filter(key__startswith=f"s{sub.pk}-airline-").order_by("key").first()
    assert f'href="/b/tau2/r/{sub.round.key}/runs/{run.key}/"' in html
    assert client.get(f"/b/tau2/r/{sub.round.key}/runs/{run.key}/").status_code == 200
    assert f'href="/b/tau2/search/?agent={sub.agent.slug}"' in html
    assert 'data-event="submitted"' in html


def test_the_community_board_filtered_by_tier(tau2, client):
    _send(client, TOOLORCHESTRA, "nvidia", name="ToolOrchestra")
    _send(client, BUTTON, "distyl-ai", name="Button")
    assert BoardSnapshot.objects.filter(stale=True).exists()
    compute_all()
    client.logout()
    board = client.get("/b/tau2/").content.decode()
    # Both flagged (task versions): the default view hides them, "Flagged" shows both.
    assert re.findall(r'<tr data-agent="([^"]+)"', board) == []
    flagged = client.get("/b/tau2/?tier=flagged").content.decode()
    assert len(re.findall(r'<tr data-agent="([^"]+)"', flagged)) == 2
    assert flagged.count(">flagged</a>") == 2


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        (b"not a zip", "not a readable zip"),
        (None, "submission.json"),
    ],
)
def test_what_cannot_be_read_is_refused_with_its_reason_and_nothing_stored(tau2, client, payload, problem):
    client.force_login(_member("nvidia"))
    if payload is None:  # a zip holding only a file that is not JSON
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("submission.json", "{not json")
        payload = out.getvalue()
    upload = SimpleUploadedFile("x.zip", payload, content_type="application/zip")
    response = client.post(
        "/b/tau2/submit/", {"agent": "__new__", "new_agent_name": "X", "format": "tau2", "file": upload}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Not accepted" in html and "Nothing was stored" in html and problem in html
    assert not Submission.objects.exists()


def test_toolorchestra_through_the_upload_api_is_checked_as_through_the_form(tau2_releases):
    # The third door: the upload API takes the same folder (as a zip) and answers with the same checks.
    from django.test import Client

    from leaderboard.api_keys import api_key_create

    nvidia = Organization.objects.get(slug="nvidia")
    _, key = api_key_create(name="NVIDIA", benchmark=tau2_releases, organization=nvidia)
    upload = SimpleUploadedFile("toolorchestra.zip", _zip(TOOLORCHESTRA), content_type="application/zip")
    answer = Client().post(
        "/api/benchmarks/tau2/submissions",
        {"archive": upload, "agent_name": "ToolOrchestra"},
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert answer.status_code == 201, answer.content
    checks = {c["name"]: c for c in answer.json()["checks"]}
    graded = checks["graded_as_filed"]
    assert graded["passed"] is False and graded["detail"].startswith("airline: 43 of 50 runs were graded as another")
    assert answer.json()["tier"] == "flagged"
