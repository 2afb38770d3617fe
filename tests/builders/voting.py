"""A small voting world: one app benchmark (checks methodology) with a published round of five agents from
five vendors, a draft round with a sixth agent, runs with a screenshot at an external address (never shown
blind: it is listed on the run's page) and, unless `opaque_shots=False`, one stored on the site (a small PNG of
its own per run: something a voter can be shown), and live previews at addresses that name the agent (never
framed). Every identifying string is distinctive so a test can look for it in a page."""

from __future__ import annotations

import secrets
import struct
import zlib
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.utils import timezone

from leaderboard.models import Agent, Benchmark, Entry, Membership, Organization, Round, Task, TaskVersion
from runs.models import CheckResult, Evidence, Run

AGENTS = [
    # slug, name, organization, model
    ("zephyrbot", "Zephyr Bot", "Quasar Widgets", "qmodel-x9"),
    ("marlinide", "Marlin IDE", "Pelagic Systems", "pelagic-m4"),
    ("thistledev", "Thistle Dev", "Heather Robotics", "heath-3b"),
    ("corvidcode", "Corvid Code", "Rookery Labs", "rook-7"),
    ("yarrowai", "Yarrow AI", "Milfoil Inc", "milfoil-2"),
]
DRAFT_AGENT = ("secretdraft", "Secret Draft Agent", "Hidden Vendor", "hidden-model")


@dataclass
class World:
    benchmark: Benchmark
    round: Round
    tasks: list[Task]
    agents: dict[str, Agent]
    orgs: dict[str, Organization]
    runs: list[Run] = field(default_factory=list)
    draft_runs: list[Run] = field(default_factory=list)

    def identifying_strings(self, run: Run) -> list[str]:
        entry = run.entry
        agent = entry.agent
        return [
            run.key,
            agent.slug,
            agent.name,
            agent.organization.name,
            agent.organization.slug,
            entry.model,
            run.preview_url,
            f"/{run.pk}/",
        ]


def build_world(
    *,
    tasks: tuple[str, ...] = ("todo-app", "shop-app"),
    trials: int = 2,
    with_preview: bool = True,
    opaque_shots: bool = True,
) -> World:
    bench = Benchmark.objects.create(slug="appbench-t", name="App Bench T", methodology="checks")
    rnd = Round.objects.create(
        benchmark=bench,
        key="2026-10",
        name="October",
        status="published",
        published_at=timezone.now() - timedelta(days=3),
    )
    draft = Round.objects.create(benchmark=bench, key="2026-11", name="November", status="draft")
    task_objs = []
    for pos, key in enumerate(tasks):
        # A checks task states its time limit (the model's 30 minutes) and its token budget.
        task = Task.objects.create(
            benchmark=bench,
            key=key,
            title=f"Build a {key.replace('-', ' ')}",
            position=pos,
            time_limit_min=30,
            token_budget=10_000_000,
        )
        TaskVersion.objects.create(task=task, version="1.0", prompt=f"Build the {key} with sign-in.")
        task_objs.append(task)
    world = World(bench, rnd, task_objs, {}, {})
    for slug, name, org_name, model in [*AGENTS, DRAFT_AGENT]:
        org = Organization.objects.create(slug=org_name.lower().replace(" ", "-"), name=org_name)
        agent = Agent.objects.create(slug=slug, name=name, organization=org)
        world.agents[slug], world.orgs[slug] = agent, org
        target = draft if slug == DRAFT_AGENT[0] else rnd
        entry = Entry.objects.create(round=target, agent=agent, model=model, cli=f"{slug}-cli 1.0")
        for task in task_objs:
            for trial in range(1, trials + 1):
                key = f"{target.key}-{slug}-{task.key}-t{trial}"
                run = Run.objects.create(
                    key=key,
                    round=target,
                    entry=entry,
                    task=task,
                    trial=trial,
                    app_started=True,
                    # The counts the score reads, as the checks listed below say them (every one passed, so
                    # every run is admitted where a task admits runs by its checks).
                    api_checks_passed=1,
                    api_checks_total=1,
                    browser_steps_passed=2,
                    browser_steps_total=2,
                    preview_url=f"https://{slug}-{task.key}-{trial}.preview.example.org/" if with_preview else "",
                )
                Evidence.objects.create(
                    run=run, kind="screenshot", url=f"https://media.example.org/{target.key}/{slug}/{task.key}/home.png"
                )
                if opaque_shots:
                    # A screenshot stored on the site: something a voter can be shown (through the alias).
                    shot = Evidence(run=run, kind="screenshot", caption="home")
                    shot.file.save(f"{key}-home.png", ContentFile(tiny_png(run.pk)), save=True)
                for pos, (kind, check, passed) in enumerate(
                    [
                        ("start", "starts and shows the seeded data", True),
                        ("api", "POST /api/items creates an item", True),
                        ("browser", "Sign in", True),
                        ("browser", "Add an item", True),
                    ]
                ):
                    CheckResult.objects.create(run=run, position=pos, kind=kind, name=check, passed=passed)
                (world.draft_runs if target is draft else world.runs).append(run)
    return world


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def tiny_png(seed: int) -> bytes:
    """A valid 1 x 1 PNG whose one grey pixel depends on `seed`: each run's screenshot has bytes of its own."""
    chunk = png_chunk
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1 x 1, 8-bit greyscale
    pixels = zlib.compress(bytes([0, seed % 256]))  # one row: filter byte 0, then the pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def make_user(email: str, *, age_hours: float = 72, organization: Organization | None = None, password="x"):
    user = get_user_model().objects.create_user(username=email, email=email, password=password)
    user.date_joined = timezone.now() - timedelta(hours=age_hours)
    user.save(update_fields=["date_joined"])
    if organization is not None:
        Membership.objects.create(user=user, organization=organization)
    return user


def matchup_for(voter, run_a: Run, run_b: Run, *, now=None):
    """A matchup on two chosen runs (tests that need a particular pair)."""
    from voting.models import Matchup

    now = now or timezone.now()

    return Matchup.objects.create(
        key=secrets.token_urlsafe(12),
        alias_a=secrets.token_urlsafe(12),
        alias_b=secrets.token_urlsafe(12),
        voter=voter,
        task=run_a.task,
        run_a=run_a,
        run_b=run_b,
        created_at=now,
        expires_at=now + timedelta(minutes=30),
    )


def cast(voter, run_a: Run, run_b: Run, winner: str, *, now=None):
    from voting.services.counting import vote_record

    return vote_record(key=matchup_for(voter, run_a, run_b, now=now).key, voter=voter, winner=winner, now=now)


def cast_then_withdraw(voter, run_a: Run, run_b: Run, winner: str):
    """A vote on a run of a round that is not published: the round was published when the vote was cast and
    has been withdrawn since (a vote is refused on a round that is not published at the time)."""
    unpublished = list(
        Round.objects.filter(pk__in={run_a.round_id, run_b.round_id})
        .exclude(status="published")
        .values_list("pk", "status", "published_at")
    )
    Round.objects.filter(pk__in=[pk for pk, *_ in unpublished]).update(status="published", published_at=timezone.now())
    vote = cast(voter, run_a, run_b, winner)
    for pk, status, published_at in unpublished:
        Round.objects.filter(pk=pk).update(status=status, published_at=published_at)
    return vote
