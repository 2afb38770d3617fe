"""The task definitions (``tasks/**/*.yaml``) as the bundle's tasks, every problem reported with its file
and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from scoring.bundle_checks import SLUG_RE, VERSION_RE
from scoring.types import EVALUATIONS

from .common import number, rel_path


def load_tasks(root: Path, problems: list[str]) -> tuple[list[dict], set[str]]:
    """The tasks, and every id defined (even in a task file with problems, so results are not blamed)."""
    tasks_dir = root / "tasks"
    files = (
        sorted(p for p in tasks_dir.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        if tasks_dir.is_dir()
        else []
    )
    if not files:
        problems.append("tasks/: no task definitions (*.yaml) found")
    tasks: list[dict] = []
    seen: dict[str, str] = {}
    for f in files:
        rel = rel_path(f, root)
        read = _read_task_yaml(f, rel, problems)
        if read is not None:
            task = _task_from(*read, rel, problems, seen)
            if task is not None:
                tasks.append(task)
    return tasks, set(seen)


def _read_task_yaml(f: Path, rel: str, problems: list[str]) -> tuple[dict, Any] | None:
    """The task file as data, and as its published text (every scalar a string), or None with the problem."""
    try:
        text = f.read_text(encoding="utf-8")
        doc = yaml.safe_load(text)
        # The same file with every scalar as its published text, so `version: 1` stays "1" and a
        # version such as 1.10 is not read as the float 1.1.
        raw = yaml.load(text, Loader=yaml.BaseLoader)  # only str, list, dict
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        problems.append(f"{rel}: (file): cannot be read as YAML: {str(e).splitlines()[0]}")
        return None
    if not isinstance(doc, dict):
        problems.append(f"{rel}: (file): must be a mapping, got {type(doc).__name__}")
        return None
    return doc, raw


def _task_from(doc: dict, raw: Any, rel: str, problems: list[str], seen: dict[str, str]) -> dict | None:
    """One task of the bundle from its file, or None (with every problem reported) when the file is wrong."""
    n_before = len(problems)
    tid = doc.get("id")
    if not isinstance(tid, str) or not SLUG_RE.match(tid):
        problems.append(f"{rel}: id: {tid!r} is not a task id" if tid is not None else f"{rel}: id: is required")
        tid = None
    elif tid in seen:
        problems.append(f"{rel}: id: {tid!r} is also defined in {seen[tid]}")
    else:
        seen[tid] = rel
    version = "1.0"
    if doc.get("version") is not None:
        version = str(raw.get("version")) if isinstance(raw, dict) else str(doc["version"])
        if not VERSION_RE.match(version):
            problems.append(f"{rel}: version: {version!r} is not a version like 1 or 2.1")
    evaluation, timeout = _task_evaluation(doc.get("evaluation"), rel, problems)
    human = doc.get("human_time_minutes")
    if human is not None:
        human = number(human, f"{rel}: human_time_minutes", problems, 0.0)
    tags = doc.get("tags")
    if tags is not None and (not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)):
        problems.append(f"{rel}: tags: must be a list of strings")
        tags = None
    for k in ("title", "domain", "difficulty", "prompt"):
        if doc.get(k) is not None and not isinstance(doc[k], str):
            problems.append(f"{rel}: {k}: must be a string, got {type(doc[k]).__name__}")
    if tid is None or len(problems) > n_before:
        return None
    return {
        "key": tid,
        "title": doc.get("title") or tid,
        "version": version,
        "kind": "core",
        "domain": doc.get("domain"),
        # The benchmark makes its tasks by domain (code-001, code-002, ...): a domain is a family of tasks
        # that share their harness and data, so the intervals resample them together.
        "family": doc.get("domain"),
        "dimensions": [],
        "difficulty": doc.get("difficulty"),
        "evaluation": evaluation,
        "prompt": doc.get("prompt"),
        "human_minutes": human,
        "tags": list(tags or []),
        "time_limit_min": round(timeout / 60, 4) if timeout is not None else None,
        "token_budget": None,
    }


def _task_evaluation(ev: Any, rel: str, problems: list[str]) -> tuple[str | None, float | None]:
    """The task's evaluation type and time-out (seconds), reporting what is wrong."""
    if not isinstance(ev, dict):
        problems.append(f"{rel}: evaluation: is required (a mapping with a type)")
        return None, None
    evaluation = ev.get("type")
    if evaluation not in EVALUATIONS:
        problems.append(f"{rel}: evaluation.type: {evaluation!r} is not one of {', '.join(EVALUATIONS)}")
    timeout = None
    if ev.get("timeout_seconds") is not None:
        timeout = number(ev["timeout_seconds"], f"{rel}: evaluation.timeout_seconds", problems, 0.0)
    return evaluation, timeout
