"""Submissions sent at once and too often, from outside: three first submissions of one new agent released
together through the API of a live server are each answered (none 500; one stays live, the others superseded),
and the upload form and the API are limited per account (or key) and per organization."""

from __future__ import annotations

import urllib.error
import urllib.request
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from leaderboard.models import Agent, Membership
from submissions.models import Submission
from tests.builders import tau2 as t
from tests.builders.review import make_user
from tests.security.test_anticheat_concurrency import at_once

URL = "/api/benchmarks/mini-tau/submissions"


def _multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = b""
    for name, value in fields.items():
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    for name, (filename, data) in files.items():
        out += (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                "Content-Type: application/zip\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
    return out + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _post(base: str, key: str, zipped: bytes) -> tuple[int, str]:
    body, kind = _multipart({"agent": "new-agent"}, {"archive": ("s.zip", zipped)})
    req = urllib.request.Request(
        base + URL, data=body, method="POST", headers={"Authorization": f"Bearer {key}", "Content-Type": kind}
    )
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, resp.read().decode()[:200]
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")[:300]


@pytest.mark.postgres(reason="concurrent transactions")
def test_three_first_submissions_of_one_new_agent_at_once_are_each_answered(live_server, transactional_db):
    w = t.mini_world()
    zipped = t.zipped(t.files())
    results = at_once([lambda: _post(live_server.url, w.key_a, zipped) for _ in range(3)])
    assert [status for status, _ in results] == [201, 201, 201], results
    assert Agent.objects.filter(slug="new-agent").count() == 1
    statuses = sorted(Submission.objects.values_list("status", flat=True))
    assert statuses == ["live", "superseded", "superseded"]


def _form(client, bench: str = "mini-tau"):
    upload = SimpleUploadedFile("s.zip", t.zipped(t.files()), content_type="application/zip")
    data = {"agent": "__new__", "new_agent_name": "Form agent", "format": "tau2", "file": upload}
    return client.post(f"/b/{bench}/submit/", data)


@pytest.mark.django_db
def test_the_upload_form_is_limited_per_account_and_per_organization(settings):
    settings.SUBMISSION_RATE_LIMIT = 2
    settings.SUBMISSION_ORG_RATE_LIMIT = 3
    w = t.mini_world()
    members = []
    for name in ("ann", "bea"):
        user = make_user(name, "Vendors")
        Membership.objects.create(user=user, organization=w.org_a)
        client = Client()
        client.force_login(user)
        members.append(client)
    ann, bea = members
    assert [_form(ann).status_code for _ in range(3)] == [302, 302, 429]
    refused = _form(ann)
    assert refused.status_code == 429 and "Too many submissions from your account" in refused.content.decode()
    # Ann's two and Bea's first make the organization's three in the window; Bea's second is one too many.
    assert _form(bea).status_code == 302
    refused = _form(bea)
    assert refused.status_code == 429 and "Too many submissions from Org A" in refused.content.decode()
    assert Submission.objects.count() == 3


@pytest.mark.django_db
def test_the_api_is_limited_per_key_and_per_organization(settings):
    settings.SUBMISSION_RATE_LIMIT = 2
    settings.SUBMISSION_ORG_RATE_LIMIT = 3
    w = t.mini_world()
    from leaderboard.api_keys import api_key_create

    _, second_key = api_key_create(name="A2", benchmark=w.bench, organization=w.org_a)

    def send(key: str):
        upload = SimpleUploadedFile("s.zip", t.zipped(t.files()), content_type="application/zip")
        return Client().post(URL, {"archive": upload, "agent": "a-agent"}, HTTP_AUTHORIZATION=f"Bearer {key}")

    assert [send(w.key_a).status_code for _ in range(3)] == [201, 201, 429]
    answer = send(second_key)
    assert answer.status_code == 201
    answer = send(second_key)
    assert answer.status_code == 429 and "Org A" in answer.json()["detail"] and int(answer["Retry-After"]) >= 1
    # Another organization's key is not held back by Org A's.
    upload = SimpleUploadedFile("s.zip", t.zipped(t.files()), content_type="application/zip")
    other = Client().post(URL, {"archive": upload, "agent": "b-agent"}, HTTP_AUTHORIZATION=f"Bearer {w.key_b}")
    assert other.status_code == 201
