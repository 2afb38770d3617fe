"""A Terminal-Bench trial as one of the site's runs (a bundle's `runs[]` document) with its transcript
(docs/transcripts.md): its task, its trial number (the run's place, then the attempt), resolved or not as its score
(1 or 0), its tests as checks, its tokens, the agent's time as its wall time, and a transcript holding the
recording's text, the tests, the failure mode and the times. Pure: plain values in and out."""

from __future__ import annotations

from typing import Any

from .tbench import TbSubmission, Trial
from .tbench_casts import TRANSCRIPT_FORMAT


def run_docs(sub: TbSubmission, family: str) -> list[tuple[str, dict[str, Any]]]:
    """Each trial as a bundle run (`runs[]`), with the recording it was sent (popped before the import: the
    services store it as the run's evidence), by `family` (the dataset's name)."""
    out = []
    for index, run in enumerate(sub.runs):
        for t in run.trials:
            doc: dict[str, Any] = {
                "id": f"{run.id}-{t.task}-a{t.attempt}",
                "task": t.task,
                "trial": sub.trial_number(index, t.attempt),
                "status": "timeout" if t.failure_mode == "agent_timeout" else "completed",
                "score": 1.0 if t.resolved else 0.0,  # no result (a failure) is unresolved, as Terminal-Bench counts it
                "tokens_input": t.tokens_input,
                "tokens_output": t.tokens_output,
                "wall_seconds": t.agent_seconds,
                "checks": [
                    {
                        "kind": "test",
                        "name": name[:300],
                        "passed": result == "passed",
                        "detail": "" if result in ("passed", "failed") else result,
                    }
                    for name, result in t.tests.items()
                ],
                "transcript": _transcript(t),
                "recording": {"path": t.recording_path, "data": t.recording},
            }
            if t.started_at:
                doc["started_at"] = t.started_at
            out.append((family, doc))
    return out


ANSWERS = {True: "resolved", False: "unresolved", None: "no result"}


def _transcript(t: Trial) -> dict[str, Any]:
    """What the trial's page reads beside its recording: the recording's text (when sent), the tests with their
    results, the failure mode, and the agent's and the tests' times."""
    doc: dict[str, Any] = dict(t.recording_text) if t.recording_text else {"format": TRANSCRIPT_FORMAT, "messages": []}
    said = []
    mode = t.failure_mode if t.failure_mode not in ("", "unset", "none") else ""
    if mode:
        said.append(f"failure mode: {mode}")
    times = [f"agent {t.agent_seconds:.1f} s"] if t.agent_seconds is not None else []
    if t.test_seconds is not None:
        times.append(f"tests {t.test_seconds:.1f} s")
    if times:
        said.append(", ".join(times))
    doc["scores"] = [
        {
            "scorer": "Terminal-Bench tests",
            "value": None if t.resolved is None else float(t.resolved),
            "answer": ANSWERS[t.resolved],
            "explanation": "; ".join(said),
            "metadata": {
                "tests": t.tests,
                "failure_mode": t.failure_mode,
                "agent_seconds": t.agent_seconds,
                "test_seconds": t.test_seconds,
            },
        }
    ]
    if t.recording_path and t.recording is None:
        # Referenced by the trial, not sent (as in most published submissions): listed as missing on its page.
        doc["scores"][0]["metadata"]["recording_missing"] = t.recording_path
    if mode:
        doc["error"] = mode
    if t.tokens_input is not None or t.tokens_output is not None:
        doc["usage"] = {"agent": {"input_tokens": t.tokens_input, "output_tokens": t.tokens_output}}
    return doc
