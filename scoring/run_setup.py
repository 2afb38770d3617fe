"""How a run was run, where its methodology's seed says it is recorded: 002's judge model and execution mode.

002, "Evaluation Types": "LLM Judge (llm-judge) — sends the agent's output and a rubric to an LLM evaluator (Claude
Sonnet by default)"; "Sandbox": "Docker mode (recommended): A fresh Docker container prepares the workspace ... This
ensures reproducibility across machines. Local mode (fallback): When Docker is unavailable, a local temporary
directory is used. Results may vary based on the host environment." Each scored run records the model that judged it
(`judge_model`) and its mode (`execution_mode`: "docker" or "local"). What a run does not record is shown as not
recorded, never as the default: the seed's default is what the tool does unless told otherwise, not what a run did.
No other seed records either, so another methodology's run holding one is refused (`setup_problems`), the API leaves
both out and runs.csv leaves them blank. Pure: no database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RUN_SETUP_FIELDS = ("judge_model", "execution_mode")
JUDGE_MODEL_MAX = 200
FIELD_WORDS = {"judge_model": "judge model", "execution_mode": "execution mode"}


@dataclass(frozen=True)
class ExecutionMode:
    """One way a run's workspace was made, with the seed's words for it."""

    key: str
    label: str
    words: str
    # "Results may vary based on the host environment": the run page marks it.
    varies: bool = False


@dataclass(frozen=True)
class RunSetupRule:
    """What a methodology's run records of how it was run: the judge's model (with the seed's default, in words)
    and the execution modes its seed names."""

    judge_default: str
    judge_words: str
    modes: tuple[ExecutionMode, ...]

    def mode(self, key: str | None) -> ExecutionMode | None:
        return next((m for m in self.modes if m.key == key), None)


SCORED_SETUP = RunSetupRule(
    judge_default="Claude Sonnet",
    judge_words="an LLM evaluator (Claude Sonnet by default)",
    modes=(
        ExecutionMode(
            "docker",
            "Docker",
            "A fresh Docker container prepares the workspace ... This ensures reproducibility across machines.",
        ),
        ExecutionMode(
            "local",
            "Local mode (fallback)",
            "When Docker is unavailable, a local temporary directory is used. Results may vary based on the host "
            "environment.",
            varies=True,
        ),
    ),
)


def setup_problems(rule: RunSetupRule | None, methodology: str, run: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What is wrong with the judge model and execution mode a run gives (a bundle's run document), as (field,
    why): one given on a methodology that records neither, text that is too long, a mode the seed does not name.
    Null or "" is "not recorded" and always accepted."""
    problems = []
    for f in RUN_SETUP_FIELDS:
        value = run.get(f)
        if value is None or value == "":
            continue
        if rule is None:
            why = f"the {methodology} methodology records no {FIELD_WORDS[f]}: only scored (002) runs do"
            problems.append((f, why))
        elif not isinstance(value, str):
            problems.append((f, "must be text or null"))
        elif f == "judge_model" and (len(value) > JUDGE_MODEL_MAX or value != value.strip()):
            why = f"must be a model's name of at most {JUDGE_MODEL_MAX} characters, without spaces around it"
            problems.append((f, why))
        elif f == "execution_mode" and rule.mode(value) is None:
            keys = " or ".join(repr(m.key) for m in rule.modes)
            problems.append((f, f"{value[:40]!r} is not an execution mode: {keys} (or null, not recorded)"))
    return problems
