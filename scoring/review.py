"""A run's review as the public and the boards read it: the outcome its verdicts give it by its methodology's
review rule, whether that review is decided, and which verdicts may be shown meanwhile. Verdicts come as the
site's models or a bundle's dicts alike: the site, the API, the export and the boards read one rule."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from . import methodologies
from .common import reviewed_outcome
from .types import RoundInput, RunInput, TaskInput, VerdictInput


def _verdict_input(v: Any) -> VerdictInput:
    get: Callable[[str], Any] = v.get if isinstance(v, dict) else (lambda name: getattr(v, name))
    return VerdictInput(role=get("role"), outcome=get("outcome") or None, matched=tuple(get("matched") or ()))


def verdicts_outcome(methodology: str, task: TaskInput, verdicts: Iterable[Any]) -> str | None:
    """The outcome `verdicts` (models or bundle dicts) give a run by the methodology's review rule
    (`scoring.common.reviewed_outcome`), None while it is in review: the tester and the second agree, else a
    third decided; on the weekly table (no double review) a lone tester's label stands. A violation counts only
    where the methodology allows one on the task (its `violation_possible`); elsewhere it is a fail."""
    rules = methodologies.get(methodology)
    as_input = RunInput(id="", round="", agent="", task=task.key, verdicts=tuple(_verdict_input(v) for v in verdicts))
    allow = bool(rules.violation_possible and rules.violation_possible(task))
    return reviewed_outcome(as_input, allow_violation=allow, double_review=rules.double_review)


def review_decided(methodology: str, task: TaskInput, verdicts: Iterable[Any]) -> bool:
    """Whether `verdicts` give a run its outcome yet (`verdicts_outcome`)."""
    return verdicts_outcome(methodology, task, verdicts) is not None


def verdicts_public[V](methodology: str, task: TaskInput, verdicts: Iterable[V]) -> list[V]:
    """A published run's verdicts as the public (and every reviewer) reads them: all of them once its review is
    complete (000 §5: "All three outcomes are published"), none while it is still in review (a run added to a
    published round, or sent back to review by a correction): the second reviewer scores "without seeing the
    first outcome", and a published round must not show it to them either."""
    listed = list(verdicts)
    return listed if listed and review_decided(methodology, task, listed) else []


def as_public(round_input: RoundInput) -> RoundInput:
    """The round's inputs as its public download carries them (`bundles.export`): a run still in review has no
    verdicts and no label (`verdicts_public`). What a board shows beside the site's ranks (every board under
    each other reading, `scoring.reading_boards`) is computed from these, so it tells no one a verdict the
    review keeps blind, and a recount of the download gives it again."""
    tasks = {t.key: t for t in round_input.tasks}
    runs = tuple(
        dataclasses.replace(run, verdicts=(), outcome=None) if _in_review(round_input.methodology, tasks, run) else run
        for run in round_input.runs
    )
    return dataclasses.replace(round_input, runs=runs)


def _in_review(methodology: str, tasks: dict[str, TaskInput], run: RunInput) -> bool:
    task = tasks.get(run.task)
    return bool(run.verdicts) and (task is None or not review_decided(methodology, task, run.verdicts))
