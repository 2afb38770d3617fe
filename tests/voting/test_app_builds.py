"""App builds: what is refused when a build comes in, and how a build is served to the vote screen's frame."""

from __future__ import annotations

import io
import re
import stat
import struct
import warnings
import zipfile
from datetime import timedelta
from decimal import Decimal
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from runs.models import AppBuild, CheckResult
from runs.services.app_builds import AppBuildError, app_build_from_folder, app_build_from_zip
from tests.builders.voting import make_user
from voting.models import Matchup, Vote

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


# Where the fields of a member sit in its local header and in its central directory entry: (local, central, format).
_FIELDS = {"flags": (6, 8, "<H"), "method": (8, 10, "<H"), "compressed": (18, 20, "<I"), "size": (22, 24, "<I")}
ASSET = b"".join(b"function f%d() { return %d; }\n" % (i, i * i) for i in range(200))


def _damaged(*, flip: bool = False, deflated: bool = False, **fields: int) -> io.BytesIO:
    """A zip of index.html and js/app.js whose js/app.js is damaged: a byte of its data flipped, and/or header
    fields (`_FIELDS`) overwritten in both of its headers, as a broken or hostile zip tool would leave them."""
    method = zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        z.writestr("index.html", INDEX)
        z.writestr("js/app.js", ASSET)
        info = z.getinfo("js/app.js")
    raw = bytearray(buf.getvalue())
    local = info.header_offset
    central = next(i for i in _all(raw, b"PK\x01\x02") if raw[i + 46 : i + 46 + len(b"js/app.js")] == b"js/app.js")
    for name, value in fields.items():
        at_local, at_central, fmt = _FIELDS[name]
        struct.pack_into(fmt, raw, local + at_local, value)
        struct.pack_into(fmt, raw, central + at_central, value)
    if flip:
        data = local + 30 + len(b"js/app.js") + struct.unpack_from("<H", raw, local + 28)[0]
        raw[data] ^= 0xFF
        raw[data + 1] ^= 0xFF
    return io.BytesIO(bytes(raw))


def _all(raw: bytearray, needle: bytes) -> list[int]:
    found, at = [], raw.find(needle)
    while at >= 0:
        found.append(at)
        at = raw.find(needle, at + 1)
    return found


def _with_duplicate() -> io.BytesIO:
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as z:
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it writes
        z.writestr("index.html", INDEX)
        z.writestr("app.js", b"1")
        z.writestr("app.js", b"2")
    buf.seek(0)
    return buf


def _with_bad_utf8_name() -> io.BytesIO:
    raw = bytearray(_zip({"index.html": INDEX, "app.js": b"1"}).getvalue())
    for at in _all(raw, b"PK\x01\x02"):
        if raw[at + 46 : at + 52] == b"app.js":
            struct.pack_into("<H", raw, at + 8, 0x800)  # the name is UTF-8, says the zip
            raw[at + 46] = 0xFF  # but it is not
    return io.BytesIO(bytes(raw))


# Zips that cannot be used, each with (part of) the message the editor sees. Every one of them used to end in a
# server error in the admin (only the checks' own error was caught).
BAD_ZIPS = {
    "not a zip": (lambda: io.BytesIO(b"PK\x03\x04 this is no zip"), "not a readable zip file"),
    "bad CRC": (lambda: _damaged(flip=True), "'js/app.js': damaged (Bad CRC-32"),
    "declared size too small": (lambda: _damaged(size=10), "'js/app.js': damaged (Bad CRC-32"),
    "encrypted": (lambda: _damaged(flags=0x1), "'js/app.js': encrypted"),
    "unknown compression": (lambda: _damaged(method=99), "'js/app.js': compressed in a way that cannot be read"),
    "broken deflate stream": (lambda: _damaged(deflated=True, flip=True), "'js/app.js': damaged (Error -3"),
    "the zip ends inside a file": (
        lambda: _damaged(compressed=len(ASSET) + 10_000, size=len(ASSET) + 10_000),
        "'js/app.js': damaged (the zip ends inside this file)",
    ),
    "name not UTF-8": (_with_bad_utf8_name, "not a readable zip file"),
    "file then folder": (
        lambda: _zip({"index.html": INDEX, "a": b"1", "a/b": b"2"}),
        "'a': a file and also the folder of 'a/b'",
    ),
    "folder then file": (
        lambda: _zip({"index.html": INDEX, "x/y/z": b"1", "x/y": b"2"}),
        "'x/y': a file and also the folder of 'x/y/z'",
    ),
    "same name twice": (_with_duplicate, "'app.js': the same file is in the build twice"),
    "same name twice, spelt apart": (
        lambda: _zip({"index.html": INDEX, "./index.html": b"<p>"}),
        "'index.html': the same file is in the build twice",
    ),
    "300-character name": (
        lambda: _zip({"index.html": INDEX, "a" * 300 + ".js": b"1"}),
        "a file or folder name over 200 bytes",
    ),
    "202 bytes in 101 characters": (
        lambda: _zip({"index.html": INDEX, "\u00e9" * 101: b"1"}),
        "a file or folder name over 200 bytes",
    ),
    "1,100-byte path": (
        lambda: _zip({"index.html": INDEX, "/".join(["d" * 180] * 6) + "/x.js": b"1"}),
        "a path over 1000 bytes",
    ),
}


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


@pytest.mark.parametrize("case", list(BAD_ZIPS))
def test_an_unusable_zip_is_refused_with_its_reason_and_writes_nothing(world, media, case):
    make, message = BAD_ZIPS[case]
    with pytest.raises(AppBuildError, match=re.escape(message)):
        app_build_from_zip(run=world.runs[0], fileobj=make())
    assert not AppBuild.objects.exists()
    assert not (media / "app-builds").exists() or not any((media / "app-builds").iterdir())


def test_a_long_name_is_shown_cut_short_in_the_message(world, media):
    with pytest.raises(AppBuildError) as exc:
        app_build_from_zip(run=world.runs[0], fileobj=_zip({"index.html": INDEX, "a" * 300 + ".js": b"1"}))
    assert len(str(exc.value)) < 160 and str(exc.value).startswith("'aaaa") and "a.js'" in str(exc.value)


def test_names_at_the_limits_are_stored(world, media):
    part = "p" * 200
    build = app_build_from_zip(run=world.runs[0], fileobj=_zip({"index.html": INDEX, f"{part}/{part}.js"[:401]: b"1"}))
    assert (media / build.directory / part / f"{part}.js"[:200]).read_bytes() == b"1"


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


def test_a_build_is_served_sandboxed_with_no_cookie_and_no_name(voter_client, built):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    # The app's own requests carry no session (they are cross-site): the alias alone opens it, with the voter's
    # session and with none (a client of its own: `client` is the very client `voter_client` signed in).
    for c in (voter_client, Client()):
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
        assert asset.content == b"body{color:red}" + _marked(matchup.alias_a)


SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>parent.document.title = "owned"</script></svg>'
XML = b'<?xml version="1.0"?><x:html xmlns:x="http://www.w3.org/1999/xhtml"><x:script>alert(1)</x:script></x:html>'


@pytest.mark.parametrize(
    ("name", "data", "types"),
    [
        ("logo.svg", SVG, {"image/svg+xml"}),
        ("feed.xml", XML, {"application/xml", "text/xml; charset=utf-8"}),
        ("page.xhtml", XML, {"application/xhtml+xml"}),
    ],
)
def test_svg_and_xml_in_a_build_are_sandboxed_too(voter_client, world, media, name, data, types):
    # An SVG or XML document runs its scripts when opened on its own: it gets the same sandbox as the HTML,
    # and nosniff, so no browser reads it as something else.
    for run in world.runs:
        app_build_from_zip(run=run, fileobj=_zip({"index.html": INDEX, f"img/{name}": data}))
    voter_client.get(reverse("vote"))
    response = Client().get(reverse("vote_preview_app_file", args=[Matchup.objects.get().alias_a, f"img/{name}"]))
    assert response.status_code == 200 and b"".join(response.streaming_content) == data
    assert response["Content-Type"] in types
    csp = [part.strip() for part in response["Content-Security-Policy"].split(";")]
    assert "sandbox allow-scripts allow-forms" in csp and "allow-same-origin" not in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "Set-Cookie" not in response.headers and response["Cache-Control"].startswith("private")


@pytest.mark.parametrize("path", ["../index.html", "css/../../x", "%2e%2e/%2e%2e/settings.py", "css", "nope.js"])
def test_paths_out_of_the_build_or_missing_are_404(voter_client, built, path, media):
    (media / "outside.txt").write_text("secret")
    voter_client.get(reverse("vote"))
    alias = Matchup.objects.get().alias_a
    response = voter_client.get(f"/vote/app/{alias}/{path}")
    assert response.status_code == 404
    assert b"secret" not in response.content


def _marked(alias: str) -> bytes:
    """The comment a style sheet or script is sent with on this side of this pair (`app_serving.serving_mark`)."""
    from voting.app_serving import serving_mark

    return f"\n/* {serving_mark(alias)} */\n".encode()


def _fetch_build(c: Client, alias: str) -> tuple[int, int]:
    """The status of the build's page and of one of its assets through `alias`, checking what a 200 carries."""
    page = c.get(reverse("vote_preview_app", args=[alias]))
    asset = c.get(reverse("vote_preview_app_file", args=[alias, "css/app.css"]))
    if page.status_code == 200:
        assert page.content.endswith(INDEX[len(b"<!doctype html>") :])
    if asset.status_code == 200:
        assert asset.content == b"body{color:red}" + _marked(alias)
    return page.status_code, asset.status_code


def test_a_build_is_served_to_whoever_holds_the_alias_until_it_expires(voter_client, built, settings, monkeypatch):
    # The rule (docs/vote-screen.md, "How an app is served"): the alias is the only key, because the app's own
    # requests from its sandboxed frame carry no session. So the issuing voter, another signed-in voter and a
    # visitor with no session all get the build, before the vote and after it (the revealed pair keeps its
    # apps), until VOTE_ALIAS_TTL_SECONDS after the pair was drawn; then no one does.
    settings.VOTE_ALIAS_TTL_SECONDS = 90
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    assert matchup.expires_at - matchup.created_at == timedelta(seconds=90)
    other = Client()
    other.force_login(make_user("other-voter@example.com"))
    holders = {"the issuing voter": voter_client, "another voter": other, "a visitor signed out": Client()}
    for alias in (matchup.alias_a, matchup.alias_b):
        assert {who: _fetch_build(c, alias) for who, c in holders.items()} == dict.fromkeys(holders, (200, 200))

    assert voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"}).status_code == 302
    assert Vote.objects.filter(matchup=matchup).exists()
    for alias in (matchup.alias_a, matchup.alias_b):
        assert {who: _fetch_build(c, alias) for who, c in holders.items()} == dict.fromkeys(holders, (200, 200))

    drawn = matchup.created_at
    monkeypatch.setattr(timezone, "now", lambda: drawn + timedelta(seconds=89))
    assert {who: _fetch_build(c, matchup.alias_a) for who, c in holders.items()} == dict.fromkeys(holders, (200, 200))
    monkeypatch.setattr(timezone, "now", lambda: drawn + timedelta(seconds=90))
    for alias in (matchup.alias_a, matchup.alias_b):
        assert {who: _fetch_build(c, alias) for who, c in holders.items()} == dict.fromkeys(holders, (404, 404))


def test_a_build_is_not_reachable_under_media(voter_client, built, media):
    # Builds live under MEDIA_ROOT/app-builds/, but the site serves nothing under /media/ (the front web server
    # serves evidence there and must refuse app-builds/, README): only an alias opens a build.
    voter_client.get(reverse("vote"))
    build = AppBuild.objects.get(run=Matchup.objects.get().run_a)
    assert (media / build.directory / "index.html").read_bytes() == INDEX
    for c in (voter_client, Client()):
        for url in (f"/media/{build.directory}/index.html", f"/media/{build.directory}/", "/media/app-builds/"):
            response = c.get(url)
            assert response.status_code == 404, url
            assert b"body{color:red}" not in response.content and b"<body>hi</body>" not in response.content


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
    from voting.draw.matchups import matchup_draw

    scope = f"{built.benchmark.slug}/{built.tasks[0].key}"
    first = matchup_draw(voter=voter, scope=scope)
    other = make_user("other@example.com")
    for _ in range(600):
        latest = matchup_draw(voter=other, scope=scope)
        if {latest.run_a_id, latest.run_b_id} == {first.run_a_id, first.run_b_id}:
            break
    assert {latest.run_a_id, latest.run_b_id} == {first.run_a_id, first.run_b_id}
    assert not {latest.alias_a, latest.alias_b, latest.key} & {first.alias_a, first.alias_b, first.key}


# What the checker (and the harness) recorded of every run, in values no page of the vote screen has otherwise.
CHECKER = {
    "score": 87.5,
    "api_checks_passed": 7,
    "api_checks_total": 13,
    "browser_steps_passed": 5,
    "browser_steps_total": 11,
    "tests_passed": 17,
    "tests_total": 19,
    "auto_pass_rate": 0.8947,
    "heuristic": 0.4321,
    "cost_usd": Decimal("3.141593"),
    "tokens_input": 123457,
    "tokens_output": 98765,
    "tokens_cache_write": 4321,
    "wall_seconds": 1234.6,  # within the task's 30 minutes: the run still counts, so it is drawn
    "first_output_seconds": 38.6,
    "steps": 73,
    "interventions": 29,
    "checks_version": "checker-9.8.7",
}
# Each of them as a page could write it: as is, rounded, as a percentage, with thousands separators, in k.
CHECKER_NUMBERS = {
    *("87.5", "87.50", "87", "88", "0.875"),  # score
    *("53.8", "53.85", "54", "0.54"),  # 7 of 13
    *("45.5", "45.45", "45", "0.45"),  # 5 of 11
    *("89.5", "89.47", "89", "0.89", "0.8947"),  # 17 of 19, and the auto pass rate
    *("43.2", "43", "0.43", "0.4321"),  # heuristic
    *("3.141593", "3.14", "3.142", "3.1416"),  # cost
    *("123457", "123,457", "123", "123.5", "98765", "98,765", "98.8", "99", "4321", "4,321", "4.3"),  # tokens
    *("226543", "226,543", "226.5", "227", "0.23"),  # tokens in all
    *("1234.6", "1235", "1,235", "1,234.6", "20.6", "21", "0:20:35", "20:35"),  # seconds, minutes
    *("38.6", "39", "73", "29", "9.8.7"),  # first output, steps, interventions, checker version
    *("13", "11", "17", "19"),  # the totals on their own
}
CHECKER_PHRASES = [
    r"\b7\s*(?:/|of|out of)\s*13\b",
    r"\b5\s*(?:/|of|out of)\s*11\b",
    r"\b17\s*(?:/|of|out of)\s*19\b",
    r"\b20\s*m(?:in)?\s*35\s*s",
    r"POST /api/items",
    r"starts and shows the seeded data",
    r"HTTP 418",
    r"checks? passed",
    r"browser steps?",
]


@pytest.fixture
def checked(built):
    """The built world with the checker's distinctive numbers on every run, and a distinctive detail on each
    of its checks."""
    for run in built.runs:
        for field, value in CHECKER.items():
            setattr(run, field, value)
        run.save()
    CheckResult.objects.update(detail="got HTTP 418 after 2.718 s")
    return built


def _checker_traces(html: str) -> list[str]:
    """Every checker value (`CHECKER_NUMBERS`, `CHECKER_PHRASES`) found in `html`, once the random tokens (the
    pairs' keys and aliases, the CSRF token) are taken out: a number is a whole number in the text, never part
    of a longer one."""
    for m in Matchup.objects.all():
        for token in (m.key, m.alias_a, m.alias_b):
            html = html.replace(token, " ")
    html = re.sub(r'(csrfmiddlewaretoken" value=|"X-CSRFToken": )"[^"]*"', " ", html)
    numbers = set(re.findall(r"\d+(?:[.,:]\d+)*", html))
    return sorted(numbers & CHECKER_NUMBERS) + [p for p in CHECKER_PHRASES if re.search(p, html, re.IGNORECASE)]


def test_the_checkers_numbers_are_on_the_run_page_that_the_vote_screen_hides(client, checked):
    # The control of the tests below: the same search finds the values where they are public.
    run = checked.runs[0]
    html = client.get(reverse("run", args=[checked.benchmark.slug, checked.round.key, run.key])).content.decode()
    found = _checker_traces(html)
    # In the site's one number style: 226,543 tokens read "227k", $3.14, a first output after 38.6 s reads "39s".
    assert {"227", "3.14", "39"} <= set(found), found
    assert r"\b7\s*(?:/|of|out of)\s*13\b" in found and r"\b5\s*(?:/|of|out of)\s*11\b" in found, found


def test_no_number_of_the_checker_is_on_the_vote_screen_before_the_vote(voter_client, checked):
    page = voter_client.get(reverse("vote")).content.decode()
    assert 'title="App A, live"' in page and 'title="App B, live"' in page
    assert _checker_traces(page) == []
    fragment = voter_client.get(reverse("vote"), HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section id="vote-stage"') and 'title="App B, live"' in fragment
    assert _checker_traces(fragment) == []


def test_the_reveal_names_the_makers_and_shows_no_number_of_the_checker(voter_client, checked):
    # After the vote the screen names each side's agent, organization and model and links its run page (where
    # the numbers are); the numbers themselves are not on it, nor on the next pair that comes with the answer.
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    answer = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "b"}, HTTP_HX_REQUEST="true")
    html = answer.content.decode()
    assert Matchup.objects.count() == 2 and '<template id="next-stage">' in html
    names = [unescape(" ".join(m.split())) for m in re.findall(r'<p class="side-name">(.*?)</p>', html, re.S)]
    expected = []
    for run in (matchup.run_a, matchup.run_b):
        agent = run.entry.agent
        expected.append(
            f'<strong>{agent.name}</strong> <span class="muted">{agent.organization.name} · {run.entry.model}</span>'
        )
    assert names == expected
    assert _checker_traces(html) == []
    reloaded = voter_client.get(reverse("vote_reveal", args=[matchup.key])).content.decode()
    assert matchup.run_a.entry.agent.name in reloaded and _checker_traces(reloaded) == []


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


@pytest.mark.parametrize("case", list(BAD_ZIPS))
def test_an_unusable_zip_uploaded_in_the_admin_shows_why_and_writes_nothing(client, world, media, case):
    from django.contrib.auth.models import Group

    from tests.builders.voting import make_user

    editor = make_user("editor@example.com")
    editor.is_staff = True
    editor.save()
    editor.groups.add(Group.objects.get(name="Editors"))
    client.force_login(editor)
    make, message = BAD_ZIPS[case]
    upload = make()
    upload.name = "build.zip"
    response = client.post(reverse("admin:runs_appbuild_add"), {"run": world.runs[0].pk, "upload": upload})
    assert response.status_code == 200
    errors = re.search(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S)
    assert errors and message in unescape(errors.group(1))
    assert not AppBuild.objects.exists()
    assert not (media / "app-builds").exists() or not any((media / "app-builds").iterdir())
