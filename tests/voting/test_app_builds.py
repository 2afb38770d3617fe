"""App builds: what is refused when a build comes in, and how a build is served to the vote screen's frame."""

from __future__ import annotations

import io
import re
import stat
import zipfile
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from runs.models import AppBuild
from runs.services.app_builds import AppBuildError, app_build_from_folder, app_build_from_zip
from voting.models import Matchup

pytestmark = pytest.mark.django_db

INDEX = b"<!doctype html><html><head><link rel='stylesheet' href='css/app.css'></head><body>hi</body></html>"


def _zip(members: dict[str, bytes], *, symlink: str | None = None) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, "/etc/passwd")
    buf.seek(0)
    return buf


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def built(world, media):
    """Every published run of the world with its own small app build."""
    for run in world.runs:
        app_build_from_zip(
            run=run,
            fileobj=_zip({"index.html": INDEX, "css/app.css": b"body{color:red}", "js/app.js": b"1;"}),
        )
    return world


# --- coming in ----------------------------------------------------------------------------------------------


def test_a_zip_build_is_stored_under_a_name_that_says_nothing(world, media):
    run = world.runs[0]
    build = app_build_from_zip(run=run, fileobj=_zip({"index.html": INDEX, "css/app.css": b"x"}))
    assert (build.files, build.size) == (2, len(INDEX) + 1)
    assert build.directory.startswith("app-builds/") and run.key not in build.directory
    assert (media / build.directory / "css" / "app.css").read_bytes() == b"x"


def test_a_build_in_one_top_folder_is_taken_from_inside_it(world, media):
    build = app_build_from_zip(run=world.runs[0], fileobj=_zip({"dist/index.html": INDEX, "dist/a.js": b"1"}))
    assert (media / build.directory / "index.html").exists()


@pytest.mark.parametrize(
    ("members", "symlink", "message"),
    [
        ({"index.html": INDEX, "../evil.js": b"1"}, None, "'..'"),
        ({"index.html": INDEX, "a/../../evil.js": b"1"}, None, "'..'"),
        ({"index.html": INDEX, "/etc/evil.js": b"1"}, None, "not a relative path"),
        ({"index.html": INDEX, "a\\..\\evil.js": b"1"}, None, "not a relative path"),
        ({"index.html": INDEX}, "link.js", "symlink"),
        ({"app.js": b"1"}, None, "no index.html"),
        ({"index.html": b"\x89PNG\r\n\x1a\n\x00\x00"}, None, "not HTML"),
        ({"index.html": b"just some text"}, None, "not HTML"),
        ({"index.html": INDEX, "big.bin": b"0" * 5_000_001}, None, "over 5000000 bytes"),
    ],
)
def test_bad_builds_are_refused_and_write_nothing(world, media, members, symlink, message):
    with pytest.raises(AppBuildError, match=re.escape(message)):
        app_build_from_zip(run=world.runs[0], fileobj=_zip(members, symlink=symlink))
    assert not AppBuild.objects.exists()
    assert not (media / "app-builds").exists() or not any((media / "app-builds").iterdir())


def test_too_many_files_are_refused(world, media, settings):
    settings.APP_BUILD_MAX_FILES = 3
    with pytest.raises(AppBuildError, match="more than 3 files"):
        app_build_from_zip(run=world.runs[0], fileobj=_zip({"index.html": INDEX, **{f"{i}.js": b"" for i in range(3)}}))


def test_a_folder_with_a_symlink_is_refused(world, media, tmp_path):
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "index.html").write_bytes(INDEX)
    (folder / "secret").symlink_to("/etc/hostname")
    with pytest.raises(AppBuildError, match="symlink"):
        app_build_from_folder(run=world.runs[0], folder=folder)
    assert not AppBuild.objects.exists()


def test_a_new_build_replaces_the_old_one_and_an_identical_one_changes_nothing(world, media):
    run = world.runs[0]
    first = app_build_from_zip(run=run, fileobj=_zip({"index.html": INDEX}))
    assert app_build_from_zip(run=run, fileobj=_zip({"index.html": INDEX})).pk == first.pk
    second = app_build_from_zip(run=run, fileobj=_zip({"index.html": INDEX + b"<p>v2</p>"}))
    assert second.pk != first.pk and AppBuild.objects.get(run=run) == second


# --- served -------------------------------------------------------------------------------------------------


def _frame_src(html: str, letter: str) -> str:
    match = re.search(rf'<iframe[^>]*src="([^"]+)"[^>]*title="App {letter}, live"[^>]*>', html)
    assert match, html
    return match.group(1)


def test_the_vote_screen_frames_both_builds_sandboxed(voter_client, built):
    html = voter_client.get(reverse("vote")).content.decode()
    frames = re.findall(r"<iframe[^>]*>", html)
    assert len(frames) == 2
    for frame in frames:
        assert 'sandbox="allow-scripts allow-forms"' in frame and "allow-same-origin" not in frame
    matchup = Matchup.objects.get()
    assert _frame_src(html, "A") == reverse("vote_preview_app", args=[matchup.alias_a])
    assert _frame_src(html, "B") == reverse("vote_preview_app", args=[matchup.alias_b])


def test_a_build_is_served_sandboxed_with_no_cookie_and_no_name(client, voter_client, built):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    # The app's own requests carry no session (they are cross-site): the alias alone opens it.
    for c in (voter_client, client):
        page = c.get(reverse("vote_preview_app", args=[matchup.alias_a]))
        asset = c.get(reverse("vote_preview_app_file", args=[matchup.alias_a, "css/app.css"]))
        assert page.status_code == 200 and asset.status_code == 200
        for r in (page, asset):
            csp = r["Content-Security-Policy"]
            assert "sandbox allow-scripts allow-forms" in csp and "allow-same-origin" not in csp
            assert "Set-Cookie" not in r.headers and not r.cookies
            assert r["Referrer-Policy"] == "no-referrer" and r["Cache-Control"].startswith("private")
            sent = "\n".join(f"{k}: {v}" for k, v in r.headers.items()).lower()
            for needle in built.identifying_strings(matchup.run_a):
                assert needle.lower() not in sent, needle
        assert page["Content-Type"] == "text/html; charset=utf-8"
        assert page.content.startswith(b"<!doctype html>\n<script>")  # the storage shim, after the doctype
        assert page.content.endswith(INDEX[len(b"<!doctype html>") :])
        assert asset["Content-Type"] == "text/css; charset=utf-8"
        assert b"".join(asset.streaming_content) == b"body{color:red}"


@pytest.mark.parametrize("path", ["../index.html", "css/../../x", "%2e%2e/%2e%2e/settings.py", "css", "nope.js"])
def test_paths_out_of_the_build_or_missing_are_404(voter_client, built, path, media):
    (media / "outside.txt").write_text("secret")
    voter_client.get(reverse("vote"))
    alias = Matchup.objects.get().alias_a
    response = voter_client.get(f"/vote/app/{alias}/{path}")
    assert response.status_code == 404
    assert b"secret" not in response.content


def test_an_expired_or_forged_alias_serves_nothing(voter_client, built):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    assert voter_client.get(reverse("vote_preview_app", args=["forged-alias-123"])).status_code == 404
    past = timezone.now() - timedelta(hours=1)
    Matchup.objects.filter(pk=matchup.pk).update(created_at=past, expires_at=past + timedelta(seconds=1))
    assert voter_client.get(reverse("vote_preview_app", args=[matchup.alias_a])).status_code == 404


def test_a_matchup_key_does_not_open_an_app(voter_client, built):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    assert voter_client.get(reverse("vote_preview_app", args=[matchup.key])).status_code == 404


def test_the_two_aliases_of_a_pair_are_unrelated_to_the_runs(voter, built):
    # Two voters shown the same pair of runs get unrelated aliases: an alias says nothing about the app behind it.
    from tests.builders.voting import make_user
    from voting.services import matchup_draw

    scope = f"{built.benchmark.slug}/{built.tasks[0].key}"
    first = matchup_draw(voter=voter, scope=scope)
    other = make_user("other@example.com")
    for _ in range(600):
        latest = matchup_draw(voter=other, scope=scope)
        if {latest.run_a_id, latest.run_b_id} == {first.run_a_id, first.run_b_id}:
            break
    assert {latest.run_a_id, latest.run_b_id} == {first.run_a_id, first.run_b_id}
    assert not {latest.alias_a, latest.alias_b, latest.key} & {first.alias_a, first.alias_b, first.key}


def test_the_page_shows_no_number_of_the_checker_before_the_vote(voter_client, built):
    html = voter_client.get(reverse("vote")).content.decode()
    stage = html[html.index('id="vote-stage"') :]
    assert "checks passed" not in stage.lower() and "browser steps" not in stage.lower()
    assert not re.search(r"\b\d+ of \d+\b", stage)


def test_the_scenarios_are_shown_once_above_both_apps(voter_client, built):
    for task in built.tasks:
        version = task.current_version
        version.scenarios = ["Sign up", "Send a message", "Find it after a reload"]
        version.save()
    html = voter_client.get(reverse("vote")).content.decode()
    assert html.count("Find it after a reload") == 1
    assert html.index("Find it after a reload") < html.index('title="App A, live"')
    assert "Tab moves into app A" in html


def test_anonymous_visitors_cannot_open_the_vote_screen_or_screenshots(client, voter_client, built):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    client.logout()
    for url in (reverse("vote"), reverse("vote_preview_shot", args=[matchup.alias_a, 0])):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("signin"))


def test_with_a_preview_origin_the_frames_point_there(voter_client, built, settings):
    settings.PREVIEW_ORIGIN = "https://apps.example.net"
    response = voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    assert _frame_src(response.content.decode(), "A") == "https://apps.example.net" + reverse(
        "vote_preview_app", args=[matchup.alias_a]
    )


def test_an_editor_uploads_a_build_in_the_admin_and_a_bad_zip_writes_nothing(client, world, media):
    from django.contrib.auth.models import Group

    from tests.builders.voting import make_user

    editor = make_user("editor@example.com")
    editor.is_staff = True
    editor.save()
    editor.groups.add(Group.objects.get(name="Editors"))
    client.force_login(editor)
    run = world.runs[0]
    url = reverse("admin:runs_appbuild_add")
    bad = _zip({"index.html": INDEX, "../x.js": b"1"})
    bad.name = "build.zip"
    response = client.post(url, {"run": run.pk, "upload": bad})
    assert response.status_code == 200 and "is refused" in response.content.decode()
    assert not AppBuild.objects.exists()
    good = _zip({"index.html": INDEX})
    good.name = "build.zip"
    assert client.post(url, {"run": run.pk, "upload": good}).status_code == 302
    assert AppBuild.objects.get().run == run
    # A voter (no staff) cannot reach the upload.
    client.force_login(make_user("plain@example.com"))
    assert client.get(url).status_code == 302
