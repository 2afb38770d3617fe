"""The checks of a Terminal-Bench submission, as Terminal-Bench's own leaderboard checks a pull request, and its
figures: accuracy (the mean over runs of resolved / tasks, as Terminal-Bench computes it) with its standard error
over runs, and pass^k and any-of-k per task where the trials allow, each beside its claim. Pure.

any-of-k is the unbiased share of tasks where at least one of k trials drawn is resolved: the figure Terminal-Bench's
harness writes as `pass_at_k` in a run's summary (over one run's attempts) and some papers call pass@k. It is not
called pass@k here: on this site pass@k is seed 002's share of an agent's trials of a task that pass, one name for
one figure on every page (docs/methodology-choices.md, "One name, one figure"). Terminal-Bench's public table
claims accuracy and its standard error only.

The dataset's tasks are the benchmark's own (the task set version the runs name, `TaskSet`), never the runs' own
lists. Each check answers with its reason in words; one that cannot be run never passes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from statistics import fmean, stdev

from .passk import mean_over_tasks, pass_any, pass_hat
from .submission_checks import Check, CheckRule, Figure, Ran, TaskSet, TrackInput, agrees, register_checks
from .tau2 import Claim
from .tbench import TbRun, TbSubmission
from .types import RunInput

# Terminal-Bench's rule for its leaderboard: five runs (or n_attempts 5) of the whole dataset, no timeout changed.
RUNS_REQUIRED = 5
TIMEOUT_MULTIPLIER = 1.0
OVERRIDES = ("global_agent_timeout_sec", "global_test_timeout_sec")
SHOWN = 8  # names listed before "…"

register_checks(
    {
        "tb_dataset": CheckRule("The dataset and version are ones the benchmark holds"),
        "tb_runs": CheckRule(
            "Five runs (or five attempts) of every task, the same for every task, none past the attempts declared"
        ),
        "tb_timeouts": CheckRule("Timeouts as set: multiplier 1.0, no agent or test timeout overrides"),
        "tb_one_agent": CheckRule("One agent and one model across runs"),
        "tb_trials_complete": CheckRule("A trial result for every task of every run"),
        "tb_summaries_agree": CheckRule("Run summaries agree with their trials"),
    }
)


def _list(items: Iterable[str]) -> str:
    ordered = sorted(set(items))
    return ", ".join(ordered[:SHOWN]) + (f", … ({len(ordered)} in all)" if len(ordered) > SHOWN else "")


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def named_dataset(sub: TbSubmission) -> tuple[str, str] | None:
    """The dataset and version every run names, or None when a run names none or two runs differ."""
    named = {r.dataset for r in sub.runs}
    return next(iter(named)) if len(named) == 1 and None not in named else None


def version_ran(track: TrackInput, sub: TbSubmission) -> Ran:
    """The task set the runs ran: the version the runs name, when the benchmark holds it with the dataset as a
    family; else the one holding the most of the runs' tasks (the current one on a tie). Each trial's task is
    held when that version holds it."""
    tasks = {t.task for r in sub.runs for t in r.trials}
    named = named_dataset(sub)
    chosen: TaskSet | None = None
    if named is not None:
        chosen = next((ts for ts in track.task_sets if ts.version == named[1] and named[0] in ts.tasks), None)
    if chosen is None and named is None:
        best = -1
        for ts in track.task_sets:
            found = sum(1 for family in ts.tasks.values() for task in family if task in tasks)
            if found > best:
                chosen, best = ts, found
    if chosen is None:
        return Ran(None, {})
    held = {(fam, task): own[task][1] for fam, own in chosen.tasks.items() for task in tasks if task in own}
    return Ran(chosen, held)


def dataset_tasks(ran: Ran) -> list[str]:
    return sorted({task for family in (ran.task_set.tasks.values() if ran.task_set else ()) for task in family})


def dataset_held(track: TrackInput, sub: TbSubmission, ran: Ran) -> Check:
    named = {r.id: r.dataset for r in sub.runs}
    unnamed = [run for run, d in named.items() if d is None]
    if unnamed:
        why = f"cannot be checked: run {_list(unnamed)} names no dataset (no run_metadata.json or tb.lock)"
        return Check("tb_dataset", False, why)
    if len(set(named.values())) > 1:
        said = "; ".join(
            f"{' '.join(d)} ({_list(r for r, e in named.items() if e == d)})" for d in set(named.values()) if d
        )
        return Check("tb_dataset", False, f"the runs name different datasets: {said}")
    name, version = next(iter(named.values()))  # type: ignore[misc]
    if ran.task_set is None:
        held = ", ".join(ts.version for ts in track.task_sets) or "none"
        return Check("tb_dataset", False, f"{name} {version}: the benchmark holds no such task set (it holds {held})")
    if version not in track.accepted:
        return Check("tb_dataset", False, f"{name} {version}: this track takes {', '.join(track.accepted)}")
    foreign = {t.task for r in sub.runs for t in r.trials} - set(dataset_tasks(ran))
    if foreign:
        return Check(
            "tb_dataset", False, f"{name} {version}: trials of tasks it does not hold, not counted: {_list(foreign)}"
        )
    return Check(
        "tb_dataset",
        True,
        f"{name} {version}, held by the benchmark: every trial is of its {len(dataset_tasks(ran))} tasks",
    )


def runs_required(track: TrackInput, sub: TbSubmission, ran: Ran) -> Check:
    """Five runs (or n_attempts 5) of every task, the same number for every task."""
    required = max(RUNS_REQUIRED, track.trials_min)
    counts = Counter(t.task for r in sub.runs for t in r.trials)
    tasks = dataset_tasks(ran) or sorted(counts)
    per_task = {task: counts.get(task, 0) for task in tasks}
    by_count = Counter(per_task.values())
    shape = f"{_n(len(sub.runs), 'run')} × {_n(sub.attempts, 'attempt')}"
    if not per_task:
        return Check("tb_runs", False, "no trial results")
    over = _over_attempts(sub)
    if over:
        return Check("tb_runs", False, "more trials than the run declares (n_attempts): " + over)
    if len(by_count) > 1:
        said = "; ".join(
            f"{n} on {c} task{'s' if c != 1 else ''}"
            + (f" ({_list(t for t, m in per_task.items() if m == n)})" if c <= SHOWN else "")
            for n, c in sorted(by_count.items(), key=lambda nc: -nc[1])
        )
        return Check("tb_runs", False, f"trials per task differ ({shape}): {said}")
    n = next(iter(by_count))
    if n < required:
        return Check(
            "tb_runs",
            False,
            f"{n} trial{'s' if n != 1 else ''} per task ({shape}); {required} are required (runs × attempts)",
        )
    return Check("tb_runs", True, f"{n} trials of each of the {len(per_task)} tasks ({shape})")


def _over_attempts(sub: TbSubmission) -> str:
    """Each run's tasks with more trials (or a trial's attempt numbered past) the attempts its metadata or
    tb.lock declares (n_attempts, 1 when neither says): every trial counts, so an extra one is a best-of."""
    parts = []
    for r in sub.runs:
        per_task = Counter(t.task for t in r.trials)
        over = {task: n for task, n in per_task.items() if n > r.attempts}
        over |= {t.task: per_task[t.task] for t in r.trials if t.attempt > r.attempts}
        if over:
            named = _list(f"{task} ({n} trials)" for task, n in over.items())
            parts.append(f"run {r.id} ({_n(r.attempts, 'attempt')}): {_n(len(over), 'task')}: {named}")
    return "; ".join(parts)


def timeouts_as_set(sub: TbSubmission) -> Check:
    """global_timeout_multiplier 1.0 and no agent or test timeout overrides, as each run's tb.lock records."""
    parts = []
    for r in sub.runs:
        if r.lock is None or r.lock.run_config is None:
            parts.append(f"run {r.id}: cannot be checked: no tb.lock with its run_config")
            continue
        multiplier = r.lock_config("global_timeout_multiplier")
        if multiplier is None or not math.isclose(multiplier, TIMEOUT_MULTIPLIER):
            parts.append(f"run {r.id}: global_timeout_multiplier {multiplier}")
        for name in OVERRIDES:
            if r.lock_config(name) is not None:
                parts.append(f"run {r.id}: {name} {r.lock_config(name):g} (an override)")
    if parts:
        return Check("tb_timeouts", False, "; ".join(parts))
    return Check(
        "tb_timeouts", True, f"every run's tb.lock: global_timeout_multiplier {TIMEOUT_MULTIPLIER}, no overrides"
    )


def one_agent_one_model(sub: TbSubmission) -> Check:
    unnamed = [r.id for r in sub.runs if r.agent is None]
    if unnamed:
        return Check(
            "tb_one_agent",
            False,
            f"cannot be checked: run {_list(unnamed)} names no agent (no run_metadata.json or tb.lock)",
        )
    agents = {r.agent for r in sub.runs}
    models = {r.model for r in sub.runs}
    parts = []
    if len(agents) > 1:
        parts.append(f"the runs ran {len(agents)} agents: {_list(a or '' for a in agents)}")
    if len(models) > 1:
        parts.append(f"the runs ran {len(models)} models: {_list(m or '(none named)' for m in models)}")
    if parts:
        return Check("tb_one_agent", False, "; ".join(parts) + "; a best-of across agents or models is not one run")
    model = next(iter(models))
    return Check(
        "tb_one_agent",
        True,
        f"agent {next(iter(agents))}, " + (f"model {model}" if model else "no run names its model") + ", in every run",
    )


def trials_complete(sub: TbSubmission, ran: Ran) -> Check:
    """A trial result for every task (and attempt) of every run: those missing listed."""
    tasks = dataset_tasks(ran)
    parts = []
    for r in sub.runs:
        if not r.trials:
            parts.append(f"run {r.id}: no trial results (its summary's counts only)")
            continue
        have = {(t.task, t.attempt) for t in r.trials}
        missing = [
            f"{task}" + (f" (attempt {a})" if r.attempts > 1 else "")
            for task in tasks
            for a in range(1, r.attempts + 1)
            if (task, a) not in have
        ]
        if missing:
            parts.append(
                f"run {r.id}: {len(missing)} of {len(tasks) * r.attempts} trials have no result: {_list(missing)}"
            )
    if parts:
        return Check("tb_trials_complete", False, "; ".join(parts))
    return Check("tb_trials_complete", True, f"every run has a result for each of the {len(tasks)} tasks")


def _summary_problems(r: TbRun) -> list[str]:
    s = r.summary
    if s is None:
        return [f"run {r.id}: no summary (results.json)"]
    resolved = {t.task for t in r.trials if t.resolved}
    problems = []
    solved = sum(1 for t in r.trials if t.resolved)
    if s.n_resolved is not None and r.trials and s.n_resolved != solved:
        problems.append(f"run {r.id}: n_resolved {s.n_resolved}, its trials resolve {solved}")
    if s.n_unresolved is not None and r.trials and s.n_unresolved != len(r.trials) - solved:
        problems.append(
            f"run {r.id}: n_unresolved {s.n_unresolved}, its trials leave {len(r.trials) - solved} unresolved"
        )
    total = (s.n_resolved or 0) + (s.n_unresolved or 0)
    if s.accuracy is not None and total and not math.isclose(s.accuracy, (s.n_resolved or 0) / total, abs_tol=1e-9):
        problems.append(f"run {r.id}: accuracy {s.accuracy:g}, its counts make {(s.n_resolved or 0) / total:g}")
    if s.resolved_ids is not None and r.trials_from == "trial folders" and set(s.resolved_ids) != resolved:
        odd = set(s.resolved_ids) ^ resolved
        problems.append(f"run {r.id}: resolved_ids differ from its trials on {_list(odd)}")
    return problems


def summaries_agree(sub: TbSubmission) -> Check:
    problems = [p for r in sub.runs for p in _summary_problems(r)]
    if problems:
        return Check("tb_summaries_agree", False, "; ".join(problems))
    return Check("tb_summaries_agree", True, f"each of the {len(sub.runs)} run summaries agrees with its trials")


def checks(track: TrackInput, sub: TbSubmission) -> list[Check]:
    ran = version_ran(track, sub)
    return [
        dataset_held(track, sub, ran),
        runs_required(track, sub, ran),
        timeouts_as_set(sub),
        one_agent_one_model(sub),
        trials_complete(sub, ran),
        summaries_agree(sub),
    ]


def run_accuracies(sub: TbSubmission, tasks: list[str], runs: list[RunInput]) -> list[float]:
    """Each run's accuracy, resolved / (tasks × attempts): from the stored trials of the dataset's tasks (a task
    left out counts unresolved), or, for a run sent without per-trial results, from its summary's counts."""
    wanted = set(tasks)
    resolved: Counter[int] = Counter()
    for run in runs:
        if run.task in wanted and (run.score or 0) >= 1:
            resolved[(run.trial - 1) // sub.attempts] += 1
    out = []
    for index, r in enumerate(sub.runs):
        if r.trials:
            out.append(resolved[index] / (len(tasks) * r.attempts) if tasks else 0.0)
        elif r.summary is not None and r.summary.n_resolved is not None:
            total = r.summary.n_resolved + (r.summary.n_unresolved or 0)
            out.append(r.summary.n_resolved / total if total else 0.0)
    return out


def recomputed(sub: TbSubmission, tasks: list[str], runs: list[RunInput]) -> dict[str, float | None]:
    """accuracy (the mean of the runs' accuracies), its standard error over runs (their sample standard deviation,
    n - 1, over √n; None for one run), and pass^k (k = 1 .. the fewest trials of a task) and any-of-k (k = 2 ..
    the same; any-of-1 is pass^1), per task, then the mean over the dataset's tasks, when every run sent its
    trials."""
    accuracies = run_accuracies(sub, tasks, runs)
    out: dict[str, float | None] = {
        "accuracy": fmean(accuracies) if accuracies else None,
        "accuracy stderr": stdev(accuracies) / math.sqrt(len(accuracies)) if len(accuracies) > 1 else None,
    }
    if not sub.runs or any(not r.trials for r in sub.runs):
        return out  # per-task figures need every run's trials: not verifiable from summaries' counts
    counts: dict[str, list[int]] = {}
    for run in runs:
        if run.task in tasks and run.score is not None:
            n_c = counts.setdefault(run.task, [0, 0])
            n_c[0] += 1
            n_c[1] += int(run.score >= 1)
    pairs = {task: (n, c) for task, (n, c) in counts.items()}
    top = min((n for n, _ in pairs.values()), default=0)
    for k in range(1, top + 1):
        out[f"pass^{k}"] = mean_over_tasks(tasks, pairs, k, pass_hat)
    for k in range(2, top + 1):  # (any-of-1 is pass^1, as on the boards)
        out[f"any-of-{k}"] = mean_over_tasks(tasks, pairs, k, pass_any)
    return out


def figures(claims: list[Claim], computed: dict[str, float | None]) -> list[Figure]:
    """Each claim beside its recomputed figure (within the claim's rounding), then every recomputed figure not
    claimed (no claim: nothing agrees); a claim the files cannot support is not verifiable."""
    out = []
    for c in claims:
        value = computed.get(c.name)
        out.append(Figure(c.name, c.value, value, None if value is None else agrees(c.value, c.decimals, value)))
    claimed = {c.name for c in claims}
    out += [
        Figure(name, None, value, None) for name, value in computed.items() if name not in claimed and value is not None
    ]
    return out
