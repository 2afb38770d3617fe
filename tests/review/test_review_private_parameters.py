"""A round's parameter values are private until it is published: not in pages, downloads, the API, error pages
or HTML comments (seed 000 §1: "kept private until results are published"). This test crawls every public
URL pattern (filled in with every key of the round) and every link found, as anonymous, a vendor, and a
signed-in member of the public, then publishes and checks the values do appear on the run and task pages."""

import re
from datetime import timedelta
from itertools import product
from urllib.parse import urljoin, urlparse

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from runs.services import round_enter_preview, round_publish, verdict_record
from tests.builders.review import BENCH, ROUND, SECRET_CITY, SECRET_PHONE, make_people, make_world

pytestmark = pytest.mark.django_db
PRIVATE = (SECRET_CITY, SECRET_PHONE, "Zanzibar")
SKIP_PREFIXES = ("admin/",)  # staff only (and tested in test_review_blind_admin)
LINK = re.compile(r"""(?:href|src|hx-get|action)=["']([^"'#]+)""")


def _patterns(resolver: URLResolver | None = None, prefix: str = ""):
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            yield from _patterns(p, route)
        elif isinstance(p, URLPattern):
            yield route


def _values(name: str, keys: dict[str, list[str]]) -> list[str]:
    name = name.lower()
    for hint, found in (
        ("bench", keys["bench"]),
        ("round", keys["round"]),
        ("run", keys["run"]),
        ("task", keys["task"]),
        ("agent", keys["agent"]),
        ("slug", keys["agent"] + keys["bench"]),
        ("key", keys["run"] + keys["task"]),
    ):
        if hint in name:
            return found
    return sorted({v for vs in keys.values() for v in vs})


def public_urls(keys: dict[str, list[str]]) -> set[str]:
    """Every URL pattern of the site filled with the round's keys (regex patterns are tried as literal
    prefixes only)."""
    urls = set()
    for route in _patterns():
        route = route.lstrip("^").rstrip("$").replace("\\Z", "").replace("\\", "")
        if route.startswith(SKIP_PREFIXES):
            continue
        names = re.findall(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)", route)
        names = [a or b for a, b in names]
        if not names:
            urls.add("/" + route)
            continue
        for combo in product(*(_values(n, keys) for n in names)):
            url = route
            for n, v in zip(names, combo, strict=True):
                url = re.sub(rf"<(?:\w+:)?{n}>|\(\?P<{n}>[^)]*\)", v, url, count=1)
            urls.add("/" + url)
    return urls


def crawl(client, start: set[str], limit: int = 700) -> dict[str, str]:
    # The limit stays well above the ~600 pages the site's URL patterns, filled with the keys, reach.
    seen: dict[str, str] = {}
    todo = sorted(start)
    while todo and len(seen) < limit:
        url = todo.pop()
        if url in seen:
            continue
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        text = body.decode("utf-8", "replace") + " ".join(f"{k}: {v}" for k, v in response.items())
        seen[url] = text
        for link in LINK.findall(text):
            absolute = urljoin(url, link)
            parsed = urlparse(absolute)
            if parsed.netloc or not parsed.path.startswith("/") or parsed.path.startswith(("/admin", "/static")):
                continue
            target = parsed.path + (f"?{parsed.query}" if parsed.query else "")
            if target not in seen:
                todo.append(target)
    return seen


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def keys_of(w) -> dict[str, list[str]]:
    return {
        "bench": [BENCH],
        "round": [ROUND],
        "run": ["acme-trip", "other-trip", "acme-remind"],
        "task": ["trip", "inbox"],
        "agent": ["acme-agent", "other-agent"],
    }


def assert_private(pages: dict[str, str]) -> None:
    leaks = {url: secret for url, text in pages.items() for secret in PRIVATE if secret in text}
    assert not leaks, leaks


@pytest.mark.parametrize("status", ["draft", "preview"])
def test_no_public_response_of_an_unpublished_round_holds_its_parameters(client, w, status):
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    if status == "preview":
        round_enter_preview(round=w["round"], by=w["editor"])
    start = public_urls(keys_of(w)) | {
        "/",
        "/api/",
        "/api/openapi.json",
        "/no-such-page/",
        "/api/no-such-endpoint",
        f"/b/{BENCH}/compare/?a=acme-agent&b=other-agent&round={ROUND}",
        f"/b/{BENCH}/search/?q=seen",  # the tester's note on acme-trip: not published
        f"/b/{BENCH}/search/?q=seen&agent=acme-agent&outcome=passed",
    }
    pages = crawl(client, start)
    assert len(pages) > 20  # the crawl really went through the site
    assert_private(pages)
    # The search knows the unpublished note and says nothing of it: no result, no count, no snippet.
    assert "No published run mentions “seen”" in pages[f"/b/{BENCH}/search/?q=seen"]
    for who in ("vendor", "plain"):
        client.force_login(w[who])
        assert_private(crawl(client, start | {"/preview/", f"/preview/{BENCH}/{ROUND}/"}))


def review_and_publish(w) -> None:
    """Every run reviewed twice (pass), the preview window passed, the round published."""
    for key in ("acme-trip", "acme-inbox", "other-trip", "acme-remind"):
        run = w[key]
        now = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass", now=now)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=now)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=49))
    round_publish(round=w["round"], by=w["editor"])


def test_publishing_makes_the_parameters_visible_on_run_and_task_pages(client, w):
    review_and_publish(w)
    run_page = client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/")
    assert run_page.status_code == 200
    assert SECRET_CITY in run_page.content.decode()
    assert SECRET_CITY in client.get(f"/b/{BENCH}/tasks/trip/").content.decode()


def _recompute_all() -> None:
    """What the worker does once the writes commit: every stale board and the ratings are recomputed."""
    from recompute.boards import snapshot_recompute
    from snapshots.models import BoardSnapshot

    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)


def _published_round_and_votes() -> None:
    """A published round r0 of the same benchmark where `other-agent` and `pub-agent` are entered, and votes
    naming `acme-agent`, which is entered only in the draft round r1 (so it is not public yet)."""
    from bundles.importer import bundle_import

    doc = {
        "benchmark": {"slug": BENCH, "name": "ARTB test", "methodology": "outcomes"},
        "agents": [
            {"slug": "acme-agent", "name": "Acme Agent", "organization": "Acme"},
            {"slug": "other-agent", "name": "Other Agent", "organization": "Other Co"},
            {"slug": "pub-agent", "name": "Pub Agent"},
        ],
        "tasks": [
            {
                "key": "inbox",
                "title": "Inbox triage",
                "version": "1.0",
                "kind": "core",
                "dimensions": ["email"],
                "prompt": "Sort my inbox.",
                "criteria": {"pass": ["sorted"]},
            }
        ],
        "rounds": [
            {
                "key": "r0",
                "name": "Round 0",
                "status": "published",
                "preview_started_at": "2026-07-29T00:00:00Z",  # 72 hours before: past the 48-hour vendor window
                "published_at": "2026-08-01T00:00:00Z",
                "entries": [{"agent": "other-agent"}, {"agent": "pub-agent"}],
            }
        ],
        "runs": [
            {"id": f"r0-{a}", "round": "r0", "agent": a, "task": "inbox", "status": "completed", "outcome": "pass"}
            for a in ("other-agent", "pub-agent")
        ],
        "votes": [
            {"task": "inbox", "a": "acme-agent", "b": "other-agent", "winner": "a"},
            {"task": "inbox", "a": "pub-agent", "b": "acme-agent", "winner": "b"},
            {"task": "inbox", "a": "pub-agent", "b": "other-agent", "winner": "a"},
        ],
    }
    bundle_import(doc=doc)


@pytest.mark.parametrize("status", ["draft", "preview"])
def test_an_agent_entered_only_in_an_unpublished_round_is_nowhere_public(client, w, status):
    _published_round_and_votes()
    _recompute_all()
    if status == "preview":
        verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
        round_enter_preview(round=w["round"], by=w["editor"])
    keys = {**keys_of(w), "round": [ROUND, "r0"], "run": ["acme-trip", "r0-other-agent", "r0-pub-agent"]}
    start = public_urls(keys) | {
        "/",
        "/api/",
        "/api/agents",
        f"/api/benchmarks/{BENCH}/bundle",
        f"/api/benchmarks/{BENCH}/ratings",
        "/vote/",
        f"/b/{BENCH}/compare/?a=acme-agent&b=other-agent",
        f"/b/{BENCH}/compare/?a=pub-agent&b=acme-agent&round=r0",
        f"/b/{BENCH}/compare/?a=pub-agent&b=other-agent&round=r0",
        f"/b/{BENCH}/compare/?a=acme-agent&b=other-agent&round={ROUND}",
    }
    pages = crawl(client, start)
    # The head-to-head of the two public agents answered, with their public vote and no word of the other.
    h2h = pages[f"/b/{BENCH}/compare/?a=pub-agent&b=other-agent&round=r0"]
    assert "Pub Agent won 1" in h2h
    # The crawl reached the places the votes were leaking through, and they answered.
    for url in (f"/api/benchmarks/{BENCH}/bundle", f"/api/benchmarks/{BENCH}/ratings", "/api/agents"):
        assert url in pages and "pub-agent" in pages[url], url
    leaks = {
        url for url, text in pages.items() if "Acme Agent" in text or ("acme-agent" in text and "acme-agent" not in url)
    }
    assert not leaks, sorted(leaks)
    # The public ratings are a fit of the one public vote: pub-agent beat other-agent.
    ratings = client.get(f"/api/benchmarks/{BENCH}/ratings").json()["data"]["all"]
    assert [(r["agent"], r["votes"]) for r in ratings] == [("pub-agent", 1), ("other-agent", 1)]


def test_an_agent_and_its_votes_become_public_with_its_first_published_entry(client, w):
    _published_round_and_votes()
    review_and_publish(w)
    _recompute_all()
    bundle = client.get(f"/api/benchmarks/{BENCH}/bundle").json()
    assert len(bundle["votes"]) == 3
    ratings = client.get(f"/api/benchmarks/{BENCH}/ratings").json()["data"]["all"]
    # acme-agent won both its votes: it now leads the public fit, with 2 votes.
    assert (ratings[0]["agent"], ratings[0]["votes"]) == ("acme-agent", 2)
