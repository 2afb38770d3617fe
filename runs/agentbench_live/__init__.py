"""Convert the published AgentBench-Live directory into one results bundle (`scored` methodology).

Pure: reads files, returns a dict; no Django, no database, no clock. The directory is read as published
(``tasks/**/*.yaml`` and ``results/*.json``) and never written. See docs/agentbench-live.md for the mapping
and for how each quirk of the published files is handled.

API
---
``convert_directory(path) -> dict``
    The bundle (valid under ``scoring.bundle_checks.validate_bundle``), or ``ConversionError`` listing every problem,
    each naming the file and the field, e.g. ``results/foo.json: scores[3].score: 'abc' is not a number``.
    Nothing partial is ever returned. Same directory in, identical dict out. One round per run session
    (see ``run_sessions``), oldest first, so the last round is the latest session.
``run_sessions(timestamps) -> list[dict]``
    The run sessions (rounds) the result timestamps fall into: a gap of more than six hours starts a new one.
``score_parts(row) -> dict``
    The methodology's parts of one published score row: ``score``, ``auto_pass_rate``, ``judge_scores``,
    ``heuristic`` (see its docstring). Raises ``ConversionError`` (paths relative to the row) on bad values.
``ConversionError(problems)``
    A ``ValueError`` with ``problems: list[str]``.

Command line: ``python -m runs.agentbench_live DIR`` prints the bundle as JSON (problems: stderr, exit 1).

The package: ``tasks`` reads the task YAML, ``results`` the result files (and ``score_parts``), ``convert``
builds the bundle (``run_sessions``, ``convert_directory``, ``main``); ``common`` holds the error and the
checked numbers they share.
"""

from __future__ import annotations

from .common import ConversionError
from .convert import convert_directory, main, run_sessions
from .results import score_parts

__all__ = ["ConversionError", "convert_directory", "main", "run_sessions", "score_parts"]
