"""Terminal-Bench's `tb run` folders as a submission format (`submissions.formats`): its reader, checks and
figures are `scoring.tbench` and `scoring.tbench_checks`; this is their glue to the site's `Read`."""

from __future__ import annotations

from typing import Any

from scoring.submission_checks import Check, Figure, Ran, TrackInput
from scoring.submission_types import Sim, SubmittedFile
from scoring.tbench import TbenchError, TbSubmission, read_runs
from scoring.tbench_checks import checks, figures, recomputed, version_ran
from scoring.tbench_runs import run_docs
from scoring.types import RunInput, TaskInput

from .reading import Read, ReadContext, SubmissionRefused


def read(files: dict[str, bytes], ctx: ReadContext) -> Read:
    try:
        sub = read_runs(files, ctx.budget, ctx.claims, counted=ctx.counted, recording_limit=ctx.evidence_max_bytes)
    except TbenchError as exc:
        raise SubmissionRefused([str(exc)]) from exc
    family = _family(sub, ctx)
    docs = run_docs(sub, family)
    sims = [Sim(d["task"], d["trial"], None, d["score"] is not None) for _, d in docs]
    declared = dict(sub.declared)
    agent = declared.get("agent") or next((r.agent for r in sub.runs if r.agent), "") or ""
    model = declared.get("model") or next((r.model for r in sub.runs if r.model), "") or ""
    return Read(
        "tbench",
        declared=declared or None,
        claims=sub.claims,
        files=[SubmittedFile(family, family, sims)],
        files_info=_files_info(sub),
        notes=sub.notes,
        model_name=str(agent),
        entry={"model": str(model)} if model else {},
        run_docs=docs,
        native=sub,
    )


def _family(sub: TbSubmission, ctx: ReadContext) -> str:
    """The dataset the runs name, else the benchmark's only task family (runs sent as summaries name none)."""
    named = {r.dataset[0] for r in sub.runs if r.dataset}
    if len(named) == 1:
        return next(iter(named))
    return ctx.families[0] if len(ctx.families) == 1 else "(dataset not named)"


def _files_info(sub: TbSubmission) -> list[dict[str, Any]]:
    return [
        {
            "run": r.id,
            "trials": len(r.trials),
            "trials_from": r.trials_from or "none",
            "dataset": " ".join(r.dataset) if r.dataset else None,
            "agent": r.agent,
            "model": r.model,
            "attempts": r.attempts,
            "recordings_sent": sum(1 for t in r.trials if t.recording is not None),
            "recordings_missing": sum(1 for t in r.trials if t.recording_path and t.recording is None),
        }
        for r in sub.runs
    ]


def check(track: TrackInput, read_: Read) -> list[Check]:
    return checks(track, read_.native)


def ran(track: TrackInput, read_: Read) -> Ran:
    return version_ran(track, read_.native)


def claimed(read_: Read, tasks: list[TaskInput], runs: list[RunInput], params: dict[str, Any]) -> list[Figure]:
    return figures(read_.claims, recomputed(read_.native, sorted(t.key for t in tasks), runs))
