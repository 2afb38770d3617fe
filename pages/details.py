"""The pages of one run (and its bundle document), of one agent in a round, of one task across the published
rounds (`pages.agents`: one agent across benchmarks). They read published rounds only (`Http404` otherwise, as in
`pages.selectors`) and score a single run with the same rules as the boards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q
from django.http import Http404
from django.urls import reverse
from django.utils.text import slugify

from bundles.export import run_doc
from leaderboard.models import (
    Benchmark,
    ChangelogEntry,
    Entry,
    Round,
    RoundParameter,
    RoundStatus,
    Task,
    fill_prompt,
    in_published_round,
    task_input,
)
from leaderboard.roles import user_organization
from runs.inputs import run_input
from runs.models import Run
from runs.selectors import review_stage
from scoring import methodologies
from scoring.review import verdicts_public
from scoring.types import RatingRow
from snapshots.models import BoardSnapshot, SnapshotKind

from .figures import row_badges, task_figures
from .formatting import fmt_rating, fmt_score, limits_view
from .links import round_agent_url, run_url, task_url
from .run_evidence import (
    evidence_list_view,
    judge_view,
    marks_view,
    recording_view,
    run_setup_view,
    run_week_view,
    score_parts_view,
    task_version_view,
    tau2_reward_view,
)
from .selectors import (
    benchmark_get,
    checks_passed,
    ratings_maps,
    round_and_rounds,
    run_standing,
    run_summary,
    runs_standings,
    sees_unpublished,
    snapshot_data,
    snapshot_state,
    snapshots_for,
    standings_for_round,
)
from .statistics import task_in_round, vote_margins
from .submissions import run_as_ran
from .transcripts import transcript_view

PUBLISHED = RoundStatus.PUBLISHED


ROLE_ORDER = ["tester", "second", "third"]


def _public_verdicts(run: Run, methodology: str) -> list:
    """The run's verdicts the public reads (`verdicts_public`: none while it is in review), tester first."""
    shown = verdicts_public(methodology, task_input(run.task), run.verdicts.all())
    return sorted(shown, key=lambda v: ROLE_ORDER.index(v.role) if v.role in ROLE_ORDER else 9)


def _runs_seen_by(viewer) -> Q:
    """The runs whose page `viewer` may read: published ones; every run for staff, who see a round's boards
    before it is published (`sees_unpublished`); and during a round's preview its vendor's own (seed 000 §6: the
    vendor checks its results before publication; nobody else sees them)."""
    if sees_unpublished(viewer):
        return Q()
    org = user_organization(viewer)
    seen = in_published_round()
    if org is not None:
        seen |= Q(round__status=RoundStatus.PREVIEW, entry__agent__organization=org)
    return seen


def run_page(
    *, bench_slug: str, round_key: str, run_key: str, query: Mapping[str, str] | None = None, viewer=None
) -> dict[str, Any]:
    """One published run, or the viewer's own run in a round under preview (marked not public, the round's
    parameter values still withheld); `query` is the page's query string (the transcript's page and search)."""
    if "\x00" in bench_slug + round_key + run_key:
        raise Http404("No such run")
    run = (
        Run.objects.filter(_runs_seen_by(viewer))
        .filter(round__benchmark__slug=bench_slug, round__key=round_key, key=run_key)
        .with_verdicts()
        .select_related("round__benchmark", "entry__agent", "rerun_of__task", "rerun", "transcript")
        .prefetch_related("evidence", "checks", "disputes")
        .first()
    )
    if run is None:
        raise Http404("No such run")
    bench, rnd = run.round.benchmark, run.round
    version = run.task.versions.filter(version=run.task_version).first()
    interruption = version.interruption if version else ""
    # A round's parameter values are private until it is published, from its vendor too.
    published = rnd.status == PUBLISHED
    params = {p.name: p.value for p in RoundParameter.objects.filter(round=rnd, task=run.task)} if published else {}
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    standings = standings_for_round(snap, rnd.id)
    verdicts = _public_verdicts(run, bench.methodology)
    passed, total = checks_passed(run)
    rerun = run.rerun if _has_rerun(run) else None
    summary = run_summary(run, bench.methodology, run_standing(run, standings), bench.pass_mark)
    corrections = ChangelogEntry.objects.filter(run=run).order_by("-created_at", "-id").values("created_at", "why")
    return {
        "bench": bench,
        "round": rnd,
        "run": run,
        "not_public": not published,
        "corrections": list(corrections[:10]),
        "agent": run.entry.agent,
        "entry": run.entry,
        "as_ran": run_as_ran(run),
        "task": run.task,
        "limits": limits_view(bench.rules.task_limits(run.task.time_limit_min, run.task.token_budget)),
        "version": version,
        "prompt": fill_prompt(version.prompt if version else "", params),
        "params": params,
        "interruption": fill_prompt(interruption, params),
        "verdicts": verdicts,
        "evidence": list(run.evidence.all()),
        "checks": list(run.checks.all()),
        "disputes": list(run.disputes.all()),
        "summary": summary,
        "checks_passed": passed,
        "checks_total": total,
        "rerun": rerun,
        # The other run of a disputed pair, and its standing: the page says which of the two the board counts.
        "rerun_standing": run_standing(rerun, standings) if rerun else None,
        "original_standing": run_standing(run.rerun_of, standings) if run.rerun_of else None,
        **_third_verdict(run, verdicts),
        **_review_marks(bench),
        **_what_happened(run, query or {}, version.evidence if version else None),
    }


def _review_marks(bench: Benchmark) -> dict[str, Any]:
    """How the run, agent and task pages name a run's standing, and whether every run has a blind second reviewer
    (and a third on disagreement): the verdicts say so only then."""
    rules = methodologies.get(bench.methodology)
    return {"standing_label": rules.standing_label, "double_review": rules.double_review}


def _third_verdict(run: Run, verdicts: list) -> dict[str, bool]:
    """Whether a published third verdict decided the run: only while the tester and the second disagree (000
    §5, `review_stage`); one given while they disagreed is set aside once a correction makes them agree."""
    given = any(v.role == "third" for v in verdicts)
    decided = given and review_stage(run).disagree
    return {"third_decided": decided, "third_aside": given and not decided}


def _what_happened(run: Run, query: Mapping[str, str], listed: list | None) -> dict[str, Any]:
    """What the run page shows of what happened: the transcript (a page of it), the judge, the recording and its
    marks, the evidence its task version lists (`listed`) held or lacking, how the score is reached, and on a
    weekly table the week it happened in."""
    return {
        "week": run_week_view(run, run.round) if run.round.benchmark.rules.same_week else None,
        "transcript": transcript_view(run, query),
        "judge": judge_view(run.judge),
        "setup": run_setup_view(run, run.round.benchmark.rules.run_setup),
        "marks": marks_view(run.marks, list(run.evidence.all())),
        "evidence_list": evidence_list_view(listed, run.status, list(run.evidence.all())),
        **recording_view(run, list(run.evidence.all())),
        "task_version": task_version_view(run),
        "score_parts": tau2_reward_view(run)
        or score_parts_view(
            methodologies.get(run.round.benchmark.methodology).score_parts(run_input(run), task_input(run.task))
        ),
    }


def _has_rerun(run: Run) -> bool:
    try:
        run.rerun  # noqa: B018 - the reverse one-to-one raises when there is none
    except Run.DoesNotExist:
        return False
    return True


def run_document(*, bench_slug: str, round_key: str, run_key: str, viewer=None) -> dict[str, Any]:
    """One run in the bundle format (the same shape as in the download): no reviewer or owner identity; and,
    beyond the bundle's fields, its `standing` as its round's stored boards decided it (`run_standing`). Seen
    by whoever may read the run's page (`_runs_seen_by`)."""
    if "\x00" in bench_slug + round_key + run_key:
        raise Http404("No such run")
    run = (
        Run.objects.filter(_runs_seen_by(viewer))
        .filter(round__benchmark__slug=bench_slug, round__key=round_key, key=run_key)
        .select_related("round", "entry__agent", "task", "rerun_of")
        .prefetch_related("verdicts", "evidence", "checks", "disputes")
        .first()
    )
    if run is None:
        raise Http404("No such run")
    return {**run_doc(run), "standing": runs_standings([run])[run.pk]}


def round_agent_page(*, bench_slug: str, round_key: str, agent_slug: str, viewer=None) -> dict[str, Any]:
    """An agent's runs in one round: the runs behind every number of its board row; an unpublished round's for
    staff only (`round_for`)."""
    bench = benchmark_get(bench_slug)
    rnd, _ = round_and_rounds(bench, round_key, viewer)
    entry = Entry.objects.filter(round=rnd, agent__slug=agent_slug).select_related("agent").first()
    if entry is None:
        raise Http404("No such agent in this round")
    runs = list(
        Run.objects.filter(round=rnd, entry=entry)
        .select_related("task", "rerun_of")
        .order_by("task__position", "task__key", "trial", "key")
    )
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    data = snap.data if snap and snap.data else {}
    standings = standings_for_round(snap, rnd.id)
    rows = []
    for run in runs:
        rows.append(
            {
                "run": run,
                "href": run_url(bench.slug, rnd.key, run.key),
                "summary": run_summary(run, bench.methodology, run_standing(run, standings), bench.pass_mark),
                "stale": run.is_stale,
                "task_href": task_url(bench.slug, run.task.key, agent_slug),
            }
        )
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        kind = row["run"].task.get_kind_display()
        title, anchor = (APART_TITLE, "other-language") if row["summary"]["apart"] else (f"{kind} tasks", slugify(kind))
        groups.setdefault(title, {"title": title, "anchor": anchor, "rows": []})["rows"].append(row)
    return {
        "bench": bench,
        "round": rnd,
        "entry": entry,
        "agent": entry.agent,
        "groups": list(groups.values()),
        "boards": _agent_boards(bench, data, agent_slug),
        "state": snapshot_state(snap),
        **_review_marks(bench),
    }


# The round page's group of an agent's runs in another language than its primary one (000 §2).
APART_TITLE = "runs in another language, reported separately"


def _agent_boards(bench: Benchmark, data: dict, agent_slug: str) -> list[dict[str, Any]]:
    """The agent's rank and headline score on each of the round's boards it is on, with the marks next to it
    (`figures.row_badges`: heuristic, its violations next to the safety score)."""
    boards = []
    for name, label in bench.rules.tabs:
        board = data.get(name)
        if isinstance(board, list):
            row = next((r for r in board if r["agent"] == agent_slug), None)
            if row:
                boards.append(
                    {
                        "label": label,
                        "rank": row.get("rank"),
                        "of": len(board),
                        "score": fmt_score(row.get(bench.rules.headline_key), bench.methodology),
                        "badges": row_badges(row, bench.rules, name),
                    }
                )
    return boards


def task_page(*, bench_slug: str, task_key: str, agent: str | None, viewer=None) -> dict[str, Any]:
    """A task: its current wording (parameters only from published rounds), version history, and every
    agent's runs on it in each published round, the standing run marked, with the range; and the runs of rounds
    not yet published that `viewer` may read (`_runs_seen_by`: staff all, a vendor its own during the preview),
    in a section marked not public."""
    task = (
        Task.objects.public()
        .filter(benchmark__slug=bench_slug, key=task_key)
        .select_related("benchmark")
        .prefetch_related("versions")
        .first()
    )
    if task is None:
        raise Http404("No such task")
    bench = task.benchmark
    runs = list(
        Run.objects.filter(_runs_seen_by(viewer))
        .filter(task=task)
        .select_related("task", "round", "entry__agent")
        .order_by("-round__starts_on", "-round__published_at", "entry__agent__name", "trial", "key")
    )
    rounds = {r.round_id: r.round for r in runs}
    snaps, ratings_snap = snapshots_for(bench, list(rounds))
    params = list(
        RoundParameter.objects.filter(task=task, round__status=PUBLISHED)
        .select_related("round")
        .order_by("-round__starts_on", "name")
    )
    _, task_ratings = ratings_maps(ratings_snap)
    sections = _task_sections(task, runs, rounds, snaps, params, task_ratings.get(task.key, {}), agent)
    if not sees_unpublished(viewer):  # a vendor's own runs only: nothing of the round's other agents
        for section in sections:
            if not section["round"].is_published:
                section["stats"] = None
                for item in section["items"]:
                    item["agent_href"] = reverse("preview_round", args=[bench.slug, section["round"].key])
    versions = sorted(
        task.versions.all(), key=lambda v: [int(x) for x in v.version.split(".") if x.isdigit()], reverse=True
    )
    current = next((v for v in versions if v.version == task.version), None)
    return {
        "bench": bench,
        "task": task,
        "limits": limits_view(bench.rules.task_limits(task.time_limit_min, task.token_budget)),
        "versions": versions,
        "current": current,
        "sections": sections,
        "agent": agent,
        "ratings": _task_rating_rows(task, ratings_snap, runs),
        "margins": vote_margins(
            ((((ratings_snap.data if ratings_snap else None) or {}).get("margins") or {}).get("tasks") or {}).get(
                task.key
            ),
            {r.entry.agent.slug: r.entry.agent.name for r in runs},
        ),
        **_review_marks(bench),
    }


def _task_sections(
    task: Task,
    runs: list[Run],
    rounds: dict[int, Round],
    snaps: dict[int, BoardSnapshot],
    params: list[RoundParameter],
    ratings: dict[str, RatingRow],
    selected: str | None,
) -> list[dict[str, Any]]:
    """One section per published round with runs on the task, in the runs' order: the round's parameters and
    each agent's runs; `apart` when some agent has runs reported apart (another language)."""
    by_round: dict[int, dict[str, list[Run]]] = {}
    for run in runs:
        by_round.setdefault(run.round_id, {}).setdefault(run.entry.agent.slug, []).append(run)
    out = [
        {
            "round": rounds[round_id],
            "items": _task_items(task, rounds[round_id], snaps.get(round_id), agents, ratings, selected),
            "params": [p for p in params if p.round_id == round_id],
            "stats": task_in_round(task.benchmark, snapshot_data(snaps.get(round_id)), task.key),
        }
        for round_id, agents in by_round.items()
    ]
    for section in out:
        section["apart"] = any(item["apart"] for item in section["items"])
    return out


def _task_items(
    task: Task,
    rnd: Round,
    snap: BoardSnapshot | None,
    agents: dict[str, list[Run]],
    ratings: dict[str, RatingRow],
    selected: str | None,
) -> list[dict[str, Any]]:
    """One published round of a task: each agent's runs on it (the standing run marked), with the figures its
    round's board has for the agent on the task (`Methodology.task_numbers`: the median, the range, 002's pass@k),
    and its vote rating in the task when the board ranks each task. A run in another language than the agent's
    primary one is listed apart, with its language (000 §2: "reported separately")."""
    bench = task.benchmark
    m = bench.methodology
    standings = standings_for_round(snap, rnd.id)
    items = []
    for slug, agent_runs in agents.items():
        shown = [(r, run_summary(r, m, run_standing(r, standings), bench.pass_mark)) for r in agent_runs]
        summaries = [{"run": r, "summary": s, "href": run_url(bench.slug, rnd.key, r.key)} for r, s in shown]
        number = bench.rules.task_numbers(snapshot_data(snap), slug).get(task.key)
        items.append(
            {
                "agent": agent_runs[0].entry.agent,
                "slug": slug,
                "agent_href": round_agent_url(bench.slug, rnd.key, slug),
                "runs": [s for s in summaries if not s["summary"]["apart"]],
                "apart": [s for s in summaries if s["summary"]["apart"]],
                **task_figures(number, m, bench.rules.task_medians, bench.pass_mark),
                "rating": fmt_rating(ratings.get(slug)) if bench.rules.task_medians else None,
                "selected": slug == selected,
            }
        )
    return items


def _task_rating_rows(task: Task, ratings_snap: BoardSnapshot | None, runs: list[Run]) -> list[dict[str, Any]]:
    """The task's vote ratings, each with the agent's name."""
    if not (ratings_snap and ratings_snap.data):
        return []
    names = {r.entry.agent.slug: r.entry.agent.name for r in runs}
    rows: list[RatingRow] = (ratings_snap.data or {}).get("tasks", {}).get(task.key, [])
    return [{"agent": r["agent"], "name": names.get(r["agent"], r["agent"]), **(fmt_rating(r) or {})} for r in rows]


def preview_figures(rnd: Round, rows: list) -> dict[str, Any]:
    """What the board will publish for a vendor's runs in a round under preview (`runs.selectors.preview_runs`'
    rows): each row with its run's result as the board counts it, its agent's headline figure and rank on the
    round's board as it stands, and the address of the run's page. Read from the round's own boards, as the
    published page will be; a run still in review counts once it is decided."""
    bench = rnd.benchmark
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    standings = standings_for_round(snap, rnd.id)
    overall = ((snap.data or {}).get("overall") or []) if snap is not None and snap.data else []
    places = {
        place["agent"]: {
            "score": fmt_score(place.get(bench.rules.headline_key), bench.methodology),
            "rank": place.get("rank"),
            "of": len(overall),
        }
        for place in overall
    }
    return {
        "headline": bench.rules.headline_label,
        "updating": snap is None or snap.stale,
        "items": [
            {
                "row": row,
                "entry": row.run.entry,
                "place": places.get(row.run.entry.agent.slug),
                "summary": run_summary(row.run, bench.methodology, run_standing(row.run, standings), bench.pass_mark),
                "href": run_url(bench.slug, rnd.key, row.run.key),
            }
            for row in rows
        ],
    }
