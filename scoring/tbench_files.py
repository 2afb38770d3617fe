"""The shapes of the JSON files `tb run` writes (harness 0.2), as `scoring.tbench` reads them: a trial's
`results.json`, a run's summary (whole, or with its inline results left unread), `run_metadata.json` and
`tb.lock`. Every field is optional and checked for its kind; counts are never negative. Pure."""

from __future__ import annotations

from typing import Annotated

import msgspec

Count = Annotated[int, msgspec.Meta(ge=0)]


class TrialFile(msgspec.Struct):
    task_id: str
    trial_name: str | None = None
    is_resolved: bool | None = None
    failure_mode: str | None = None
    parser_results: dict[str, str | None] | None = None
    recording_path: str | None = None
    total_input_tokens: Count | None = None
    total_output_tokens: Count | None = None
    trial_started_at: str | None = None
    trial_ended_at: str | None = None
    agent_started_at: str | None = None
    agent_ended_at: str | None = None
    test_started_at: str | None = None
    test_ended_at: str | None = None


class SummaryFile(msgspec.Struct):
    results: list[TrialFile] | None = None
    n_resolved: Count | None = None
    n_unresolved: Count | None = None
    accuracy: float | None = None
    resolved_ids: list[str] | None = None
    unresolved_ids: list[str] | None = None


class SummaryHeadFile(msgspec.Struct):
    """A run's summary with its inline results left unread (`msgspec.Raw`): read as `SummaryFile` only when the run
    sent no trial folders, so that its trials are these."""

    results: list[msgspec.Raw] | None = None
    n_resolved: Count | None = None
    n_unresolved: Count | None = None
    accuracy: float | None = None
    resolved_ids: list[str] | None = None
    unresolved_ids: list[str] | None = None


class MetadataFile(msgspec.Struct):
    run_id: str | None = None
    dataset_name: str | None = None
    dataset_version: str | None = None
    agent_name: str | None = None
    model_name: str | None = None
    task_ids: list[str] | None = None
    n_attempts: Count | None = None
    start_time: str | None = None


class _RunConfig(msgspec.Struct):
    n_attempts: Count | None = None
    global_timeout_multiplier: float | None = None
    global_agent_timeout_sec: float | None = None
    global_test_timeout_sec: float | None = None


class _Named(msgspec.Struct):
    name: str | None = None
    version: str | None = None
    model_name: str | None = None


class LockFile(msgspec.Struct):
    run_config: _RunConfig | None = None
    agent: _Named | None = None
    dataset: _Named | None = None
