"""Hand-made Terminal-Bench folders (what `tb run` writes, cut to what the site reads), to break one rule at a
time: `folder()` gives {path: bytes}, five runs of the two tasks of "toy-bench" 1.0 by default, each run
resolving the tasks `resolved(run)` names."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

from scoring.submission_checks import TaskSet, TrackInput

DATASET, VERSION, TASKS = "toy-bench", "1.0", ("alpha", "beta")


def track(*, accepted: tuple[str, ...] = (VERSION,), trials_min: int = 1) -> TrackInput:
    """The benchmark holding toy-bench 1.0 (tasks alpha and beta), its track taking `accepted`."""
    held = TaskSet(VERSION, {DATASET: {t: (f"v:{VERSION}", VERSION) for t in TASKS}})
    return TrackInput({DATASET: list(TASKS)}, [held], list(accepted), trials_min)


def trial(run: str, task: str, *, attempt: int = 1, of: int = 1, resolved: bool = True, **extra: Any) -> dict:
    return {
        "trial_name": f"{task}.{attempt}-of-{of}.{run}",
        "task_id": task,
        "is_resolved": resolved,
        "failure_mode": "unset",
        "parser_results": {"test_it": "passed" if resolved else "failed"},
        "recording_path": f"{run}/{task}/{task}.{attempt}-of-{of}.{run}/sessions/agent.cast",
        "total_input_tokens": 0,
        "total_output_tokens": 0,
        "trial_started_at": "2025-09-01T10:00:00+00:00",
        "agent_started_at": "2025-09-01T10:00:01+00:00",
        "agent_ended_at": "2025-09-01T10:01:01.5+00:00",
        "test_started_at": "2025-09-01T10:01:02+00:00",
        "test_ended_at": "2025-09-01T10:01:07+00:00",
        **extra,
    }


def folder(
    *,
    runs: int = 5,
    attempts: int = 1,
    resolved: Callable[[int], set[str]] = lambda i: {"alpha"},
    agent: Callable[[int], str] = lambda i: "toy-agent",
    model: Callable[[int], str | None] = lambda i: "toy-model-1",
    config: Callable[[int], dict] = lambda i: {},
    dataset: tuple[str, str] = (DATASET, VERSION),
    skip: set[tuple[int, str]] = frozenset(),  # (run, task) with no trial folder
    summary: Callable[[int, dict], dict] = lambda i, s: s,
    trial_folders: bool = True,
) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for i in range(1, runs + 1):
        run = f"run-{i}"
        trials = [
            trial(run, task, attempt=a, of=attempts, resolved=task in resolved(i))
            for task in TASKS
            for a in range(1, attempts + 1)
            if (i, task) not in skip
        ]
        ids = [t["task_id"] for t in trials if t["is_resolved"]]
        unresolved = [t["task_id"] for t in trials if not t["is_resolved"]]
        doc = {
            "results": trials,
            "n_resolved": len(ids),
            "n_unresolved": len(unresolved),
            "resolved_ids": ids,
            "unresolved_ids": unresolved,
            "accuracy": len(ids) / len(trials) if trials else 0,
        }
        if not trial_folders:
            out[f"{run}_results.json"] = json.dumps(summary(i, doc)).encode()
            continue
        out[f"{run}/results.json"] = json.dumps(summary(i, doc)).encode()
        meta = {
            "run_id": run,
            "dataset_name": dataset[0],
            "dataset_version": dataset[1],
            "agent_name": agent(i),
            "model_name": model(i),
            "task_ids": list(TASKS),
            "n_attempts": attempts,
            "start_time": f"2025-09-0{i}T10:00:00+00:00",
        }
        out[f"{run}/run_metadata.json"] = json.dumps(meta).encode()
        run_config = {
            "n_attempts": attempts,
            "global_timeout_multiplier": 1.0,
            "global_agent_timeout_sec": None,
            "global_test_timeout_sec": None,
            **config(i),
        }
        lock = {
            "run_config": run_config,
            "agent": {"name": agent(i), "model_name": model(i)},
            "dataset": {"name": dataset[0], "version": dataset[1]},
        }
        out[f"{run}/tb.lock"] = json.dumps(lock).encode()
        for t in trials:
            out[f"{run}/{t['task_id']}/{t['trial_name']}/results.json"] = json.dumps(t).encode()
    return out


def zipped(files: dict[str, bytes], top: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(f"{top}{name}", data)
    return out.getvalue()


CAST = (
    b'{"version": 2, "width": 80, "height": 24, "timestamp": 1752276157}\n'
    b'[0.1, "o", "\\u001b[?2004hroot@box:/app# "]\n'
    b'[1.0, "i", "ls -la\\r"]\n'
    b'[1.2, "o", "ls -la\\r\\ntotal 8\\r\\n-rw-r--r-- 1 root root 42 notes.txt\\r\\n"]\n'
    b'[2.5, "o", "\\r0% [Working]\\r            \\rDone: flux capacitor ready\\r\\n"]\n'
)
