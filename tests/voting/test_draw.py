"""Drawing pairs server-side: who may be shown what, and which pairs come up more often."""

from __future__ import annotations

from collections import Counter
from random import Random
from types import SimpleNamespace

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from leaderboard.models import TaskVersion
from runs.models import Evidence, Run
from tests.builders.voting import make_user, tiny_png
from voting.cells import votes_add
from voting.draw.matchups import matchup_draw
from voting.models import Matchup, Vote
from voting.pool import vote_pool_retire

pytestmark = pytest.mark.django_db


def _agents(m: Matchup) -> tuple[int, int]:
    return m.run_a.entry.agent_id, m.run_b.entry.agent_id


def test_own_organization_agents_are_never_drawn(world):
    vendor = make_user("dev@quasar.example", organization=world.orgs["zephyrbot"])
    own = world.agents["zephyrbot"].id
    rng = Random(1)
    seen = Counter()
    for _ in range(150):
        m = matchup_draw(voter=vendor, rng=rng)
        seen.update(_agents(m))
    assert own not in seen
    assert len(seen) == 4  # every other published agent comes up


def test_own_organization_agents_are_never_shown_on_the_page(client, world):
    vendor = make_user("dev@pelagic.example", organization=world.orgs["marlinide"])
    client.force_login(vendor)
    for _ in range(40):
        html = client.get(reverse("vote")).content.decode()
        m = Matchup.objects.filter(voter=vendor).latest("id")
        assert world.agents["marlinide"].id not in _agents(m)
        revealed = client.post(reverse("vote_cast", args=[m.key]), {"winner": "tie"}, HTTP_HX_REQUEST="true")
        assert "Marlin IDE" not in html + revealed.content.decode()


def test_a_voter_who_joins_an_organization_stops_seeing_its_agents_at_once(client, world):
    # The organization comes with the voter's stored standing but is never stored in it: it is read with the
    # standing on every screen and vote, so a membership made after the standing was stored counts from the
    # next draw on (the screen's own and the one made with each htmx vote).
    from leaderboard.models import Membership

    voter = make_user("joins@example.com")
    client.force_login(voter)
    client.get(reverse("vote"))  # the voter's standing stored, before the membership
    Membership.objects.create(user=voter, organization=world.orgs["marlinide"])
    Matchup.objects.filter(voter=voter, used_at__isnull=True).delete()
    for _ in range(30):
        client.get(reverse("vote"))
        m = Matchup.objects.filter(voter=voter).latest("id")
        assert world.agents["marlinide"].id not in _agents(m)
        client.post(reverse("vote_cast", args=[m.key]), {"winner": "a"}, HTTP_HX_REQUEST="true")
        assert world.agents["marlinide"].id not in _agents(Matchup.objects.filter(voter=voter).latest("id"))


def test_a_pair_is_two_different_agents_of_one_task_from_published_rounds(voter, world):
    draft_ids = {r.id for r in world.draft_runs}
    rng = Random(2)
    for _ in range(100):
        m = matchup_draw(voter=voter, rng=rng)
        a, b = _agents(m)
        assert a != b
        assert m.run_a.task_id == m.run_b.task_id == m.task_id
        assert m.run_a_id not in draft_ids and m.run_b_id not in draft_ids
        assert m.run_a.round.is_published and m.run_b.round.is_published


def test_superseded_and_failed_runs_are_not_drawn(voter, world):
    broken = world.runs[0]
    broken.status = "infra_error"
    broken.save()
    rng = Random(3)
    drawn = set()
    for _ in range(200):
        m = matchup_draw(voter=voter, rng=rng)
        drawn |= {m.run_a_id, m.run_b_id}
    assert broken.id not in drawn


def test_pairs_with_fewer_votes_are_favoured(voter, world):
    task = world.tasks[0]
    a, b = world.agents["zephyrbot"], world.agents["marlinide"]
    votes_add([Vote(task=task, agent_a=a, agent_b=b, winner="a") for _ in range(20)])
    rng = Random(4)
    pairs = Counter()
    for _ in range(300):
        m = matchup_draw(voter=voter, scope=f"{world.benchmark.slug}/{task.key}", rng=rng)
        pairs[frozenset(_agents(m))] += 1
    busy = pairs[frozenset((a.id, b.id))]
    others = [n for p, n in pairs.items() if p != frozenset((a.id, b.id))]
    assert busy < 5  # weight 1/441 of an unvoted pair's
    assert min(others) > 12


def test_the_pair_just_seen_is_not_drawn_again_straight_away(voter, world):
    rng = Random(5)
    scope = f"{world.benchmark.slug}/{world.tasks[0].key}"
    last = None
    for _ in range(100):
        m = matchup_draw(voter=voter, scope=scope, rng=rng)
        pair = frozenset(_agents(m))
        assert pair != last
        last = pair


def test_any_task_covers_every_task(voter, world):
    rng = Random(6)
    tasks = {matchup_draw(voter=voter, rng=rng).task_id for _ in range(100)}
    assert tasks == {t.id for t in world.tasks}


def test_only_counted_runs_whose_app_started_and_was_admitted_are_drawn(voter, world):
    # Seed 003: the checks "admit the run (it starts, it shows the data)"; a run that does not count in the
    # rankings has nothing fair to show either.
    todo, shop = world.tasks
    shop.kind = "invent"
    shop.token_budget = 1000
    shop.save()
    todo_runs = [r for r in world.runs if r.task_id == todo.id]
    shop_runs = [r for r in world.runs if r.task_id == shop.id]
    never_started, went_over = todo_runs[0], todo_runs[1]
    never_started.app_started = False
    never_started.save()
    went_over.status = "over_budget"
    went_over.save()
    not_admitted, over_by_own_numbers = shop_runs[0], shop_runs[1]
    not_admitted.api_checks_passed, not_admitted.api_checks_total = 1, 2
    not_admitted.save()
    over_by_own_numbers.tokens_input, over_by_own_numbers.tokens_output = 1200, None  # known 1,200 > 1,000
    over_by_own_numbers.save()
    excluded = {never_started.id, went_over.id, not_admitted.id, over_by_own_numbers.id}
    rng = Random(5)
    drawn = set()
    for task in (todo, shop):  # task by task: with any task, the invent task is drawn first
        for _ in range(150):
            m = matchup_draw(voter=voter, scope=f"{world.benchmark.slug}/{task.key}", rng=rng)
            drawn |= {m.run_a_id, m.run_b_id}
    assert not drawn & excluded
    assert len(drawn) == len(world.runs) - 4  # every other run still comes up


class _WeightsSeen(Random):
    """A seeded generator that also keeps the weights each draw was made with (the draw itself is unchanged)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[tuple[list, list]] = []

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        self.seen.append((list(population), list(weights or [])))
        return super().choices(population, weights, cum_weights=cum_weights, k=k)


def test_a_pair_s_draw_weight_falls_with_the_square_of_its_votes(voter, world):
    # Rule: weight 1 / (1 + votes on that pair in that task)^2. In one task of five agents (10 pairs):
    # zephyrbot-marlinide has 3 votes -> 1 / 4^2 = 1/16; zephyrbot-thistledev 1 vote -> 1 / 2^2 = 1/4
    # (votes either way round count for the pair); the other 8 pairs none -> 1. Linear weights would give
    # 1/4 and 1/2. Over the draws, the 3-vote pair comes up 1/16 / (8 + 1/4 + 1/16) = 1/133 of the time.
    task = world.tasks[0]
    z, m, t = (world.agents[s] for s in ("zephyrbot", "marlinide", "thistledev"))
    votes_add(
        [Vote(task=task, agent_a=z, agent_b=m, winner="a"), Vote(task=task, agent_a=m, agent_b=z, winner="b")]
        + [Vote(task=task, agent_a=z, agent_b=m, winner="tie"), Vote(task=task, agent_a=t, agent_b=z, winner="a")]
    )
    rng = _WeightsSeen(6)
    matchup_draw(voter=voter, scope=f"{world.benchmark.slug}/{task.key}", rng=rng)
    (population, weights), *_ = rng.seen
    by_pair = {frozenset(c[1:]): w for c, w in zip(population, weights, strict=True)}
    assert len(by_pair) == 10 and {c[0] for c in population} == {task.id}
    assert by_pair[frozenset((z.id, m.id))] == 1 / 16
    assert by_pair[frozenset((z.id, t.id))] == 1 / 4
    assert sorted(w for p, w in by_pair.items() if p not in ({z.id, m.id}, {z.id, t.id})) == [1.0] * 8


def test_a_run_with_nothing_to_show_is_never_drawn(voter, world):
    # Its only screenshot is an external address (listed on its public page) and its preview address names the
    # agent, so neither may be shown blind.
    todo = world.tasks[0]
    blank = [r for r in world.runs if r.task_id == todo.id and r.entry.agent.slug == "zephyrbot"]
    Evidence.objects.filter(run__in=blank, file__gt="").delete()
    rng = Random(8)
    drawn = set()
    for _ in range(200):
        m = matchup_draw(voter=voter, scope=f"{world.benchmark.slug}/{todo.key}", rng=rng)
        drawn |= {m.run_a_id, m.run_b_id}
    assert not drawn & {r.id for r in blank}
    assert len(drawn) == len([r for r in world.runs if r.task_id == todo.id]) - len(blank)


def _only_two_live_previews(world, suffix: str = "") -> list[Run]:
    """Leave nothing to show but a preview address (ending in `suffix`) on the first task's runs of two agents."""
    Evidence.objects.filter(file__gt="").delete()
    todo = world.tasks[0]
    live = [r for r in world.runs if r.task_id == todo.id and r.entry.agent.slug in ("zephyrbot", "marlinide")]
    for run in live:
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq{suffix}/"
        run.save()
    return live


def test_a_run_with_only_an_opaque_preview_address_is_drawn(voter, world):
    live = _only_two_live_previews(world)
    rng = Random(9)
    drawn = set()
    for _ in range(50):
        m = matchup_draw(voter=voter, rng=rng)
        drawn |= {m.run_a_id, m.run_b_id}
    assert drawn == {r.id for r in live}


def test_an_organization_renamed_to_a_word_its_preview_address_holds_stops_its_run_being_drawn_at_once(
    voter, world, django_capture_on_commit_callbacks
):
    # Whether a preview address names the agent depends on its organization's name (`url_is_opaque`), which
    # the shared vote pool has already judged: the editor's rename (the service the admin calls) retires the
    # pool once it commits.
    from leaderboard.services import organization_update

    _only_two_live_previews(world, suffix="-kestrel")
    rng = Random(10)
    assert matchup_draw(voter=voter, rng=rng) is not None  # the pool is now shared, both runs in it
    from django.contrib.auth.models import User

    editor = User.objects.create_superuser("org-editor", password="x")
    with django_capture_on_commit_callbacks(execute=True):
        organization_update(
            organization=world.orgs["zephyrbot"],
            by=editor,
            changes={"name": "Kestrel", "slug": "kestrel"},
            reason="the vendor renamed itself",
        )
    # One agent is left with an address that names nothing: there is no pair to draw.
    for _ in range(20):
        assert matchup_draw(voter=voter, rng=rng) is None


def test_invent_and_startup_tasks_are_drawn_before_to_spec_tasks(voter, world):
    todo, shop = world.tasks
    shop.kind = "startup"
    shop.save()
    rng = Random(10)
    assert {matchup_draw(voter=voter, rng=rng).task_id for _ in range(60)} == {shop.id}
    assert {matchup_draw(voter=voter, scope=world.benchmark.slug, rng=rng).task_id for _ in range(30)} == {shop.id}
    # With no pair left in the startup task (one agent only), the to-spec task is drawn.
    Run.objects.filter(task=shop).exclude(entry__agent__slug="zephyrbot").update(app_started=False)
    assert {matchup_draw(voter=voter, rng=rng).task_id for _ in range(30)} == {todo.id}


def test_once_a_voter_has_voted_on_every_startup_pair_the_to_spec_pairs_come_up(voter, world):
    # The startup task has 5 agents the voter may see: 5 x 4 / 2 = 10 pairs. With 9 voted on (either side as
    # A), only the tenth is drawn; with all 10 voted on, only the to-spec task's pairs; another voter still
    # gets the startup pairs.
    from itertools import combinations

    todo, shop = world.tasks
    shop.kind = "startup"
    shop.save()
    agents = sorted({r.entry.agent for r in world.runs}, key=lambda a: a.slug)
    pairs = list(combinations(agents, 2))
    assert len(pairs) == 10
    votes_add(
        [Vote(task=shop, agent_a=b, agent_b=a, winner="a", voter=voter) for a, b in pairs[:5]]
        + [Vote(task=shop, agent_a=a, agent_b=b, winner="tie", voter=voter) for a, b in pairs[5:9]]
    )
    rng = Random(13)
    last = {pairs[9][0].id, pairs[9][1].id}
    for _ in range(15):
        m = matchup_draw(voter=voter, rng=rng)
        assert m.task_id == shop.id and {m.run_a.entry.agent_id, m.run_b.entry.agent_id} == last
    votes_add([Vote(task=shop, agent_a=pairs[9][0], agent_b=pairs[9][1], winner="b", voter=voter)])
    assert {matchup_draw(voter=voter, rng=rng).task_id for _ in range(30)} == {todo.id}
    other = make_user("other@example.com")
    assert {matchup_draw(voter=other, rng=rng).task_id for _ in range(20)} == {shop.id}
    # With no to-spec pair to fall back on (the voter picks the startup task), its pairs come up again.
    scope = f"{world.benchmark.slug}/{shop.key}"
    assert {matchup_draw(voter=voter, scope=scope, rng=rng).task_id for _ in range(10)} == {shop.id}


def test_a_run_under_an_older_major_version_of_its_task_is_not_drawn(voter, world):
    # The screen shows the task's current wording; a run made under an older major version answered another
    # prompt (it is stale), so it is never put beside one that answered this one. A minor version changes
    # nothing.
    todo = world.tasks[0]
    scope = f"{world.benchmark.slug}/{todo.key}"
    old = [r for r in world.runs if r.task_id == todo.id and r.entry.agent.slug == "zephyrbot"]
    TaskVersion.objects.create(task=todo, version="2.0", prompt="Build the todo-app with sign-in and tags.")
    TaskVersion.objects.create(task=todo, version="2.1", prompt="Build the todo-app with sign-in and tags.")
    todo.version = "2.1"
    todo.save()
    Run.objects.filter(task=todo).exclude(pk__in=[r.pk for r in old]).update(task_version="2.0")
    vote_pool_retire()  # the queryset update sends no signal
    rng = Random(14)
    drawn = set()
    for _ in range(100):
        m = matchup_draw(voter=voter, scope=scope, rng=rng)
        drawn |= {m.run_a_id, m.run_b_id}
    assert drawn == {r.id for r in world.runs if r.task_id == todo.id} - {r.id for r in old}


def test_a_round_withdrawn_by_a_write_that_sends_no_signal_is_never_drawn_from_the_shared_pool(voter, world):
    # The pool of drawable runs is shared between requests (voting.pool). A queryset update sends no signal,
    # so the pool is not retired; the draw's check of the two picked runs against the database must still keep
    # every run of a round that is no longer published off the screen.
    from leaderboard.models import Round

    rng = Random(11)
    assert matchup_draw(voter=voter, rng=rng) is not None  # the pool is now cached with the round's runs
    Round.objects.filter(pk=world.round.pk).update(status="draft")
    for _ in range(20):
        assert matchup_draw(voter=voter, rng=rng) is None


def test_a_screenshot_added_after_the_pool_was_shared_makes_its_run_drawable_at_once(
    voter, world, django_capture_on_commit_callbacks
):
    todo = world.tasks[0]
    scope = f"{world.benchmark.slug}/{todo.key}"
    blank = [r for r in world.runs if r.task_id == todo.id and r.entry.agent.slug == "zephyrbot"]
    Evidence.objects.filter(run__in=blank, file__gt="").delete()
    rng = Random(12)
    drawn = set()
    for _ in range(60):
        m = matchup_draw(voter=voter, scope=scope, rng=rng)
        drawn |= {m.run_a_id, m.run_b_id}
    assert not drawn & {r.id for r in blank}
    # As the admin adds one: the evidence inline saves it, then tells the service (`run_related_changed`),
    # which retires the pool once it commits.
    from django.contrib.auth.models import User

    from runs.services import run_related_changed

    Evidence(run=blank[0], kind="screenshot").file.save("home.png", ContentFile(tiny_png(81)), save=True)
    editor = User.objects.create_superuser("shot-editor", password="x")
    with django_capture_on_commit_callbacks(execute=True):
        run_related_changed(run=blank[0], by=editor, what=["1 evidence added"], reason="a screenshot was missing")
    for _ in range(200):
        m = matchup_draw(voter=voter, scope=scope, rng=rng)
        drawn |= {m.run_a_id, m.run_b_id}
    assert blank[0].id in drawn


def test_the_draw_s_check_of_two_runs_follows_the_draw_rules_in_every_state(world):
    # voting.draw.rules.drawable_run_ids is the draw rules' database part (`drawable`, the one definition) plus the
    # own-organization rule. Put runs in every state those rules read and check each by hand.
    from voting.draw.rules import drawable_run_ids

    runs = [r for r in world.runs if r.task_id == world.tasks[0].id]
    draft = world.draft_runs[0]
    states = [
        {"status": "completed", "app_started": None},
        {"status": "timeout", "app_started": True},
        {"status": "budget_exhausted", "app_started": True},
        {"status": "not_started", "app_started": None},  # counted by the checks, but has no app to show
        {"status": "over_budget", "app_started": True},
        {"status": "infra_error", "app_started": True},
        {"status": "completed", "app_started": False},
    ]
    for run, values in zip(runs, states, strict=False):
        Run.objects.filter(pk=run.pk).update(**values)
    rerun = Run.objects.create(
        key=f"{runs[0].key}-rerun",
        round=runs[0].round,
        entry=runs[0].entry,
        task=runs[0].task,
        trial=9,
        rerun_of=runs[0],
    )
    candidates = [r.id for r in runs] + [rerun.id, draft.id]
    task_id = world.tasks[0].id
    voter = SimpleNamespace(is_authenticated=False)
    # The superseded run, the draft round's run and the failed or unstarted ones are left out.
    # The checks draw completed, timeout and budget-exhausted runs (scoring.checks.COUNTED without not_started).
    found = drawable_run_ids(voter=voter, task_id=task_id, run_ids=candidates)
    assert found == {runs[1].id, runs[2].id, rerun.id, *[r.id for r in runs[7:]]}
    # A voter of runs[1]'s organization is never drawn its own agent's runs.
    own = runs[1].entry.agent
    member = SimpleNamespace(is_authenticated=True, membership=SimpleNamespace(organization_id=own.organization_id))
    mine = {r.id for r in [*runs, rerun] if r.entry.agent_id == own.id}
    assert runs[1].id in mine and drawable_run_ids(voter=member, task_id=task_id, run_ids=candidates) == found - mine
