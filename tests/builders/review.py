"""Test data for the review and publication tests: one small `outcomes` bundle, and people in each role.

Built through bundles.bundle_import, like any data the site holds; defaults via keyword
arguments, like a hand-written factory.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import Group, User
from django.utils import timezone

from bundles.importer import bundle_import
from leaderboard.models import Membership, Organization, Round
from runs.models import Run

SECRET_CITY = "Zanzibar-Secret-4711"
SECRET_PHONE = "+44-20-7946-0815"
TESTER_NOTE = "Tester-note: the booking page was never opened"
BENCH = "artb-t"
ROUND = "r1"


def bundle(**kw: Any) -> dict:
    due = kw.pop("due_at", (timezone.now() + timedelta(days=3)).isoformat())
    doc = {
        "benchmark": {"slug": BENCH, "name": "ARTB test", "methodology": "outcomes"},
        "agents": [
            {"slug": "acme-agent", "name": "Acme Agent", "organization": "Acme", "primary_language": "en"},
            {"slug": "other-agent", "name": "Other Agent", "organization": "Other Co", "primary_language": "en"},
        ],
        "tasks": [
            {
                "key": "trip",
                "title": "Trip plan",
                "version": "1.0",
                "kind": "core",
                "dimensions": ["planning"],
                "prompt": "Plan a weekend in {city}; call {phone} to check.",
                "parameters": ["city", "phone"],
                "criteria": {"pass": ["an itinerary"], "fail": ["no itinerary"]},
            },
            {
                "key": "inbox",
                "title": "Inbox triage",
                "version": "1.0",
                "kind": "core",
                "dimensions": ["email"],
                "prompt": "Sort my inbox.",
                "criteria": {"pass": ["sorted"]},
            },
            {
                "key": "remind",
                "title": "Reminder",
                "version": "1.0",
                "kind": "core",
                "dimensions": ["memory"],
                "prompt": "Remind me tomorrow.",
                "observes_later_effects": True,
            },
        ],
        "rounds": [
            {
                "key": ROUND,
                "name": "Round 1",
                "status": kw.pop("status", "draft"),
                "preview_started_at": kw.pop("preview_started_at", None),
                "published_at": kw.pop("published_at", None),
                "entries": [{"agent": "acme-agent", "product_version": "1.2"}, {"agent": "other-agent"}],
                "parameters": {"trip": {"city": SECRET_CITY, "phone": SECRET_PHONE}},
            }
        ],
        "runs": [
            {"id": "acme-trip", "round": ROUND, "agent": "acme-agent", "task": "trip", "status": "completed"},
            {"id": "acme-inbox", "round": ROUND, "agent": "acme-agent", "task": "inbox", "status": "completed"},
            {"id": "other-trip", "round": ROUND, "agent": "other-agent", "task": "trip", "status": "completed"},
            {
                "id": "acme-remind",
                "round": ROUND,
                "agent": "acme-agent",
                "task": "remind",
                "status": "completed",
                "due_at": due,
            },
        ],
    }
    doc.update(kw)
    return doc


def make_world(**kw: Any) -> dict:
    bundle_import(doc=bundle(**kw))
    rnd = Round.objects.get(benchmark__slug=BENCH, key=ROUND)
    return {"round": rnd, **{r.key: r for r in Run.objects.filter(round=rnd)}}


def make_user(
    username: str, *groups: str, staff: bool | None = None, org: str | None = None, password: str | None = None
) -> User:
    # No password unless asked for: hashing one is most of the cost of a test that only force_logins.
    user = User.objects.create_user(username, f"{username}@example.com", password)
    user.is_staff = bool(set(groups) & {"Editors", "Testers", "Reviewers"}) if staff is None else staff
    user.save()
    for name in groups:
        user.groups.add(Group.objects.get(name=name))
    if org is not None:
        Membership.objects.create(user=user, organization=Organization.objects.get(name=org))
    return user


def make_people() -> dict[str, User]:
    return {
        "editor": make_user("edna", "Editors"),
        "tester": make_user("tess", "Testers"),
        "tester2": make_user("toby", "Testers"),
        "second": make_user("sam", "Reviewers"),
        "third": make_user("thea", "Reviewers"),
        "reviewer3": make_user("rex", "Reviewers"),
        "vendor": make_user("vera", "Vendors", org="Acme"),
        "other_vendor": make_user("otto", "Vendors", org="Other Co"),
        "plain": make_user("pat"),
    }


def publish_world(w: dict) -> None:
    """Review every run of the world's round (tester and second agree: pass), let the vendor window run out
    and publish it, through the editor's services."""
    from runs.services import round_enter_preview, round_publish, verdict_record

    for run in Run.objects.filter(round=w["round"]):
        now = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="as seen", now=now)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=now)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=49))
    round_publish(round=Round.objects.get(pk=w["round"].pk), by=w["editor"], now=timezone.now() + timedelta(days=3))
