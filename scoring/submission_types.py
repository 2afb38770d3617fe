"""What the submission checks read and answer (`scoring.submission_checks`, `scoring.submission_attempts`): a
submitted file with its runs (`Sim`), a check's answer (`Check`), and the helpers that group and name them. Pure."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str
    # A failed disclosure: each thing it compares, what ran beside what was declared
    # ([{"what": "model", "ran": ..., "declared": ...}]); None otherwise.
    values: list[dict[str, str]] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.values is None:
            del out["values"]
        return out


@dataclass(frozen=True)
class Sim:
    """One simulation (or run) as sent: its task id within the family, its trial (1-based; None when the file
    did not say), seed, whether it counts (not an infrastructure error, has a reward), and its transcript."""

    task: str
    trial: int | None
    seed: Any = None
    counted: bool = True
    infra: bool = False
    has_transcript: bool = True
    held: bool = True  # a task the benchmark holds in the version ran (`held_only`)
    # Where its file says which task graded it (τ²: the actions its reward checks are those of one task of the
    # file): that task's id when it is not `task`, "" when no task of the file has those actions; None when it
    # is `task`, or nothing says (`scoring.tau2_runs.graded_as`).
    graded_as: str | None = None


@dataclass
class SubmittedFile:
    name: str
    family: str
    sims: list[Sim]
    info: dict | None = None
    # Task id -> fingerprint of the task definitions the file carries; None when it carries none.
    task_fingerprints: dict[str, str] | None = None
    agent: str | None = None  # the agent and user models with their arguments, as one comparable text
    user: str | None = None
    # The trials per task its sender declares apart from `info` (an Inspect log's `epochs`); τ²'s are in `info`.
    trials_declared: int | None = None


def task_ids(ids: list[str] | set[str], cap: int = 12) -> str:
    ordered = sorted(ids, key=lambda t: (len(t), t))
    shown = ", ".join(ordered[:cap])
    return shown + (", …" if len(ordered) > cap else "")


def by_family(files: list[SubmittedFile]) -> dict[str, list[SubmittedFile]]:
    out: dict[str, list[SubmittedFile]] = defaultdict(list)
    for f in files:
        out[f.family].append(f)
    return out
