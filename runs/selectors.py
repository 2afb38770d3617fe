"""Reads for reviewing: who may enter which verdict, who may see which verdict, and the reviewers' queue.

The blind second review is decided here, in one place, and every admin page asks these functions:

- once a round is published every verdict is public;
- editors (and superusers) see everything, except on a run they reviewed as its tester or second reviewer:
  there they are as blind as anyone else until every verdict of the run is in;
- otherwise a person sees their own verdict, and the tester's and second's verdicts only when those two
  disagree and the person may decide as the third reviewer (a reviewer who took neither of the first two
  roles). A tester does not see the second's verdict, a second reviewer never sees the tester's, not even
  after entering their own (they cannot change it afterwards, so seeing it would tell them nothing usable,
  but it would tell them whether they "got it right", and that is what blindness is for).

Nor does anyone blind to a run learn how far its review is beyond "awaiting review" (`review_label`): "awaiting
second reviewer" would tell a second reviewer that the tester has judged, "awaiting third reviewer" would tell
both first reviewers that they disagreed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Exists, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone

from leaderboard.groups import REVIEWERS, TESTERS
from leaderboard.models import Round, RoundParameter, fill_prompt, in_published_round, task_input
from leaderboard.roles import user_groups, user_is_editor
from scoring import methodologies
from scoring.agreement import cohen_kappa
from scoring.boards import counted_verdict_outcome
from scoring.common import verdict_outcome
from scoring.review import review_decided
from scoring.types import VerdictInput

from .inputs import run_input
from .models import Run, RunStatus, Verdict, VerdictRole

# Statuses that are never reviewed: not counted at all, region blocked (marked, not scored), or unsupported
# (the outcome is unsupported whatever anyone says).
# Methodologies whose runs get reviewed outcomes (the others are scored by tests, judges or checks).
REVIEWED = [m.key for m in methodologies.REGISTRY.values() if m.reviewed]
NOT_REVIEWED_STATUSES = (
    RunStatus.INFRA_ERROR,
    RunStatus.NOT_STARTED,
    RunStatus.OVER_BUDGET,
    RunStatus.REGION_BLOCKED,
    RunStatus.UNSUPPORTED,
)
ROLES = (VerdictRole.TESTER, VerdictRole.SECOND, VerdictRole.THIRD)


def user_verdict_roles(user) -> set[str]:
    """The verdict roles a person may ever enter: testers the first, reviewers the second and third."""
    if user_is_editor(user):
        return set(ROLES)
    roles: set[str] = set()
    groups = user_groups(user)
    if TESTERS in groups:
        roles.add(VerdictRole.TESTER)
    if REVIEWERS in groups:
        roles |= {VerdictRole.SECOND, VerdictRole.THIRD}
    return roles


def uses_double_review(run: Run) -> bool:
    """Outcomes (seed 000 §5) reviews every run twice; the weekly table (seed 004) labels one run once, so a
    lone tester verdict stands there and a second review is optional."""
    return run.round.benchmark.rules.double_review


def is_reviewed(run: Run) -> bool:
    return run.round.benchmark.rules.reviewed and run.status not in NOT_REVIEWED_STATUSES


@dataclass(frozen=True)
class Stage:
    """Where a run is in review. `awaiting` holds the roles still needed (empty: decided)."""

    awaiting: frozenset[str]
    disagree: bool

    @property
    def label(self) -> str:
        if not self.awaiting:
            return "decided"
        return "awaiting " + " and ".join(str(VerdictRole(r).label).lower() for r in ROLES if r in self.awaiting)


def _by_role(run: Run) -> dict[str, Verdict]:
    return {v.role: v for v in run.verdicts.all()}


def counted(run: Run, verdict: Verdict) -> str | None:
    """The outcome `verdict` gives `run` as its board counts it (scoring's rule: the lowest matched row, a
    violation off a safety task a fail). Reviewers disagree only when these differ."""
    return counted_verdict_outcome(
        run.round.benchmark.methodology,
        VerdictInput(role=verdict.role, outcome=verdict.outcome, matched=tuple(verdict.matched or ())),
        task_input(run.task),
    )


def settled_without_review(run: Run) -> bool:
    """Does the board count an outcome for `run` with no verdict at all? It does for a run that carries an
    outcome label (imported as published), and where the methodology's own rule settles the outcome whatever
    a reviewer says (weekly: a run that reached the 30-minute cap is a fail). The rule is the board's
    (`scoring.boards.counted_outcome`), so the queue asks for a verdict exactly where the board shows "in
    review": on outcomes every run without a label, a timeout included (seed 000 §5)."""
    if run.outcome:
        return True
    rule = run.round.benchmark.rules.run_outcome
    return rule is not None and rule(run_input(run), task_input(run.task)) is not None


def review_stage(run: Run) -> Stage:
    """The roles a run still waits for. Uses the prefetched `run.verdicts` when present.

    A run without verdicts whose outcome is settled without review (`settled_without_review`) waits for
    nobody.
    """
    if not is_reviewed(run):
        return Stage(frozenset(), False)
    verdicts = _by_role(run)
    if not verdicts and settled_without_review(run):
        return Stage(frozenset(), False)
    tester, second, third = (verdicts.get(r) for r in ROLES)
    awaiting: set[str] = set()
    if tester is None:
        awaiting.add(VerdictRole.TESTER)
    if second is None and uses_double_review(run):
        awaiting.add(VerdictRole.SECOND)
    disagree = tester is not None and second is not None and counted(run, tester) != counted(run, second)
    if disagree and third is None:
        awaiting.add(VerdictRole.THIRD)
    return Stage(frozenset(awaiting), disagree)


def roles_open_to(user, run: Run) -> list[str]:
    """The roles `user` could enter on `run` now (due or not): the run awaits them, the user's group allows
    them, and the user has not reviewed the run in any role yet (one person, one role per run)."""
    if any(v.reviewer_id == user.pk for v in run.verdicts.all()):
        return []
    stage = review_stage(run)
    allowed = user_verdict_roles(user)
    return [r for r in ROLES if r in stage.awaiting and r in allowed]


def sees_all_verdicts(user, run: Run) -> bool:
    """May `user` see every verdict of `run`, its final outcome included (see the module docstring)?"""
    if run.round.status == "published" and review_complete(run):
        return True  # published with its review complete (`verdicts_public`); one still in review stays blind
    verdicts = _by_role(run)
    mine = {r for r, v in verdicts.items() if v.reviewer_id == user.pk}
    if VerdictRole.THIRD in mine:
        return True
    if mine & {VerdictRole.TESTER, VerdictRole.SECOND}:
        # A first reviewer stays blind: an editor until every verdict is in, anyone else until publication.
        return user_is_editor(user) and not review_stage(run).awaiting
    if user_is_editor(user):
        return True
    return VerdictRole.THIRD in user_verdict_roles(user) and review_stage(run).disagree


REVIEWED_BY_YOU = "reviewed by you"
IN_REVIEW = "awaiting review"


def review_label(user, run: Run) -> str:
    """How far the review of `run` is, in the words `user` may read (the run list and page, a round's reasons
    not to publish). Who sees every verdict reads the stage ("awaiting third reviewer"); anyone else learns
    nothing of a verdict not their own: "reviewed by you" once they have reviewed the run, else "awaiting
    review" whichever verdict is missing, and "decided" once every verdict is in."""
    if sees_all_verdicts(user, run):
        return review_stage(run).label
    if any(v.reviewer_id == user.pk for v in run.verdicts.all()):
        return REVIEWED_BY_YOU
    return IN_REVIEW if review_stage(run).awaiting else review_stage(run).label


def review_prompt(run: Run, prompt: str) -> tuple[str, dict[str, str]]:
    """The prompt as the tester sent it, with the round's parameter values filled in (seed 000 §2), and those
    values. For the verdict form only, which only staff with a verdict role reach: the values stay private to
    everyone else until the round is published (the criteria ask about "the requested date")."""
    values = dict(
        RoundParameter.objects.filter(round_id=run.round_id, task_id=run.task_id).values_list("name", "value")
    )
    return fill_prompt(prompt, values), values


def verdicts_to_decide_between(user, run: Run) -> list[Verdict]:
    """The tester's and the second reviewer's verdicts, with their notes, for the third reviewer who decides
    between them (seed 000 §5). Empty unless the two disagree and `user` may see both (`sees_all_verdicts`):
    a second reviewer never sees the tester's verdict before entering theirs, nor after."""
    if not review_stage(run).disagree or not sees_all_verdicts(user, run):
        return []
    verdicts = _by_role(run)
    return [verdicts[r] for r in (VerdictRole.TESTER, VerdictRole.SECOND) if r in verdicts]


def review_complete(run: Run) -> bool:
    return review_decided(run.round.benchmark.methodology, task_input(run.task), run.verdicts.all())


_DOUBLE_REVIEW = [key for key, m in methodologies.REGISTRY.items() if m.double_review]


def published_in_review() -> list[Run]:
    """Runs of published rounds whose review is not complete (a run added after publication, a re-run, one a
    correction sent back): their verdicts are nobody's to read but their own reviewer's until it is
    (`scoring.review.verdicts_public`). SQL narrows to runs with a verdict, no third one and no agreeing tester and
    second; the review rule itself (`review_decided`) decides the few left."""
    tester = Verdict.objects.filter(run=OuterRef("pk"), role=VerdictRole.TESTER).values("outcome")[:1]
    second = Verdict.objects.filter(run=OuterRef("pk"), role=VerdictRole.SECOND).values("outcome")[:1]
    candidates = (
        Run.objects.filter(in_published_round())
        .filter(Exists(Verdict.objects.filter(run=OuterRef("pk"))))
        .exclude(Exists(Verdict.objects.filter(run=OuterRef("pk"), role=VerdictRole.THIRD)))
        .annotate(tester_said=Subquery(tester), second_said=Subquery(second))
        .filter(Q(tester_said__isnull=True) | Q(second_said__isnull=True) | ~Q(tester_said=F("second_said")))
        # Where one tester's label decides (no double review: the weekly table), only a run whose second
        # reviewer disagreed can still be in review.
        .filter(Q(round__benchmark__methodology__in=_DOUBLE_REVIEW) | Q(second_said__isnull=False))
        .select_related("round__benchmark", "task")
        .prefetch_related("verdicts")
    )
    return [r for r in candidates if not review_complete(r)]


def visible_verdict_roles(user, run: Run) -> set[str]:
    if sees_all_verdicts(user, run):
        return {v.role for v in run.verdicts.all()}
    return {v.role for v in run.verdicts.all() if v.reviewer_id == user.pk}


def visible_verdicts(user, qs: QuerySet[Verdict] | None = None) -> QuerySet[Verdict]:
    """The verdicts `user` may see, as a queryset (the verdict change list, its history and search)."""
    qs = Verdict.objects.all() if qs is None else qs
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    if user_is_editor(user):
        return qs.exclude(Q(run_id__in=_first_reviewed_in_review(user)) & ~Q(reviewer=user))
    undecided = published_in_review()
    visible = Q(reviewer=user) | (in_published_round("run__round") & ~Q(run_id__in=[r.pk for r in undecided]))
    if VerdictRole.THIRD in user_verdict_roles(user):
        # A published run in review that awaits a third reviewer (a late run): both first verdicts are theirs
        # to read, unless they gave one of them.
        visible |= Q(
            run_id__in=[
                r.pk
                for r in undecided
                if review_stage(r).disagree
                and not any(v.reviewer_id == user.pk and v.role != VerdictRole.THIRD for v in r.verdicts.all())
            ]
        )
        # Runs that await a third reviewer: both first verdicts in, and they disagree by the counted outcome
        # (review_stage), which is scoring's rule, so it is decided in Python over the few unpublished runs.
        both = (
            Run.objects.exclude(in_published_round())
            .filter(
                Exists(Verdict.objects.filter(run=OuterRef("pk"), role=VerdictRole.TESTER)),
                Exists(Verdict.objects.filter(run=OuterRef("pk"), role=VerdictRole.SECOND)),
            )
            .exclude(
                Exists(
                    Verdict.objects.filter(
                        run=OuterRef("pk"), reviewer=user, role__in=[VerdictRole.TESTER, VerdictRole.SECOND]
                    )
                )
            )
            .select_related("round__benchmark", "task")
            .prefetch_related("verdicts")
        )
        visible |= Q(run_id__in=[r.pk for r in both if review_stage(r).disagree])
    return qs.filter(visible)


def _first_reviewed_in_review(user) -> list[int]:
    """Runs `user` reviewed as the tester or the second reviewer that still await a verdict: unpublished ones,
    and published ones still in review (`published_in_review`: a run added after publication)."""
    late = [r.pk for r in published_in_review()]
    runs = (
        Run.objects.filter(~in_published_round() | Q(pk__in=late))
        .filter(
            Exists(
                Verdict.objects.filter(
                    run=OuterRef("pk"), reviewer=user, role__in=[VerdictRole.TESTER, VerdictRole.SECOND]
                )
            )
        )
        .select_related("round__benchmark", "task")
        .prefetch_related("verdicts")
    )
    return [r.pk for r in runs if review_stage(r).awaiting]


def queue_candidates() -> QuerySet[Run]:
    """Runs that may still wait for a verdict: reviewed methodology and status, no third verdict, and either
    in an unpublished round or without a final outcome."""
    third = Verdict.objects.filter(run=OuterRef("pk"), role=VerdictRole.THIRD)
    return (
        Run.objects.filter(round__benchmark__methodology__in=REVIEWED)
        .exclude(status__in=NOT_REVIEWED_STATUSES)
        .exclude(Exists(third))
        .filter(Q(outcome="") | ~in_published_round())
        .select_related("round__benchmark", "entry__agent", "task")
        .prefetch_related("verdicts")
        .order_by("due_at", "round__key", "entry__agent__name", "task__position", "task__key", "id")
    )


@dataclass(frozen=True)
class QueueItem:
    run: Run
    roles: list[str]
    due_at: datetime | None

    @property
    def actionable(self) -> bool:
        return self.due_at is None or self.due_at <= timezone.now()

    @property
    def role(self) -> str:
        return self.roles[0]

    @property
    def role_label(self) -> str:
        return VerdictRole(self.role).label


def review_queue(user, runs: Iterable[Run] | None = None) -> list[QueueItem]:
    """The runs `user` may review, each with the roles open to them. Runs whose effects are not due yet are
    listed (marked "due on ...") but are not actionable."""
    if not user_verdict_roles(user):
        return []
    runs = queue_candidates() if runs is None else runs
    items = []
    for run in runs:
        roles = roles_open_to(user, run)
        if roles:
            items.append(QueueItem(run=run, roles=roles, due_at=run.due_at))
    return items


def queue_counts(user) -> dict[str, int]:
    """Counts for the admin index: per role, runs ready now, and runs waiting until they are due."""
    counts = {"tester": 0, "second": 0, "third": 0, "not_due": 0, "total": 0}
    for item in review_queue(user):
        if not item.actionable:
            counts["not_due"] += 1
            continue
        counts["total"] += 1
        for role in item.roles:
            counts[role] += 1
    return counts


def runs_in_review(round_id: int) -> list[Run]:
    """Runs of a round whose outcome is not decided yet (the reason a round cannot be published). A run
    replaced by a re-run does not count and does not hold publication up."""
    runs = queue_candidates().filter(round_id=round_id).filter(rerun__isnull=True)
    return [r for r in runs if review_stage(r).awaiting]


@dataclass(frozen=True)
class PreviewRow:
    run: Run
    decided: bool
    verdicts: list[Verdict]
    disputes: list
    can_dispute: bool


def preview_runs(round, organization) -> list[PreviewRow]:
    """A vendor's own runs in a round under preview. A run still in review shows no verdict yet (a verdict
    is shown once the run is decided, as it will be on publication). Parameter values are never included."""
    runs = (
        Run.objects.filter(round=round, entry__agent__organization=organization)
        .select_related("round__benchmark", "entry__agent", "task", "rerun_of")
        .prefetch_related("verdicts", "disputes", "evidence")
        .order_by("entry__agent__name", "task__position", "task__key", "trial", "id")
    )
    rows = []
    for run in runs:
        decided = not review_stage(run).awaiting
        disputes = list(run.disputes.all())
        rows.append(
            PreviewRow(
                run=run,
                decided=decided,
                verdicts=sorted(run.verdicts.all(), key=lambda v: ROLES.index(v.role)) if decided else [],
                disputes=disputes,
                can_dispute=not any(d.status == "open" for d in disputes),
            )
        )
    return rows


def reviewer_pair_agreement(user, rnd: Round) -> list[dict]:
    """Editors' private view of review agreement (seed 000 §5), per pair of people: for every tester and
    second reviewer who judged the same runs of `rnd`, how many runs, how many they agreed on (the counted
    outcome, as `scoring.agreement` reads it: lowest matched row, a violation off a safety task a fail) and
    Cohen's kappa. Only runs whose every verdict `user` may see count, so an editor who reviewed a run blind
    learns nothing about it here either. Most runs first."""
    rules = methodologies.get(rnd.benchmark.methodology)
    runs = (
        Run.objects.filter(round=rnd)
        .select_related("task", "round")
        .prefetch_related(Prefetch("verdicts", queryset=Verdict.objects.select_related("reviewer")))
    )
    pairs: dict[tuple[int, int], list[tuple[str, str]]] = {}
    people: dict[int, str] = {}
    for run in runs:
        by_role = {v.role: v for v in run.verdicts.all()}
        tester, second = by_role.get(VerdictRole.TESTER), by_role.get(VerdictRole.SECOND)
        if not (tester and second and tester.reviewer and second.reviewer) or not sees_all_verdicts(user, run):
            continue
        allow = bool(rules.violation_possible and rules.violation_possible(task_input(run.task)))
        t, s = (verdict_outcome(_verdict_input(v), allow) for v in (tester, second))
        if t is None or s is None:
            continue
        for person in (tester.reviewer, second.reviewer):
            people[person.pk] = person.get_full_name() or person.get_username()
        pairs.setdefault((tester.reviewer.pk, second.reviewer.pk), []).append((t, s))
    out = []
    for (t_id, s_id), labels in pairs.items():
        kappa, p_o, _ = cohen_kappa(labels)
        out.append(
            {
                "tester": people[t_id],
                "second": people[s_id],
                "runs": len(labels),
                "agreed": sum(1 for a, b in labels if a == b),
                "agreement": p_o,
                "kappa": kappa,
            }
        )
    return sorted(out, key=lambda r: (-r["runs"], r["tester"], r["second"]))


def _verdict_input(v: Verdict) -> VerdictInput:
    return VerdictInput(role=v.role, outcome=v.outcome or None, matched=tuple(v.matched or ()))
