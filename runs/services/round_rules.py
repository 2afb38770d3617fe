"""The round rules (`scoring.round_rules`) asked of the stored state, by every door that writes runs, rounds,
verdicts or disputes (docs/doors.md):

- a service or an import writes inside its transaction under `round_rules_kept`, which reads the rounds it
  touches before and after the write and refuses (rolling the write back) a change that breaks a rule that held;
- an admin form asks first, before anything is written: `would_hold` is the stored round with the form's
  object in place of its stored row, and `form_refusal` the rules' answer on it.

Either way the refusal is `RoundRulesBroken` (a `ValidationError`), naming the rule, the round and each run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from django.core.exceptions import ValidationError

from leaderboard.models import Round
from scoring.round_rules import (
    Breach,
    RoundFacts,
    RunFacts,
    VerdictFacts,
    breaches_added,
    refusal_lines,
    rerun_once,
)

from ..models import Dispute, Run, Verdict


class RoundRulesBroken(ValidationError):
    """A change refused by the round rules; `breaches` are what it would break, `lines` the refusal in words."""

    def __init__(self, breaches: list[Breach]):
        self.breaches = breaches
        self.lines = refusal_lines(breaches)
        super().__init__(self.lines, code="round_rules")


def _round_row(rnd: Round) -> RoundFacts:
    bench = rnd.benchmark
    return RoundFacts(
        benchmark=bench.slug,
        key=rnd.key,
        methodology=bench.methodology,
        status=rnd.status,
        starts_on=rnd.starts_on,
        preview_started_at=rnd.preview_started_at,
        published_at=rnd.published_at,
        preview_hours=bench.preview_hours or 0,
    )


def _stored_runs(round_ids: list[int]) -> dict[int, dict[int, RunFacts]]:
    """Each round's stored runs (by run id) with their verdicts and disputes: three queries for any number."""
    verdicts: dict[int, list[VerdictFacts]] = {}
    for run_id, role, note, at in Verdict.objects.filter(run__round_id__in=round_ids).values_list(
        "run_id", "role", "note", "created_at"
    ):
        verdicts.setdefault(run_id, []).append(VerdictFacts(role, note, at))
    disputes: dict[int, list[str]] = {}
    for run_id, status in Dispute.objects.filter(run__round_id__in=round_ids).values_list("run_id", "status"):
        disputes.setdefault(run_id, []).append(status)
    out: dict[int, dict[int, RunFacts]] = {rid: {} for rid in round_ids}
    rows = Run.objects.filter(round_id__in=round_ids).values_list(
        "id", "round_id", "key", "task__key", "task_version", "status", "started_at", "due_at", "rerun_of__key", "trial"
    )
    for pk, round_id, key, task, version, status, started, due, rerun_of, trial in rows:
        out[round_id][pk] = RunFacts(
            key=key,
            task=task,
            task_version=version,
            status=status,
            started_at=started,
            due_at=due,
            rerun_of=rerun_of,
            trial=trial,
            verdicts=tuple(verdicts.get(pk, ())),
            disputes=tuple(disputes.get(pk, ())),
        )
    return out


def _by_key(runs: Iterable[RunFacts]) -> tuple[RunFacts, ...]:
    """A round's runs in the order its refusals name them: by key."""
    return tuple(sorted(runs, key=lambda r: r.key))


def rounds_facts(rounds: Iterable[Round]) -> dict[int, RoundFacts]:
    """The stored state of `rounds` (with their benchmarks loaded), by round id."""
    rounds = list(rounds)
    runs = _stored_runs([r.id for r in rounds])
    return {r.id: replace(_round_row(r), runs=_by_key(runs[r.id].values())) for r in rounds}


def _load(round_ids: Iterable[int]) -> dict[int, RoundFacts]:
    return rounds_facts(Round.objects.filter(id__in=set(round_ids)).select_related("benchmark"))


def require_rules(before: dict[int, RoundFacts], after: dict[int, RoundFacts]) -> None:
    """Refuse (`RoundRulesBroken`) when a round in `after` breaks a rule that held in `before` (a round missing
    from `before` is new: every breach counts)."""
    broken = [b for rid, facts in after.items() for b in breaches_added(before.get(rid), facts)]
    if broken:
        raise RoundRulesBroken(broken)


@contextmanager
def round_rules_kept(round_ids: Iterable[int]) -> Iterator[list[int]]:
    """Around a write inside a transaction: the rounds `round_ids` (the caller may add the ids of rounds it
    creates to the list it is given) are read before and after it; a change that breaks a rule raises
    `RoundRulesBroken`, and the caller's transaction rolls the write back."""
    ids = list(round_ids)
    before = _load(ids)
    yield ids
    require_rules(before, _load(ids))


def run_facts(run: Run) -> RunFacts:
    """An unsaved or edited run as the rules read it, with its stored verdicts and disputes."""
    stored = _stored_runs([run.round_id]).get(run.round_id, {}).get(run.pk) if run.pk else None
    original = Run.objects.filter(pk=run.rerun_of_id).values_list("key", flat=True).first() if run.rerun_of_id else None
    return RunFacts(
        key=run.key,
        task=run.task.key if run.task_id else "",
        task_version=run.task_version,
        status=run.status,
        started_at=run.started_at,
        due_at=run.due_at,
        rerun_of=original,
        trial=run.trial,
        verdicts=stored.verdicts if stored else (),
        disputes=stored.disputes if stored else (),
    )


def would_hold(rnd: Round, *, runs: Iterable[Run] = ()) -> tuple[RoundFacts | None, RoundFacts]:
    """`rnd` as stored (None: a new round) and as it would be with `rnd`'s own fields as given (an edited or
    unsaved round) and `runs` (edited or unsaved) in place of their stored rows."""
    stored = _load([rnd.pk]).get(rnd.pk) if rnd.pk else None
    runs_now: dict[int | str, RunFacts] = {}
    for pk, facts in (_stored_runs([rnd.pk])[rnd.pk] if rnd.pk else {}).items():
        runs_now[pk] = facts
    for i, run in enumerate(runs):
        runs_now[run.pk if run.pk else f"new-{i}"] = run_facts(run)
    return stored, replace(_round_row(rnd), runs=_by_key(runs_now.values()))


def form_refusal(rnd: Round, *, runs: Iterable[Run] = ()) -> list[str]:
    """What the rules would refuse of an admin form's change (`would_hold`), in words; empty when nothing."""
    before, after = would_hold(rnd, runs=runs)
    return refusal_lines(breaches_added(before, after))


def rerun_once_breaches(rnd: Round, incoming: dict[str, str], *, new: bool = False) -> list[Breach]:
    """Before an import writes re-runs (the database would refuse a second one of a run with an error): the
    re-runs of `rnd` with `incoming` (re-run key -> original key) among them, by the rule's own check
    (`scoring.round_rules.rerun_once`); a second re-run stored before this change is not this change's. An import
    writes a stored re-run again under its key; a `new` re-run (the admin's) is another run whatever its key."""
    stored = dict(Run.objects.filter(round=rnd, rerun_of__isnull=False).values_list("key", "rerun_of__key"))
    label = f"{rnd.benchmark.slug}/{rnd.key}"
    held = {b.identity for b in rerun_once(label, stored.items())}
    pairs = [*stored.items(), *incoming.items()] if new else list({**stored, **incoming}.items())
    return [b for b in rerun_once(label, pairs) if b.identity not in held]
