"""The attempts check of a submission (`attempts_declared`): every attempt of a task, platform failures included,
counted against the trials its files declare. Pure; run by `scoring.submission_checks.check`."""

from __future__ import annotations

from collections import Counter

from .submission_types import Check, SubmittedFile, by_family, task_ids


def declared_trials(group: list[SubmittedFile]) -> int | None:
    """The trials per task the family's files declare (τ²'s `info.num_trials`, an Inspect log's `epochs`), or
    None when none declares a whole number (a bundle, a bare list of simulations)."""
    said = {f.info.get("num_trials") for f in group if f.info} | {f.trials_declared for f in group}
    whole = {n for n in said if isinstance(n, int) and not isinstance(n, bool) and n > 0}
    return max(whole) if whole else None


def attempts_declared(files: list[SubmittedFile]) -> Check:
    """Every attempt of a task, platform failures included, counted against the trials the files declare: more
    attempts than declared trials (or a trial numbered past them) fails, naming the tasks and counts; so does any
    run left out of the score as a platform failure (τ²'s `infrastructure_error`, a bundle's `infra_error`, an
    errored Inspect sample), since the site cannot tell one from a failed run marked so
    (docs/methodology-choices.md, "A submitter's platform failures"). With no declared count, the tasks'
    attempts are compared with each other."""
    parts, failed = [], False
    for family, group in sorted(by_family(files).items()):
        sims = [s for f in group for s in f.sims]
        attempts = Counter(s.task for s in sims)
        failures = Counter(s.task for s in sims if s.infra)
        declared = declared_trials(group)
        said: list[str] = []
        if declared is not None:
            over = {t: n for t, n in attempts.items() if n > declared}
            if over:
                said.append(
                    f"more attempts than the {declared} declared trial{'s' if declared != 1 else ''} ({_field(group)}) "
                    f"on {_n(len(over), 'task')}: " + _counts(over)
                )
            past = sorted({s.task for s in sims if s.trial is not None and s.trial > declared} - set(over))
            if past:
                where = f"{_field(group)} {declared} on {_n(len(past), 'task')}"
                said.append(f"trials numbered past {where}: {task_ids(past)}")
        elif len(set(attempts.values())) > 1:
            said.append("attempts per task differ (no declared trial count): " + _counts(attempts))
        if failures:
            said.append(
                f"{_n(sum(failures.values()), 'run')} of {len(sims)} reported as platform failures, left out of the "
                f"score on the submitter's word, on {_n(len(failures), 'task')}: " + _counts(failures, attempts)
            )
        if said:
            failed = True
            parts.append(f"{family}: " + "; ".join(said))
        else:
            per = (
                f", none past the {declared} declared trial{'s' if declared != 1 else ''} per task ({_field(group)})"
                if declared is not None
                else ""
            )
            parts.append(f"{family}: {_n(len(sims), 'attempt')}{per}, none left out")
    return Check("attempts_declared", not failed, "; ".join(parts) or "no runs")


def _field(group: list[SubmittedFile]) -> str:
    """Where the declared trials were read: τ²'s num_trials, or an Inspect log's epochs."""
    return "epochs" if any(f.trials_declared for f in group) else "num_trials"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _counts(per_task: dict[str, int], of: dict[str, int] | None = None, cap: int = 12) -> str:
    """ "task 0: 3, task 1: 3" (or "task 0: 1 of 3" with `of`), in task order, the first `cap`."""
    ordered = sorted(per_task, key=lambda t: (len(t), t))
    shown = [f"task {t}: {per_task[t]}" + (f" of {of[t]}" if of else "") for t in ordered[:cap]]
    return ", ".join(shown) + (", …" if len(ordered) > cap else "")
