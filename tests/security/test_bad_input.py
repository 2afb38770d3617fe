"""Bad input anywhere answers 4xx with a message, never 500: every URL pattern crawled with junk path
parameters (alone and mixed with real ones), forms posted with wrong types and oversized bodies, unknown ids,
and other people's objects (another voter's matchup, another vendor's run)."""

from __future__ import annotations

import itertools
import logging
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from leaderboard.models import Membership
from runs.models import Run
from tests.builders.review import BENCH, ROUND, make_people, make_world
from tests.builders.voting import build_world, make_user, matchup_for

JUNK = [
    "no-such-thing",
    "x" * 600,
    "..",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "ünïcødé-✓",
    "%2e%2e",
    " ",
]
JUNK_INT = ["0", "99999999999999999999999999"]


def _patterns(resolver: URLResolver, prefix: str = ""):
    """(route text, converters by name) of every pattern, admin included."""
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, getattr(entry.pattern, "converters", {})


def _fill(route: str, values: dict[str, str]) -> str | None:
    route = route.lstrip("^").rstrip("$").replace("\\Z", "").replace("\\/", "/")
    if re.search(r"\(\?P<|[\[\]()*+?\\]", re.sub(r"<(?:\w+:)?(\w+)>", "", route)):
        return None  # a regex pattern (the API's catch-all); the API has its own schema tests
    out = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], route)
    return "/" + out


@pytest.fixture
def world(db):
    w = build_world()
    owner = make_user("owner@example.com")
    other = make_user("other@example.com")
    their = matchup_for(owner, w.runs[0], w.runs[4])  # two different agents
    return {"w": w, "owner": owner, "other": other, "their": their}


def _real_values(world) -> dict[str, str]:
    w, run, their = world["w"], world["w"].runs[0], world["their"]
    return {
        "bench": w.benchmark.slug,
        "round": w.round.key,
        "round_key": w.round.key,
        "run": run.key,
        "run_key": run.key,
        "task": w.tasks[0].key,
        "agent": "zephyrbot",
        "slug": "zephyrbot",
        "key": their.key,
        "alias": their.alias_a,
        "index": "0",
        "name": "x",
        "object_id": str(run.pk),
        "app_label": "runs",
        "content_type_id": "1",
        "url": "x",
    }


def _relative(filename: str) -> str:
    """A traceback file name relative to the repo, wherever the repo is."""
    try:
        return str(Path(filename).resolve().relative_to(Path(__file__).resolve().parents[2]))
    except ValueError:
        return filename


def _check(client: Client, method: str, url: str, failures: list[str], **kwargs) -> int:
    try:
        response = getattr(client, method)(url, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the point is to report it
        tb = exc.__traceback__
        while tb.tb_next:
            tb = tb.tb_next
        failures.append(
            f"{method.upper()} {url[:120]!r}: {type(exc).__name__}: {str(exc)[:160]} "
            f"(at {_relative(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno})"
        )
        return 500
    if response.status_code >= 500:
        failures.append(f"{method.upper()} {url[:120]!r}: {response.status_code}")
    elif 400 <= response.status_code < 500 and response.status_code != 405:
        body = b"".join(response) if response.streaming else response.content
        if not body.strip():
            failures.append(f"{method.upper()} {url[:120]!r}: {response.status_code} with an empty body")
    elif response.status_code == 405 and not response.get("Allow"):
        failures.append(f"{method.upper()} {url[:120]!r}: 405 without Allow")
    return response.status_code


def _combos(names: list[str], converters: dict, real: dict[str, str]):
    """Each parameter junk in turn with the others real (reaches the code behind the first lookup), then all
    parameters junk at once."""
    base = [real.get(n, "x") for n in names]
    for i, name in enumerate(names):
        for junk in JUNK_INT if type(converters.get(name)).__name__ == "IntConverter" else JUNK:
            yield [*base[:i], junk, *base[i + 1 :]]
    if len(names) > 1:
        yield ["no-such" if type(converters.get(n)).__name__ != "IntConverter" else JUNK_INT[1] for n in names]


def _crawl(client: Client, world, methods=("get",)) -> list[str]:
    real = _real_values(world)
    failures: list[str] = []
    for route, converters in _patterns(get_resolver()):
        names = re.findall(r"<(?:\w+:)?(\w+)>", route)
        for combo in _combos(names, converters, real) if names else [[]]:
            url = _fill(route, dict(zip(names, combo, strict=True)))
            if url is None:
                continue
            for method in methods:
                _check(client, method, url, failures)
    return failures


@pytest.fixture
def no_raise(client):
    logging.getLogger("django.request").setLevel(logging.CRITICAL)
    logging.getLogger("django.security").setLevel(logging.CRITICAL)
    yield client
    logging.getLogger("django.request").setLevel(logging.NOTSET)
    logging.getLogger("django.security").setLevel(logging.NOTSET)


def test_it_crawls_every_url_pattern_with_junk_as_anonymous(no_raise, world):
    failures = _crawl(no_raise, world, methods=("get", "post"))
    assert not failures, "\n".join(failures)


def test_it_crawls_every_url_pattern_with_junk_as_a_signed_in_voter(no_raise, world):
    no_raise.force_login(world["other"])
    failures = _crawl(no_raise, world, methods=("get", "post"))
    assert not failures, "\n".join(failures)


def test_it_crawls_every_url_pattern_with_junk_as_a_superuser(no_raise, world):
    admin = make_user("root@example.com")
    admin.is_staff = admin.is_superuser = True
    admin.save()
    no_raise.force_login(admin)
    failures = _crawl(no_raise, world, methods=("get",))
    assert not failures, "\n".join(failures)


def _nul_failures(client: Client, world) -> list[str]:
    """Every string path parameter set to NUL in turn (PostgreSQL refuses NUL in text; the site answers
    404 before a query sees it)."""
    real = _real_values(world)
    failures: list[str] = []
    for route, converters in _patterns(get_resolver()):
        names = re.findall(r"<(?:\w+:)?(\w+)>", route)
        for _i, name in enumerate(names):
            if type(converters.get(name)).__name__ == "IntConverter" or route.startswith("admin/"):
                continue
            values = {n: real.get(n, "x") for n in names}
            values[name] = "\x00"
            url = _fill(route, values)
            if url is not None:
                _check(client, "get", url, failures)
    return failures


def test_a_nul_byte_in_any_path_parameter_is_not_a_500(no_raise, world):
    no_raise.force_login(world["other"])
    failures = _nul_failures(no_raise, world)
    assert not failures, "\n".join(failures)


def test_junk_query_strings_on_public_pages_are_not_500(no_raise, world):
    w = world["w"]
    failures: list[str] = []
    pages = [
        "/",
        f"/b/{w.benchmark.slug}/",
        f"/b/{w.benchmark.slug}/tradeoffs/",
        f"/b/{w.benchmark.slug}/r/{w.round.key}/board.csv",
        f"/b/{w.benchmark.slug}/tasks/{w.tasks[0].key}/",
        "/api/benchmarks",
        f"/api/benchmarks/{w.benchmark.slug}/runs",
    ]
    queries = [
        "tab=\x00",
        "sort=\x00&dir=desc",
        "tab=tasks&task=\x00",
        "sort=" + "x" * 5000,
        "round=\x00",
        "agent=\x00",
        "w=abc&weights=-1e309",
        "page=-1",
        "page=abc",
        "limit=10**9",
        "tab[]=1&tab[]=2",
        "cursor=%ff%fe",
    ]
    for page, query in itertools.product(pages, queries):
        _check(no_raise, "get", f"{page}?{query}", failures)
    no_raise.force_login(world["other"])
    for query in ["scope=" + "y" * 5000, "scope=%ff", f"scope={w.benchmark.slug}/" + "z" * 300]:
        _check(no_raise, "get", f"/vote/?{query}", failures)
    assert not failures, "\n".join(failures)


def test_a_nul_scope_on_the_vote_screen_is_not_a_500(client, world):
    client.force_login(world["other"])
    assert client.get("/vote/?scope=%00").status_code < 500


# --- the vote endpoint ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"winner": ""},
        {"winner": "A"},
        {"winner": "c"},
        {"winner": "1e9"},
        {"winner": "\x00"},
        {"winner": "a" * 100_000},
        {"winner": ["c", "d"]},
    ],
)
def test_a_vote_with_a_bad_winner_is_a_400_with_a_message(client, world, data):
    owner, their = world["owner"], world["their"]
    client.force_login(owner)
    response = client.post(f"/vote/m/{their.key}/", data)
    assert response.status_code == 400
    assert "A is better" in response.content.decode()


@pytest.mark.parametrize("key", ["no-such-key", "x" * 300, "' OR 1=1 --"])
def test_a_vote_on_an_unknown_key_is_refused_with_a_message(client, world, key):
    client.force_login(world["owner"])
    response = client.post(f"/vote/m/{key}/", {"winner": "a"})
    assert response.status_code == 400
    assert "not issued to you" in response.content.decode()


def test_a_nul_byte_in_a_path_or_query_is_refused_before_any_view(client, world):
    from voting.models import Vote

    client.force_login(world["owner"])
    response = client.post("/vote/m/\x00/", {"winner": "a"})
    assert response.status_code == 404 and "This page does not exist" in response.content.decode()
    response = client.get("/b/x/", {"tab": "over\x00all"})
    assert response.status_code == 400 and "cannot be used" in response.content.decode()
    assert not Vote.objects.exists()


def test_a_vote_on_another_users_matchup_is_refused_and_stores_nothing(client, world):
    from voting.models import Vote

    client.force_login(world["other"])
    response = client.post(f"/vote/m/{world['their'].key}/", {"winner": "a"})
    assert response.status_code == 400 and "not issued to you" in response.content.decode()
    assert not Vote.objects.exists()


@pytest.mark.parametrize("view", ["live", "0", "1", "99999999999999999999"])
def test_another_users_preview_alias_is_refused_with_a_message(client, world, view):
    client.force_login(world["other"])
    response = client.get(f"/vote/p/{world['their'].alias_a}/{view}/")
    assert 400 <= response.status_code < 500
    if response.status_code != 404:
        assert "not issued to you" in response.content.decode()


def test_an_oversized_vote_body_is_a_400(client, world):
    client.force_login(world["owner"])
    body = "winner=a&pad=" + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    response = client.post(f"/vote/m/{world['their'].key}/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400


def test_too_many_form_fields_is_a_400(client, world):
    client.force_login(world["owner"])
    body = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)) + "&winner=a"
    response = client.post(f"/vote/m/{world['their'].key}/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400


def test_a_vote_as_json_or_multipart_junk_is_refused_not_500(client, world):
    client.force_login(world["owner"])
    url = f"/vote/m/{world['their'].key}/"
    assert client.post(url, '{"winner": "a"}', content_type="application/json").status_code == 400
    bad_multipart = client.post(url, b"--zz\r\nnot a part", content_type="multipart/form-data; boundary=zz")
    assert 400 <= bad_multipart.status_code < 500
    no_boundary = client.post(url, b"winner=a", content_type="multipart/form-data")
    assert 400 <= no_boundary.status_code < 500


# --- accounts --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {"email": ""},
        {"email": "not-an-email", "password1": "x", "password2": "x"},
        {"email": ["a@example.com", "b@example.com"], "password1": "p", "password2": "q"},
        {"email": "a@example.com\x00", "password1": "long-enough-pass-1", "password2": "long-enough-pass-1"},
        {"email": "a" * 5000 + "@example.com", "password1": "p" * 5000, "password2": "p" * 5000},
        {"email": "a@example.com", "password1": "\x00" * 20, "password2": "\x00" * 20},
    ],
)
def test_sign_up_with_bad_input_is_a_form_error_not_500(client, db, data):
    response = client.post("/signup/", data)
    assert response.status_code == 200  # the form again, with its errors
    assert 'class="errorlist' in response.content.decode()
    assert not Group.objects.filter(user__email__startswith="a").exists()


@pytest.mark.parametrize(
    "data",
    [
        {"username": ""},
        {"username": "\x00", "password": "x"},
        {"username": ["a", "b"], "password": ["c", "d"]},
        {"username": "u" * 10_000, "password": "p" * 10_000},
        {"username": "nobody@example.com", "password": "x"},
    ],
)
def test_sign_in_with_bad_input_is_a_form_error_not_500(client, db, data):
    response = client.post("/signin/", data)
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()


def test_an_oversized_sign_in_is_a_400(client, db):
    body = "username=a&password=" + "p" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    assert client.post("/signin/", body, content_type="application/x-www-form-urlencoded").status_code == 400


def test_an_unsafe_next_is_ignored(client, db):
    make_user("next@example.com", password="long-enough-pass-1")
    for target in ["https://evil.example/", "//evil.example/", "/\\evil.example", "\x00"]:
        response = client.post(
            "/signin/", {"username": "next@example.com", "password": "long-enough-pass-1", "next": target}
        )
        assert response.status_code == 302 and response["Location"] == "/", target
        client.logout()


# --- disputes: one vendor, another vendor's run ----------------------------------------------------------------


@pytest.fixture
def preview(db):

    w = make_world(status="preview", preview_started_at=(timezone.now() - timedelta(hours=1)).isoformat())
    return {**w, **make_people(), "base": f"/preview/{BENCH}/{ROUND}/runs"}


def test_a_vendor_disputing_another_vendors_run_gets_a_404(client, preview):
    from runs.models import Dispute

    client.force_login(preview["vendor"])
    for method in ("get", "post"):
        response = getattr(client, method)(
            f"{preview['base']}/other-trip/dispute/",
            {"reason": "environment", "note": "x"} if method == "post" else None,
        )
        assert response.status_code == 404
        assert response.content.strip()
    assert not Dispute.objects.exists()


@pytest.mark.parametrize(
    "data",
    [
        {"reason": ""},
        {"reason": "no-such-reason", "note": "x"},
        {"reason": ["environment", "nope"], "note": "x"},
        {"reason": "environment", "note": "n" * 5001},
        {"reason": "environment", "note": "\x00"},
    ],
)
def test_a_dispute_with_bad_input_is_a_form_error(client, preview, data):
    from runs.models import Dispute

    client.force_login(preview["vendor"])
    response = client.post(f"{preview['base']}/acme-trip/dispute/", data)
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    assert not Dispute.objects.exists()


def test_a_vendor_without_a_membership_or_with_junk_ids_gets_404s(client, preview):
    client.force_login(preview["plain"])
    assert client.get(f"{preview['base']}/acme-trip/dispute/").status_code == 404
    Membership.objects.filter(user=preview["vendor"]).delete()
    client.force_login(preview["vendor"])
    response = client.post(f"{preview['base']}/acme-trip/dispute/", {"reason": "environment", "note": "x"})
    assert response.status_code == 404


# --- response headers: no inline script, no framing except the sandboxed previews -------------------------------

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)


def _csp(response) -> dict[str, str]:
    return {d.strip().split(" ", 1)[0]: d.strip() for d in response["Content-Security-Policy"].split(";") if d.strip()}


def test_public_and_vote_pages_forbid_inline_script_and_framing(client, world):
    w = world["w"]
    run = w.runs[0]
    pages = [
        "/",
        f"/b/{w.benchmark.slug}/",
        f"/b/{w.benchmark.slug}/r/{w.round.key}/runs/{run.key}/",
        "/signin/",
        "/signup/",
        "/no-such-page/",
    ]
    client.force_login(world["owner"])
    for url in [*pages, "/vote/"]:
        response = client.get(url)
        csp = _csp(response)
        assert "'unsafe-inline'" not in csp["script-src"] and "'unsafe-eval'" not in csp["script-src"], url
        assert csp["frame-ancestors"] == "frame-ancestors 'none'", url
        assert response["X-Frame-Options"] == "DENY", url
        assert not INLINE_SCRIPT.search(response.content.decode()), url


def _opaque_previews() -> None:
    # Only a preview address that names nothing is framed (one naming the agent is never shown).
    for run in Run.objects.all():
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq/"
        run.save(update_fields=["preview_url"])


def test_the_vote_screen_frames_previews_only_sandboxed(client, world):
    _opaque_previews()
    client.force_login(world["owner"])
    html = client.get("/vote/").content.decode()
    frames = re.findall(r"<iframe\b[^>]*>", html)
    assert frames, "the world has live previews"
    for frame in frames:
        sandbox = re.search(r'\bsandbox="([^"]*)"', frame)
        assert sandbox is not None, frame
        # allow-scripts with allow-same-origin would let the framed page remove its own sandbox
        assert not {"allow-same-origin", "allow-top-navigation"} & set(sandbox.group(1).split()), frame


def test_the_preview_route_may_be_framed_by_this_site_only(client, world):
    _opaque_previews()
    client.force_login(world["owner"])
    response = client.get(f"/vote/p/{world['their'].alias_a}/live/")
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    csp = _csp(response)
    assert csp["frame-ancestors"] == "frame-ancestors 'self'" and csp["default-src"] == "default-src 'none'"
    assert response["Referrer-Policy"] == "no-referrer" and response["Cache-Control"].startswith("private")
