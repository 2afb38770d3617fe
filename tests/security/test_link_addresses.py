"""Addresses from outside that would run on the site: an evidence link or a preview address with a scheme other
than http or https (`javascript:`, `data:`, ...) is refused at import, by the upload API and by
`manage.py import_bundle`, with the field it is in, and nothing is stored; a row that holds one anyway is never
rendered as a link or framed."""

from __future__ import annotations

import json

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, Round
from runs.models import Evidence, Run
from tests.builders.site import scored_bundle
from tests.builders.voting import build_world, make_user, matchup_for
from voting.draw.rules import live_kind

pytestmark = pytest.mark.django_db

BAD = [
    "javascript:alert(1)",
    "JavaScript:alert(document.cookie)",
    " javascript:alert(1)",  # a browser drops the space
    "java\tscript:alert(1)",  # and the tab
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "ftp://files.example.org/shot.png",
    "//evil.example/x",  # no scheme: another host all the same
    "/\\evil.example/x",  # a browser reads the backslash as a slash
    "https:alert(1)",  # https, but no host
]
FIELDS = ["evidence", "preview"]


def _draft(field: str, address: str) -> tuple[dict, str]:
    """A draft bundle whose first run carries `address` in `field`, and the problem's path."""
    doc = scored_bundle("sbench")
    doc["rounds"][0].update(status="draft", published_at=None)
    if field == "evidence":
        doc["runs"][0]["evidence"] = [{"kind": "screenshot", "url": address, "caption": "home"}]
        return doc, "runs[0].evidence[0].url"
    doc["runs"][0]["preview_url"] = address
    return doc, "runs[0].preview_url"


def _nothing_stored():
    assert Run.objects.count() == 0 and Evidence.objects.count() == 0 and Round.objects.count() == 0


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("address", BAD)
def test_it_refuses_an_upload_with_an_address_that_is_not_http_or_https(field, address):
    bench = Benchmark.objects.create(slug="sbench", name="S", methodology="scored")
    key = api_key_create(name="CI", benchmark=bench)[1]
    doc, where = _draft(field, address)
    response = Client().post(
        "/api/benchmarks/sbench/bundle",
        json.dumps(doc),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert response.status_code == 422, response.content
    problems = response.json()["problems"]
    assert any(p.startswith(f"{where}: ") and "not an http or https address" in p for p in problems), problems
    _nothing_stored()


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize(
    "address", ["javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="]
)
def test_it_refuses_the_import_command_a_bundle_with_a_javascript_or_data_address(tmp_path, capsys, field, address):
    doc, where = _draft(field, address)
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CommandError):
        call_command("import_bundle", str(path))
    err = capsys.readouterr().err
    assert f"{where}: " in err and "not an http or https address" in err
    _nothing_stored()


def test_it_still_imports_web_addresses_and_the_site_paths_the_download_gives():
    doc, _ = _draft("evidence", "https://shots.example.org/home.png")
    doc["runs"][0]["evidence"].append({"kind": "recording", "url": "http://videos.example.org/1"})
    doc["runs"][0]["evidence"].append({"kind": "log", "url": "/media/evidence/bundles/0123abcd.txt"})
    doc["runs"][0]["preview_url"] = "https://preview.example.net/9f1c"
    bundle_import(doc=doc)
    assert Evidence.objects.count() == 3
    assert Run.objects.get(key=doc["runs"][0]["id"]).preview_url == "https://preview.example.net/9f1c"


def test_it_never_links_nor_frames_an_address_stored_around_the_import():
    # Rows written before imports checked the scheme, or by a bulk update: the page shows the text, no link.
    world = build_world(tasks=("todo-app",), trials=1)
    run = world.runs[0]
    Evidence.objects.create(run=run, kind="log", url="javascript:alert(document.cookie)", caption="the log")
    Evidence.objects.create(run=run, kind="recording", url="data:text/html,<script>alert(1)</script>")
    ok = Evidence(run=run, kind="screenshot", caption="stored")
    ok.file.save("home.png", ContentFile(b"\x89PNG\r\n\x1a\n"), save=True)
    page = Client().get(run.get_absolute_url()).content.decode()
    assert "the log" in page
    assert 'href="javascript:' not in page.lower() and 'href="data:' not in page.lower()
    assert f'href="{ok.file.url}"' in page  # a stored file is still a link

    Run.objects.filter(pk=run.pk).update(preview_url="javascript:alert(1)")
    run.refresh_from_db()
    assert live_kind(run) == ""  # the run has no app build: its frame would have shown the address
    voter = make_user("voter@example.com")
    matchup = matchup_for(voter, run, world.runs[1])
    client = Client()
    client.force_login(voter)
    assert client.get(f"/vote/p/{matchup.alias_a}/live/").status_code == 404
