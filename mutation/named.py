"""The mutants a review found surviving, put back one at a time: each must make a test fail.

mutmut mutates code inside functions only, so a rule held in a module constant (a status set, a tolerance) is
never mutated by it; these hand-written mutants cover those and the other mutants named in the review. Each is a
list of (file, text, replacement) edits applied to a copy of the checkout in var/mutate/named/, followed by a
pytest run of the tests that should kill it. Usage: `python mutation/named.py [scoring] [voting]` (both by
default); exits non-zero if a mutant survives or its text is no longer found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = ROOT / "var" / "mutate" / "named"
# The pure tests run with the Django plugin too: the suite's autouse fixtures (tests/conftest.py) clear the run's
# cache keys, which needs Django's settings, so under `-p no:django` every test errors at set-up, and an error
# must never pass for a killed mutant. A test that uses no database creates none.
PURE: list[str] = []
# The Django tests reuse one test database across the mutants (created by the first).
DJANGO = ["--reuse-db"]


@dataclass(frozen=True)
class Mutant:
    target: str
    name: str
    edits: tuple[tuple[str, str, str], ...]
    tests: tuple[str, ...]
    pytest_args: tuple[str, ...] = ()


MUTANTS = [
    Mutant(
        "scoring",
        "the pass tolerance set to 0",
        (("scoring/scored.py", "TOLERANCE = 1e-9", "TOLERANCE = 0"),),
        ("tests/scoring/test_scored.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "over_budget counted in outcomes",
        (
            (
                "scoring/outcomes.py",
                'NOT_COUNTED = frozenset({"infra_error", "not_started", "over_budget"})',
                'NOT_COUNTED = frozenset({"infra_error", "not_started"})',
            ),
        ),
        ("tests/scoring/test_outcomes.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "not_started dropped from the counted runs in checks",
        (
            (
                "scoring/checks.py",
                'COUNTED = frozenset({"completed", "not_started", "timeout", "budget_exhausted"})',
                'COUNTED = frozenset({"completed", "timeout", "budget_exhausted"})',
            ),
        ),
        ("tests/scoring/test_checks.py", "tests/scoring/test_checks_seed_rules.py"),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "a checks run stopped at the time limit judged by its recorded time again",
        (("scoring/checks.py", 'STOPPED_AT_TIME_LIMIT = "timeout"', 'STOPPED_AT_TIME_LIMIT = "stopped"'),),
        ("tests/scoring/test_handed_in_runs.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "a checks run one token over its budget counted",
        (
            (
                "scoring/checks.py",
                "return not (task.token_budget is not None and known_tokens(run) > task.token_budget)",
                "return not (task.token_budget is not None and known_tokens(run) > task.token_budget + 1)",
            ),
        ),
        ("tests/scoring/test_handed_in_runs.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "a checks task without a token budget accepted",
        (
            (
                "scoring/checks.py",
                'REQUIRED_LIMITS = (("time_limit_min", "time limit"), ("token_budget", "token budget"))',
                'REQUIRED_LIMITS = (("time_limit_min", "time limit"),)',
            ),
        ),
        ("tests/scoring/test_handed_in_runs.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "checks tasks without limits accepted",
        (("scoring/methodologies.py", "        missing_limits=checks.missing_limits,\n", ""),),
        ("tests/scoring/test_handed_in_runs.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "the 95% interval turned into 80%",
        (
            ("scoring/bradley_terry.py", "np.percentile(boot, 2.5, axis=0)", "np.percentile(boot, 10, axis=0)"),
            ("scoring/bradley_terry.py", "np.percentile(boot, 97.5, axis=0)", "np.percentile(boot, 90, axis=0)"),
        ),
        ("tests/scoring/test_bradley_terry.py",),
        (*PURE, "-k", "interval"),
    ),
    Mutant(
        "scoring",
        "the interval's lower end at the 3.5th percentile",
        (("scoring/bradley_terry.py", "np.percentile(boot, 2.5, axis=0)", "np.percentile(boot, 3.5, axis=0)"),),
        ("tests/scoring/test_bradley_terry.py",),
        (*PURE, "-k", "interval"),
    ),
    Mutant(
        "scoring",
        "a third verdict deciding beside a tester and a second who agree",
        (
            (
                "scoring/common.py",
                """        if tester is not None and second is not None and tester == second:
            return tester
        third = by_role.get("third")
""",
                """        third = by_role.get("third")
        if third is not None:
            return third
        if tester is not None and second is not None and tester == second:
            return tester
""",
            ),
        ),
        ("tests/scoring/test_outcomes.py", "tests/scoring/test_weekly.py"),
        (*PURE, "-k", "third"),
    ),
    Mutant(
        "scoring",
        "the scored interval drawing trials instead of tasks",
        (
            (
                "scoring/scored.py",
                'cells[(row["agent"], task.key)] = ([cell["best"]], True) if cell else ([0.0], False)',
                'cells[(row["agent"], task.key)] = ([s["score"] for s in cell["scores"] if s.get("score") is not None]'
                ", True) if cell else ([0.0], False)",
            ),
            (
                "scoring/methodologies.py",
                'IntervalRule(cells=scored.interval_cells, statistic="best", resample_runs=False)',
                'IntervalRule(cells=scored.interval_cells, statistic="best", resample_runs=True)',
            ),
        ),
        ("tests/scoring/test_intervals.py",),
        (*PURE, "-k", "0_9"),
    ),
    Mutant(
        "scoring",
        "the weekly round's week not checked",
        (("scoring/methodologies.py", "        same_week=True,\n", ""),),
        ("tests/scoring/test_same_week.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "the first second after a round's week counted in it",
        (("scoring/bundle_run_checks.py", "if start <= started_at < end:", "if start <= started_at <= end:"),),
        ("tests/scoring/test_same_week.py",),
        tuple(PURE),
    ),
    Mutant(
        "scoring",
        "an Inspect sample stopped by its working-time limit read as a budget exhausted",
        (
            (
                "bundles/inspect_logs.py",
                'TIME_LIMITS = frozenset({"time", "working"})',
                'TIME_LIMITS = frozenset({"time"})',
            ),
        ),
        ("tests/inspect_logs/test_import_inspect.py",),
        (*DJANGO, "-k", "time_or_working"),
    ),
    Mutant(
        "scoring",
        "a dimension score no longer floored at 0",
        (
            (
                "scoring/outcomes.py",
                "dimensions[name] = ten_point_score(sum(r.points or 0 for r in tagged), len(tagged))",
                "dimensions[name] = 5 * sum(r.points or 0 for r in tagged) / len(tagged) if tagged else None",
            ),
        ),
        ("tests/scoring/test_dimension_floor.py",),
    ),
    Mutant(
        "scoring",
        "no 0-10 score floored at 0",
        (("scoring/outcomes.py", "return max(0.0, 5 * points / tested)", "return 5 * points / tested"),),
        ("tests/scoring/test_dimension_floor.py",),
    ),
    Mutant(
        "scoring",
        "the clustered bootstrap ignoring the round's task families",
        (
            (
                "scoring/intervals.py",
                "families = {t.key: t.family for t in round_input.tasks if t.family}",
                "families: dict[str, str] = {}",
            ),
        ),
        ("tests/scoring/test_intervals_read_task_families.py",),
        (*DJANGO,),
    ),
    Mutant(
        "scoring",
        "a bundle's task families not read into the round",
        (("scoring/bundle.py", 'family=t.get("family") or None,', "family=None,"),),
        ("tests/scoring/test_intervals_read_task_families.py",),
        (*DJANGO,),
    ),
    Mutant(
        "voting",
        "the voter's own votes in everyone else's fit",
        (("voting/services/flagging.py", "others[task_id][cell_of(task_id, a, b, winner)[1:]] -= n", "pass"),),
        ("tests/voting/test_counting.py",),
        (*DJANGO, "-k", "agreement or flag"),
    ),
    Mutant(
        "voting",
        "the new-account delay ignored on unflagging",
        (
            ("voting/services/flagging.py", "held.filter(counts_from__gt=now).update(held=Held.NEW_ACCOUNT)", "pass"),
            (
                "voting/services/flagging.py",
                "rows = votes_lock(held.filter(Q(counts_from__isnull=True) | Q(counts_from__lte=now)))",
                "rows = votes_lock(held)",
            ),
        ),
        ("tests/voting/test_counting.py",),
        (*DJANGO, "-k", "flag"),
    ),
    Mutant(
        "voting",
        "a pair's one-time aliases accepted at the instant they expire",
        (("voting/draw/matchups.py", "if matchup.expires_at <= now:", "if matchup.expires_at < now:"),),
        ("tests/voting/test_alias_expiry_instant.py",),
        (*DJANGO,),
    ),
    Mutant(
        "voting",
        "linear draw weights",
        (
            (
                "voting/draw/matchups.py",
                "weights = [1.0 / (1 + seen.get(c, 0)) ** 2 for c",
                "weights = [1.0 / (1 + seen.get(c, 0)) for c",
            ),
        ),
        ("tests/voting/test_draw.py",),
        (*DJANGO, "-k", "weight or favoured"),
    ),
]


def fresh_copy() -> None:
    COPY.mkdir(parents=True, exist_ok=True)
    excludes = ["/.git", "/.venv", "/var", "/mutants", "/staticfiles", "__pycache__"]
    args = ["rsync", "-a", "--delete", *(f"--exclude={e}" for e in excludes), f"{ROOT}/", f"{COPY}/"]
    subprocess.run(args, check=True)
    shared = COPY / "shared"
    if not shared.exists():
        shared.symlink_to((ROOT / ".." / "shared").resolve())


def apply(m: Mutant) -> str | None:
    for rel, text, replacement in m.edits:
        path = COPY / rel
        source = path.read_text()
        if source.count(text) != 1:
            return f"{rel}: the text {text!r} is not found once (the code changed: update this mutant)"
        path.write_text(source.replace(text, replacement))
    return None


def _verdict(run: subprocess.CompletedProcess) -> str | None:
    """None when a test failed on the mutant (killed); else why it is not killed. A run that stopped on an error
    (a fixture or an import that broke) killed nothing: the tests never looked at the rule."""
    summary = (run.stdout.strip().splitlines() or [""])[-1]
    if run.returncode == 1 and re.search(r"\d+ failed", summary) and not re.search(r"\d+ errors?\b", summary):
        return None
    if run.returncode == 1:
        return f"not killed: the tests stopped on an error, not a failure ({summary})"
    return f"survived (pytest exit code {run.returncode})"


def main(targets: list[str]) -> int:
    failed = 0
    python = str(Path(sys.executable))
    env = {k: v for k, v in os.environ.items() if k != "TEST_RUN_ID"}
    for m in (m for m in MUTANTS if m.target in targets):
        fresh_copy()
        problem = apply(m)
        if problem is None:
            cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *m.pytest_args, *m.tests]
            run = subprocess.run(cmd, cwd=COPY, env=env, capture_output=True, text=True)
            problem = _verdict(run)
        failed += problem is not None
        print(f"{m.target}: {m.name}: {problem or 'killed'}", flush=True)
    shutil.rmtree(COPY, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["scoring", "voting"]))
