"""A run's children as a bundle gives them, written by the import: verdicts (the lowest matched row), evidence
(links; files next to the bundle are `bundles.evidence_files`), checks and disputes."""

from __future__ import annotations

from runs.models import CheckResult, Dispute, Evidence, Run, Verdict
from runs.services.review import lowest_outcome

from .fields import parse_time
from .report import ImportReport
from .upsert import Rows


def write_run_children(
    runs: dict[tuple[str, str], Run], docs: dict[tuple[str, str], dict], round_ids: list[int], report: ImportReport
) -> set[tuple[int, str]]:
    """Verdicts, evidence, checks and disputes of every run (`runs` and `docs` by round key and run id); returns
    (round id, run key) of the runs whose inputs changed."""
    in_rounds = {"run__round_id__in": round_ids}
    verdicts = Rows(Verdict, Verdict.objects.filter(**in_rounds), lambda v: (v.run_id, v.role), report, "verdicts")
    # A stored file is exported with its address on the site (`Evidence.href`): importing the download again
    # finds the file by that address instead of adding it a second time as a link.
    evidence = Rows(Evidence, Evidence.objects.filter(**in_rounds), lambda e: (e.run_id, e.href), report, "evidence")
    checks = Rows(
        CheckResult, CheckResult.objects.filter(**in_rounds), lambda c: (c.run_id, c.position), report, "checks"
    )
    disputes = Rows(
        Dispute, Dispute.objects.filter(**in_rounds), lambda d: (d.run_id, d.reason, d.note), report, "disputes"
    )
    changed_runs: set[tuple[int, str]] = set()
    for run_id, run_doc in docs.items():
        run = runs[run_id]
        changed = False
        for v in run_doc.get("verdicts") or []:
            matched = list(v.get("matched") or [])
            # The lowest of the outcome and the rows matched (seed 000 §3), by the one rule the boards use; the
            # bundle checks refuse a verdict with neither.
            outcome = lowest_outcome(outcome=v.get("outcome"), matched=matched)
            values = {"outcome": outcome, "matched": matched, "note": v.get("note") or ""}
            if v.get("at"):
                values["created_at"] = parse_time(v["at"])
            changed |= verdicts.put((run.pk, v["role"]), {"run": run, "role": v["role"]}, values)[1]
        for e in run_doc.get("evidence") or []:
            if e.get("kind") == "app" or "path" in e:
                continue  # an app build or a file next to the bundle: `bundles.app_builds`, `.evidence_files`
            changed |= evidence.put(
                (run.pk, e["url"]),
                {"run": run, "url": e["url"]},
                {"kind": e["kind"], "caption": e.get("caption") or ""},
            )[1]
        for pos, ch in enumerate(run_doc.get("checks") or []):
            checks.put(
                (run.pk, pos),
                {"run": run, "position": pos},
                {"kind": ch["kind"], "name": ch["name"], "passed": ch["passed"], "detail": ch.get("detail") or ""},
            )
        for d in run_doc.get("disputes") or []:
            values = {
                "status": d.get("status") or "open",
                "decision_note": d.get("decision_note") or "",
                "decided_at": parse_time(d.get("decided_at")),
            }
            if d.get("filed_at"):
                values["filed_at"] = parse_time(d["filed_at"])
            note = d.get("note") or ""
            changed |= disputes.put(
                (run.pk, d["reason"], note), {"run": run, "reason": d["reason"], "note": note}, values
            )[1]
        if changed:
            changed_runs.add((run.round_id, run.key))
    for rows in (verdicts, evidence, checks, disputes):
        rows.flush()
    return changed_runs
