"""Reading a τ²-bench submission: `submission.json` (the declared fields and the claimed figures) and the
trajectory files beside it (τ²'s `Results`: `info`, `tasks`, `simulations`; or a bare list of simulations),
as τ²-bench defines them (`src/tau2/metrics/agent_metrics.py`): a simulation succeeds when its
`reward_info.reward` is 1 within 1e-6; an infrastructure error is left out of every figure; `trial` counts
from 0. Pure: bytes in, plain values out.

Every file is read within the upload's limits (`scoring.bounded_json`), and the fields the site reads are checked
for their kind before anything reads them (`RESULTS`): a file no field can hold is refused whole, naming the
file and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

import msgspec

from .bounded_json import Budget, JsonRefused, loads
from .scored import passes

TAU2_INFRA = frozenset({"infrastructure_error"})
# τ²'s pydantic defaults: a task as published (a default left out) and as dumped (written out) are the same task.
TASK_DEFAULTS = {"requestor": "assistant", "reward_basis": ["DB", "COMMUNICATE"]}
REQUIRED_FIELDS = (
    "model_name",
    "model_organization",
    "submitting_organization",
    "submission_date",
    "contact_info",
    "results",
)
CLAIM_FIELDS = {"pass_1": 1, "pass_2": 2, "pass_3": 3, "pass_4": 4}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Tau2Error(ValueError):
    """A submission that cannot be read at all: refused, nothing written."""


# τ²'s success (a reward of 1 within 1e-6) as the scored boards' pass threshold, rewards being at most 1: the one
# rule, stored with a τ² benchmark (`submissions.catalogue`) and so read by its boards and a submission's figures.
TAU2_PASS_THRESHOLD = 1 - 1e-6


def success(score: float | None) -> bool:
    return score is not None and passes(score, TAU2_PASS_THRESHOLD)


def _canon(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _canon(v) for k, v in value.items() if v not in (None, [], {}) and TASK_DEFAULTS.get(k, object()) != v
        }
    if isinstance(value, list):
        return [_canon(v) for v in value]
    return value


def task_fingerprint(task: dict) -> str:
    """sha256 of a τ² task's canonical JSON: nulls, empties and τ²'s defaults left out, keys sorted."""
    text = json.dumps(_canon(task), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Claim:
    name: str  # "airline pass^1", "airline cost"
    family: str
    kind: str  # "pass^k" or "cost"
    k: int | None
    value: float
    decimals: int
    unit: str  # "%" or "USD"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "decimals": self.decimals, "unit": self.unit}


@dataclass
class Tau2File:
    name: str
    domain: str
    info: dict | None
    tasks: list[dict] | None
    simulations: list[dict]


@dataclass
class Tau2Submission:
    declared: dict  # submission.json as sent, less contact_info.email
    contact: dict
    claims: list[Claim]
    files: list[Tau2File]
    notes: list[str] = field(default_factory=list)


def decimals_of(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def read_claims(results: Any) -> list[Claim]:
    claims: list[Claim] = []
    if not isinstance(results, dict):
        return claims
    for domain, figures in results.items():
        if not isinstance(figures, dict):
            continue
        for key, k in CLAIM_FIELDS.items():
            value = figures.get(key)
            if isinstance(value, Decimal | int) and not isinstance(value, bool):
                decimals = decimals_of(Decimal(value))
                claims.append(Claim(f"{domain} pass^{k}", domain, "pass^k", k, float(value), decimals, "%"))
        cost = figures.get("cost")
        if isinstance(cost, Decimal | int) and not isinstance(cost, bool):
            claims.append(Claim(f"{domain} cost", domain, "cost", None, float(cost), decimals_of(Decimal(cost)), "USD"))
    return claims


def _load(name: str, data: bytes, budget: Budget | None) -> Any:
    try:
        return loads(name, data, budget)
    except JsonRefused as exc:
        raise Tau2Error(str(exc)) from exc


# The fields of τ²'s `Results` the site reads, by kind: a file whose fields are of another kind is refused,
# naming the field. Fields not named here are carried as they are (a transcript's other parts) or not read.
Count = Annotated[int, msgspec.Meta(ge=0)]


class _Side(msgspec.Struct):
    llm: str | None = None
    llm_args: dict | None = None
    implementation: str | None = None


class _Environment(msgspec.Struct):
    domain_name: str | None = None


class _Info(msgspec.Struct):
    num_trials: Count | None = None
    max_steps: Count | None = None
    max_errors: Count | None = None
    seed: int | str | None = None
    git_commit: str | None = None
    agent_info: _Side | None = None
    user_info: _Side | None = None
    environment_info: _Environment | None = None


class _Task(msgspec.Struct):
    id: str | int


class _Call(msgspec.Struct):
    id: str | None = None
    name: str | None = None


class _Message(msgspec.Struct):
    role: str | None = None
    content: str | None = None
    tool_calls: list[_Call] | None = None


class _Reward(msgspec.Struct):
    reward: float | None = None


class _Simulation(msgspec.Struct):
    task_id: str | int
    trial: Count | None = None
    seed: int | str | None = None
    termination_reason: str | None = None
    reward_info: _Reward | None = None
    agent_cost: float | None = None
    user_cost: float | None = None
    duration: float | None = None
    start_time: str | None = None
    messages: list[_Message] | None = None


class _Results(msgspec.Struct):
    simulations: list[_Simulation]
    info: _Info | None = None
    tasks: list[_Task] | None = None


RESULTS = _Results | list[_Simulation]


def _kinds(name: str, doc: Any) -> None:
    """Refuse a trajectory file whose fields the site reads are of the wrong kind (`RESULTS`), or whose start
    times no clock the database keeps can hold, naming the field."""
    try:
        msgspec.convert(doc, RESULTS, strict=True)
    except msgspec.ValidationError as exc:
        why, _, where = str(exc).partition(" - at `$")
        where = where.rstrip("`").lstrip(".")
        raise Tau2Error(f"{name}: {where}: {why[:1].lower()}{why[1:]}" if where else f"{name}: {why}") from None
    sims = doc if isinstance(doc, list) else doc.get("simulations") or []
    for i, sim in enumerate(sims):
        problem = _time_problem(sim.get("start_time"))
        if problem:
            raise Tau2Error(f"{name}: {'' if isinstance(doc, list) else 'simulations'}[{i}].start_time: {problem}")


def _time_problem(value: Any) -> str | None:
    """Why a start time cannot be stored (a time before 1970 or past 9998 once in UTC), or None; a text that is
    no ISO time is left out of the run, not refused."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    try:
        utc = when.astimezone(UTC) if when.tzinfo else when
    except (OverflowError, ValueError):
        return f"{value!r} is not a time the site can store"
    if not 1970 <= utc.year <= 9998:
        return f"{value!r} is not a time the site can store (years 1970 to 9998)"
    return None


def _domain_of(name: str, doc: Any, mapping: dict[str, str], domains: tuple[str, ...]) -> str:
    """(1) info.environment_info.domain_name; (2) the domain whose `trajectory_files` names the file; (3) the
    only known domain named in the file's name. Refused when none tells, or when (1) and (2) disagree."""
    info = doc.get("info") if isinstance(doc, dict) else None
    in_file = ((info or {}).get("environment_info") or {}).get("domain_name") if isinstance(info, dict) else None
    base = name.rsplit("/", 1)[-1]
    mapped = next((d for d, f in mapping.items() if isinstance(f, str) and f.rsplit("/", 1)[-1] == base), None)
    if in_file and mapped and in_file != mapped:
        raise Tau2Error(f"{name}: its info says domain {in_file!r}, trajectory_files says {mapped!r}")
    if in_file or mapped:
        return str(in_file or mapped)
    named = [d for d in domains if re.search(rf"(^|[^a-z]){re.escape(d)}([^a-z]|$)", base.lower())]
    if len(named) == 1:
        return named[0]
    raise Tau2Error(
        f"{name}: cannot tell its domain: give it an info.environment_info.domain_name or name it in trajectory_files"
    )


def read_file(
    name: str, data: bytes, mapping: dict[str, str], domains: tuple[str, ...], budget: Budget | None = None
) -> Tau2File:
    doc = _load(name, data, budget)
    if isinstance(doc, list) or (isinstance(doc, dict) and isinstance(doc.get("simulations"), list)):
        _kinds(name, doc)
    if isinstance(doc, list):
        sims, info, tasks = doc, None, None
    elif isinstance(doc, dict) and isinstance(doc.get("simulations"), list):
        sims, info, tasks = doc["simulations"], doc.get("info"), doc.get("tasks")
    else:
        raise Tau2Error(f"{name}: neither τ² Results (info, tasks, simulations) nor a list of simulations")
    if not all(isinstance(s, dict) and s.get("task_id") is not None for s in sims):
        raise Tau2Error(f"{name}: every simulation needs a task_id")
    domain = _domain_of(name, doc, mapping, domains)
    return Tau2File(
        name,
        domain,
        info if isinstance(info, dict) else None,
        tasks if isinstance(tasks, list) else None,
        sims,
    )


def read_submission(
    files: dict[str, bytes], domains: tuple[str, ...] = (), budget: Budget | None = None
) -> Tau2Submission:
    """`files` by name (paths as in the folder or zip): one `submission.json`, the trajectory files (every
    other `.json`). `domains`: the benchmark's families, for telling a file's domain by its name. `budget`: what
    the files may hold in all (default: `scoring.bounded_json`'s limits, any size)."""
    budget = budget or Budget(max_bytes=sum(len(d) for d in files.values()))
    heads = [n for n in files if n.rsplit("/", 1)[-1] == "submission.json"]
    if len(heads) != 1:
        raise Tau2Error(
            "the submission needs exactly one submission.json" + (f" (found {len(heads)})" if heads else "")
        )
    head = heads[0]
    declared = _load(head, files[head], budget)
    if not isinstance(declared, dict):
        raise Tau2Error(f"{head}: not a JSON object")
    exact = json.loads(files[head], parse_float=Decimal)  # read as JSON already: the claims' written decimals
    contact = dict(declared.get("contact_info") or {}) if isinstance(declared.get("contact_info"), dict) else {}
    if isinstance(declared.get("contact_info"), dict):
        declared["contact_info"] = {k: v for k, v in declared["contact_info"].items() if k != "email"}
    given = declared.get("trajectory_files")
    mapping: dict[str, str] = given if isinstance(given, dict) else {}
    results = exact.get("results") if isinstance(exact.get("results"), dict) else {}
    known = tuple(domains) + tuple(d for d in results if d not in domains)
    trajectories = sorted(n for n in files if n != head and n.endswith(".json"))
    read = [read_file(n, files[n], mapping, known, budget) for n in trajectories]
    return Tau2Submission(declared, contact, read_claims(exact.get("results")), read, notes(declared, read))


def _llm(info: dict | None, side: str) -> str | None:
    part = (info or {}).get(side) if isinstance(info, dict) else None
    return part.get("llm") if isinstance(part, dict) else None


def notes(declared: dict, files: list[Tau2File]) -> list[str]:
    """What a reader should know that fails no check: the declared user simulator or trajectories beside what
    the files say, seeds or costs missing, custom submissions without references."""
    out = []
    users = sorted({u for f in files if (u := _llm(f.info, "user_info"))})
    declared_user = ((declared.get("methodology") or {}) if isinstance(declared.get("methodology"), dict) else {}).get(
        "user_simulator"
    )
    if declared_user and users and users != [declared_user]:
        out.append(f"declared user_simulator {declared_user}; the files ran {', '.join(users)}")
    agents = sorted({a for f in files if (a := _llm(f.info, "agent_info"))})
    if agents:
        out.append(f"declared model {declared.get('model_name')}; the files' agent LLM {', '.join(agents)}")
    if declared.get("trajectories_available") is False and files:
        out.append("declares trajectories_available: false, yet sent trajectory files")
    sims = [s for f in files for s in f.simulations]
    if sims and all(s.get("seed") is None for s in sims):
        out.append("no simulation carries a seed")
    if sims and all(s.get("agent_cost") is None for s in sims):
        out.append("no simulation carries an agent_cost")
    if declared.get("submission_type") == "custom" and not declared.get("references"):
        out.append("a custom submission without references")
    return out


def declared_value(declared: dict, path: str) -> Any:
    """The value at a dotted path of submission.json, or None."""
    value: Any = declared
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def declared_problems(declared: dict, protocol: list[dict]) -> list[str]:
    """The schema's required fields and the protocol's fields that are missing or of the wrong type."""
    problems = []
    types = {
        "model_name": str,
        "model_organization": str,
        "submitting_organization": str,
        "submission_date": str,
        "contact_info": dict,
        "results": dict,
    }
    for name in REQUIRED_FIELDS:
        value = declared.get(name)
        if value is None or not isinstance(value, types[name]) or value in ("", {}):
            problems.append(name)
        elif name == "submission_date" and not DATE.match(value):
            problems.append(f"{name} (not a date)")
    for item in protocol:
        path = item.get("field") or ""
        value = declared_value(declared, path)
        if path == "submission_type" and value is None:
            continue  # the schema's default: standard
        if value is None or value == "":
            problems.append(path)
        elif path.startswith("methodology.verification.") and not isinstance(value, bool):
            problems.append(f"{path} (not true or false)")
        elif path == "submission_type" and value not in ("standard", "custom"):
            problems.append(f"{path} (standard or custom)")
    return problems
