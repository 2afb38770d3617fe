"""Vote cells: the counted votes per (task, pair, outcome) move with every write that makes a vote count,
stop counting or disappear; ratings are fitted from them; `vote_cells` finds and corrects any drift; and
threads recording, maturing, flagging and clearing at once on PostgreSQL leave them equal to a fresh count."""

from __future__ import annotations

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from bundles.importer import bundle_import
from recompute import boards as recompute
from recompute.boards import compute_ratings
from scoring.bradley_terry import ratings_from_votes
from scoring.types import VoteInput
from snapshots.models import BoardSnapshot, SnapshotKind
from tests.builders.bundles import make_bundle
from tests.builders.voting import cast, cast_then_withdraw, make_user
from voting.cells import cells_differences, votes_add
from voting.models import Vote, VoteCell, VoterFlag
from voting.services.counting import votes_mature
from voting.services.editing import vote_change
from voting.services.flagging import voter_flag_clear, voters_flag
from voting.standing import standings_differences

pytestmark = pytest.mark.django_db


def _run(world, slug, task=0):
    return next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[task].id)


def _cells(world, task=0) -> dict[tuple[str, str, str], int]:
    """The task's non-empty cells as {(lower-id agent's slug, higher-id agent's slug, outcome): n}."""
    return {
        (c.agent_lo.slug, c.agent_hi.slug, c.outcome): c.n
        for c in VoteCell.objects.filter(task=world.tasks[task], n__gt=0).select_related("agent_lo", "agent_hi")
    }


def _ordered(world, x: str, y: str) -> tuple[str, str]:
    return (x, y) if world.agents[x].id < world.agents[y].id else (y, x)


def test_a_counted_vote_lands_in_one_cell_whichever_side_each_agent_was_on(world):
    voter = make_user("cells@example.com")
    lo, hi = _ordered(world, "zephyrbot", "marlinide")
    cast(voter, _run(world, lo), _run(world, hi), "a")  # lo won, lo shown as A
    cast(voter, _run(world, hi), _run(world, lo), "b")  # lo won, lo shown as B
    cast(voter, _run(world, hi), _run(world, lo), "a")  # hi won
    cast(voter, _run(world, lo), _run(world, hi), "tie")
    # Two wins for the lower id, one for the higher, one tie: 4 votes in 3 cells.
    assert _cells(world) == {(lo, hi, "lo"): 2, (lo, hi, "hi"): 1, (lo, hi, "tie"): 1}


def test_a_new_accounts_vote_enters_its_cell_only_when_it_matures(world, settings):
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    voter = make_user("young@example.com", age_hours=2)
    lo, hi = _ordered(world, "zephyrbot", "marlinide")
    cast(voter, _run(world, lo), _run(world, hi), "a")
    assert _cells(world) == {}
    assert votes_mature(now=timezone.now() + timedelta(hours=23)) == 1
    assert _cells(world) == {(lo, hi, "lo"): 1}


def test_flagging_a_voter_takes_their_votes_out_of_the_cells_and_clearing_puts_them_back(world, settings):
    settings.VOTE_FLAG_MIN_VOTES = 1
    settings.VOTE_FLAG_P_VALUE = 1.01  # every voter with a decided vote is flagged: this test is about cells
    voter = make_user("pusher@example.com")
    lo, hi = _ordered(world, "zephyrbot", "marlinide")
    # Two imported votes from the crowd (no site voter), so the fit of everyone else's votes has an order.
    votes_add([Vote(task=world.tasks[0], agent_a=world.agents[lo], agent_b=world.agents[hi], winner="a")])
    votes_add([Vote(task=world.tasks[0], agent_a=world.agents[lo], agent_b=world.agents[hi], winner="a")])
    for _ in range(3):
        cast(voter, _run(world, lo), _run(world, hi), "b")
    assert _cells(world) == {(lo, hi, "lo"): 2, (lo, hi, "hi"): 3}
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    assert _cells(world) == {(lo, hi, "lo"): 2}
    editor = make_user("editor-cells@example.com")
    assert voter_flag_clear(flag=flag, by=editor) == 3
    assert _cells(world) == {(lo, hi, "lo"): 2, (lo, hi, "hi"): 3}


def test_an_editors_correction_and_deletion_move_the_cells(world):
    from django.contrib.auth.models import Group

    editor = make_user("ed@example.com")
    editor.groups.add(Group.objects.get(name="Editors"))
    voter = make_user("v@example.com")
    lo, hi = _ordered(world, "zephyrbot", "marlinide")
    vote = cast(voter, _run(world, lo), _run(world, hi), "a")
    vote_change(vote=Vote.objects.get(pk=vote.pk), by=editor, changes={"winner": "tie"})
    assert _cells(world) == {(lo, hi, "tie"): 1}
    vote_change(vote=Vote.objects.get(pk=vote.pk), by=editor, changes={"counts": False})
    assert _cells(world) == {}
    vote_change(vote=Vote.objects.get(pk=vote.pk), by=editor, changes={"counts": True})
    vote_change(vote=Vote.objects.get(pk=vote.pk), by=editor, delete=True)
    assert _cells(world) == {}


def test_an_import_counts_new_votes_and_a_changed_counts_flag():
    doc = make_bundle(votes=[{"task": "t1", "a": "alpha", "b": "beta", "winner": "a", "id": "v1"}])
    bundle_import(doc=doc)
    assert VoteCell.objects.get().n == 1
    doc["votes"][0]["counts"] = False
    bundle_import(doc=doc)
    assert list(VoteCell.objects.filter(n__gt=0)) == []


def test_ratings_come_from_the_cells_and_equal_a_fit_of_the_votes(world):
    voter = make_user("fit@example.com")
    plan = [("zephyrbot", "marlinide", "a")] * 3 + [("marlinide", "zephyrbot", "a"), ("thistledev", "zephyrbot", "tie")]
    for a, b, w in plan:
        cast(voter, _run(world, a), _run(world, b), w)
    _, data = compute_ratings(world.benchmark.id)
    votes = [VoteInput(task=world.tasks[0].key, a=a, b=b, winner=w, counts=True) for a, b, w in plan]
    assert list(data) == ["margins", "all", "tasks"]  # how many votes hold the top place, first
    assert {k: v for k, v in data.items() if k != "margins"} == ratings_from_votes(votes)
    # The digest is over the cells: a vote that does not count changes nothing the fit reads.
    digest, _ = compute_ratings(world.benchmark.id)
    young = make_user("young-fit@example.com", age_hours=1)
    cast(young, _run(world, "zephyrbot"), _run(world, "marlinide"), "b")
    assert compute_ratings(world.benchmark.id, unless_digest=digest) == (digest, None)


def test_votes_naming_an_unpublished_agent_stay_out_of_the_public_ratings(world):
    voter = make_user("secret@example.com")
    draft_run = next(r for r in world.draft_runs if r.task_id == world.tasks[0].id)
    cast(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    # A vote on the draft agent's run (its round withdrawn since): stored and counted, not public.
    cast_then_withdraw(voter, _run(world, "zephyrbot"), draft_run, "b")
    assert sum(_cells(world).values()) == 2
    _, data = compute_ratings(world.benchmark.id)
    assert {row["agent"] for row in data["all"]} == {"zephyrbot", "marlinide"}


def test_the_command_reports_a_drifted_cell_and_corrects_it(world):
    voter = make_user("drift@example.com")
    lo, hi = _ordered(world, "zephyrbot", "marlinide")
    cast(voter, _run(world, lo), _run(world, hi), "a")
    VoteCell.objects.filter(n=1).update(n=5)  # drift behind the services' back
    with pytest.raises(CommandError, match="1 cell"):
        call_command("vote_cells", "--check", stdout=StringIO())
    out = StringIO()
    call_command("vote_cells", stdout=out)
    assert "the cell says 5, the votes say 1" in out.getvalue()
    assert _cells(world) == {(lo, hi, "lo"): 1}
    out = StringIO()
    call_command("vote_cells", "--check", stdout=out)
    assert "no difference" in out.getvalue()


@pytest.mark.postgres(reason="row locks and concurrent transactions")
@pytest.mark.django_db(transaction=True)
def test_concurrent_recording_maturing_flagging_and_clearing_lose_no_count(settings):
    """Threads on their own connections: voters cast votes while new accounts' votes mature and a voter
    is flagged and cleared over and over; at the end the cells equal a fresh count of the votes."""
    from tests.builders.voting import build_world

    world = build_world(tasks=("todo-app",), trials=1)
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    settings.VOTE_DAILY_CAP = 10_000
    settings.VOTE_FLAG_MIN_VOTES = 1
    settings.VOTE_FLAG_P_VALUE = 1.01  # flag every voter with a decided vote, again and again
    runs = list(world.runs)
    voters = [make_user(f"c{i}@example.com") for i in range(3)]
    young = [make_user(f"y{i}@example.com", age_hours=23.99) for i in range(2)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def guarded(work):
        def run():
            try:
                work()
            except BaseException as exc:  # noqa: BLE001 - reported by the main thread
                errors.append(exc)
            finally:
                connection.close()

        return run

    def voting(user, offset):
        def work():
            for i in range(25):
                a, b = runs[(i + offset) % len(runs)], runs[(i + offset + 1) % len(runs)]
                cast(user, a, b, ("a", "b", "tie")[i % 3])

        return work

    def maturing():
        while not stop.is_set():
            votes_mature(now=timezone.now() + timedelta(hours=1))

    def flagging():
        editor = make_user("editor-c@example.com")
        while not stop.is_set():
            for flag in voters_flag(benchmark_id=world.benchmark.id):
                voter_flag_clear(flag=flag, by=editor)

    workers = [threading.Thread(target=guarded(voting(u, i))) for i, u in enumerate(voters + young)]
    helpers = [threading.Thread(target=guarded(maturing)), threading.Thread(target=guarded(flagging))]
    for t in workers + helpers:
        t.start()
    for t in workers:
        t.join(120)
    stop.set()
    for t in helpers:
        t.join(120)
    assert not errors, errors
    votes_mature(now=timezone.now() + timedelta(hours=1))
    assert Vote.objects.count() == 25 * 5
    assert cells_differences() == []
    counted = Vote.objects.filter(counts=True).count()
    assert sum(VoteCell.objects.values_list("n", flat=True)) == counted
    assert counted > 0
    assert VoterFlag.objects.exists()  # the flagging thread did flag (and clear) while votes came in
    # Each voter's stored standing (today's votes, the flag) equals a fresh count, however the writes crossed.
    assert standings_differences() == []


@pytest.mark.postgres(reason="two connections: a vote committed while the refit holds the snapshot row")
@pytest.mark.django_db(transaction=True)
def test_a_vote_counted_while_the_ratings_are_fitted_is_not_left_out(monkeypatch):
    """The refit runs after a vote commits (eager Celery here) and takes seconds at scale; a vote counted
    meanwhile finds the snapshot already stale and enqueues nothing. The refit must see that its cells are
    behind and refit again, not save ratings that miss the vote and call them fresh."""
    from tests.builders.voting import build_world

    world = build_world(tasks=("todo-app",), trials=1)
    first, second = make_user("first@example.com"), make_user("second@example.com")
    real_fit = recompute.ratings_from_cells
    injected = []

    def fit_while_a_vote_arrives(cells):
        if not injected:
            injected.append(True)
            thread = threading.Thread(
                target=lambda: (
                    cast(second, _run(world, "zephyrbot"), _run(world, "marlinide"), "a"),
                    connection.close(),
                )
            )
            thread.start()
            thread.join()
        return real_fit(cells)

    monkeypatch.setattr(recompute, "ratings_from_cells", fit_while_a_vote_arrives)
    cast(first, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    assert injected
    snap = BoardSnapshot.objects.get(kind=SnapshotKind.RATINGS, benchmark=world.benchmark)
    assert snap.stale is False
    assert {row["agent"]: row["votes"] for row in snap.data["all"]} == {"zephyrbot": 2, "marlinide": 2}


def test_only_an_editor_may_change_a_vote_and_nothing_moves_when_refused(world):
    from django.core.exceptions import PermissionDenied

    voter = make_user("plain@example.com")
    lo, hi = _ordered(world, "zephyrbot", "marlinide")
    vote = cast(voter, _run(world, lo), _run(world, hi), "a")
    with pytest.raises(PermissionDenied, match=r"^Only editors may change votes\.$"):
        vote_change(vote=Vote.objects.get(pk=vote.pk), by=voter, changes={"winner": "b"})
    with pytest.raises(PermissionDenied):
        vote_change(vote=Vote.objects.get(pk=vote.pk), by=voter, delete=True)
    assert Vote.objects.get(pk=vote.pk).winner == "a" and _cells(world) == {(lo, hi, "lo"): 1}


def test_a_vote_moved_to_another_benchmarks_task_refits_the_ratings_of_both(world):
    from django.contrib.auth.models import Group

    from leaderboard.models import Benchmark, Task

    editor = make_user("mover@example.com")
    editor.groups.add(Group.objects.get(name="Editors"))
    other = Benchmark.objects.create(slug="other-bench", name="Other", methodology="checks")
    other_task = Task.objects.create(benchmark=other, key="chat-app", title="Chat")
    vote = cast(make_user("mv@example.com"), _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    for bench in (world.benchmark, other):
        BoardSnapshot.objects.update_or_create(
            benchmark=bench, round=None, kind=SnapshotKind.RATINGS, defaults={"stale": False}
        )
    vote_change(vote=Vote.objects.get(pk=vote.pk), by=editor, changes={"task_id": other_task.id})
    # The vote left the first benchmark's ratings and joined the other's: both are refit.
    stale = dict(BoardSnapshot.objects.filter(kind=SnapshotKind.RATINGS).values_list("benchmark__slug", "stale"))
    assert stale == {"appbench-t": True, "other-bench": True}


def test_a_vote_two_editors_delete_at_once_is_gone_once_without_an_error(world):
    from django.contrib.auth.models import Group

    editor = make_user("twice@example.com")
    editor.groups.add(Group.objects.get(name="Editors"))
    vote = cast(make_user("gone@example.com"), _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    first, second = Vote.objects.get(pk=vote.pk), Vote.objects.get(pk=vote.pk)
    vote_change(vote=first, by=editor, delete=True)
    vote_change(vote=second, by=editor, delete=True)  # the row is already gone: nothing to uncount twice
    assert not Vote.objects.filter(pk=vote.pk).exists() and _cells(world) == {}
    assert BoardSnapshot.objects.get(benchmark=world.benchmark, kind=SnapshotKind.RATINGS).stale


def test_ratings_fresh_without_a_counted_vote_are_refitted_by_the_sweep(
    world, monkeypatch, django_capture_on_commit_callbacks
):
    """A counted vote reads the ratings' flag with its claim and, finding them stale, marks nothing. Should a refit
    commit them fresh without that vote's cell (the vote committed after the refit's last look at the cells), they
    call themselves fresh while missing a vote: the sweep compares what they were fitted from with the cells held
    now and refits them."""
    from voting.services import counting

    with django_capture_on_commit_callbacks(execute=True):  # after commit: the (eager) refit
        cast(make_user("one@example.com"), _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    snap = BoardSnapshot.objects.get(kind=SnapshotKind.RATINGS, benchmark=world.benchmark)
    assert snap.stale is False
    assert {row["agent"]: row["votes"] for row in snap.data["all"]} == {"zephyrbot": 1, "marlinide": 1}
    # The race's outcome, made directly: a second counted vote's cell is added and the ratings are left fresh.
    monkeypatch.setattr(counting, "snapshots_mark_stale", lambda **kwargs: [])
    with django_capture_on_commit_callbacks(execute=True):
        cast(make_user("two@example.com"), _run(world, "zephyrbot"), _run(world, "marlinide"), "b")
    monkeypatch.undo()
    snap.refresh_from_db()
    assert snap.stale is False and {row["agent"]: row["votes"] for row in snap.data["all"]}["zephyrbot"] == 1

    with django_capture_on_commit_callbacks(execute=True):  # eager Celery in tests: refitted after commit
        recompute.snapshots_sweep(older_than_seconds=60)

    snap.refresh_from_db()
    assert snap.stale is False
    # Each agent is in both votes: 2 each (one win and one loss apiece).
    assert {row["agent"]: row["votes"] for row in snap.data["all"]} == {"zephyrbot": 2, "marlinide": 2}
    healed = snap.version
    with django_capture_on_commit_callbacks(execute=True):  # in step now: nothing to refit
        recompute.snapshots_sweep(older_than_seconds=60)
    snap.refresh_from_db()
    assert snap.stale is False and snap.version == healed
