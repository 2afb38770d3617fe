"""The submission formats, as the methodologies are: a registry with one entry per format. An entry holds its
label and help text (the upload form, the methodology page), how its files are recognised (`recognises`: the
command and the API, when the sender names no format), which files of a folder it reads (`takes`), its reader
(files in, a `reading.Read` out: runs, claims, what it declares), its checks and the figures it claims,
recomputed from the stored runs. The views, the API, `import_submission` and the services choose from here and
never name a format: a new one is its reader and one `register` call.

A format sent as a folder (`folder`) arrives as a zip of it (the form, the API) or the folder itself (the
command); any other as its files as they are."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from scoring import tbench as tbench_files
from scoring.passk import family_figures, threshold_success
from scoring.submission_checks import (
    Check,
    Figure,
    Ran,
    TrackInput,
    check,
    figures,
    graded_as_filed,
    version_ran,
)
from scoring.tiers import board_score
from scoring.types import RunInput, TaskInput

from . import tbench
from .reading import Read, ReadContext, SubmissionRefused, read_bundle, read_inspect, read_tau2

Checks = Callable[[TrackInput, Read], list[Check]]
Figures = Callable[[Read, list[TaskInput], list[RunInput], dict[str, Any]], list[Figure]]


def common_checks(track: TrackInput, read: Read) -> list[Check]:
    """The checks every run-per-task format answers (`scoring.submission_checks.check`)."""
    return check(track, read.files, read.declared)


def tau2_checks(track: TrackInput, read: Read) -> list[Check]:
    """The common checks, and that every run was graded as the task it is filed under (τ²'s reward names the
    actions of the task it graded: `scoring.submission_checks.graded_as_filed`)."""
    return [*common_checks(track, read), graded_as_filed(read.files)]


def ran_by_content(track: TrackInput, read: Read) -> Ran:
    """The version of the benchmark's task set the runs ran, found by their tasks' content
    (`scoring.submission_checks.version_ran`)."""
    return version_ran(track, read.files)


def family_claims(read: Read, tasks: list[TaskInput], runs: list[RunInput], params: dict[str, Any]) -> list[Figure]:
    """Each claim beside its family's figure (pass^k, cost) recomputed from the stored runs, with the boards'
    own success rule and score (`scoring.passk`)."""
    return figures(read.claims, family_figures(tasks, runs, threshold_success(params), board_score(tasks)))


@dataclass(frozen=True)
class Format:
    key: str
    label: str
    help: str  # what to send, in a few words
    read: Callable[[dict[str, bytes], ReadContext], Read]
    recognises: Callable[[dict[str, bytes]], bool]
    folder: bool = False  # sent as a folder of files (a zip of it)
    takes: Callable[[str], bool] = field(default=lambda name: name.endswith(".json"))
    # Whether its runs carry their tasks' definitions: then tasks are named by their id within the family and
    # matched by the definition's fingerprint, and the track's limits apply (τ²); else by key and version.
    by_definition: bool = False
    checks: Checks = common_checks
    figures: Figures = family_claims
    ran: Callable[[TrackInput, Read], Ran] = ran_by_content
    # Figures a sender may claim on the upload form or the API (name, label), over any its files claim.
    claim_fields: tuple[tuple[str, str], ...] = ()


REGISTRY: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    if fmt.key in REGISTRY:
        raise ValueError(f"format {fmt.key!r} is registered already")
    REGISTRY[fmt.key] = fmt
    return fmt


def get(key: str) -> Format:
    """The format `key`, or SubmissionRefused naming the formats there are."""
    fmt = REGISTRY.get(key)
    if fmt is None:
        raise SubmissionRefused([f"format {key!r}: not a format the site reads ({', '.join(REGISTRY)})"])
    return fmt


def choices(keys: Iterable[str] | None = None) -> list[tuple[str, str]]:
    """(key, label) of the formats `keys` names (every format when None or empty), in the registry's order."""
    wanted = set(keys or REGISTRY)
    return [(f.key, f.label) for f in REGISTRY.values() if f.key in wanted]


def claim_fields(keys: Iterable[str] | None = None) -> list[tuple[str, str, list[str]]]:
    """The figures a sender may claim on the form for the formats `keys` names: (name, label, the formats'
    labels), each once."""
    out: dict[str, tuple[str, list[str]]] = {}
    for key, fmt_label in choices(keys):
        for name, field_label in REGISTRY[key].claim_fields:
            out.setdefault(name, (field_label, []))[1].append(fmt_label)
    return [(name, field_label, owners) for name, (field_label, owners) in out.items()]


def label(key: str) -> str:
    return REGISTRY[key].label if key in REGISTRY else key


def recognised(files: dict[str, bytes], *, folder: bool) -> Format:
    """The format whose files these are (the first in the registry's order that recognises them), among those
    sent as a folder or those that are not; SubmissionRefused naming what each format needs when none does."""
    for fmt in REGISTRY.values():
        if fmt.folder == folder and fmt.recognises(files):
            return fmt
    wanted = "; ".join(f"{f.label}: {f.help}" for f in REGISTRY.values() if f.folder == folder)
    raise SubmissionRefused([f"these files are no format the site reads ({wanted})"])


def taken_by_any(name: str) -> bool:
    """Whether any format sent as a folder reads the file `name` (what a folder or zip is read for)."""
    return any(f.takes(name) for f in REGISTRY.values() if f.folder)  # (a handful of formats: no index needed)


def _base(name: str) -> str:
    return PurePosixPath(name).name


def _json_object_with(data: bytes, key: str) -> bool:
    head = data[:4096].lstrip()
    return head[:1] == b"{" and f'"{key}"'.encode() in data[:1_000_000]


register(
    Format(
        "tau2",
        "τ²-bench submission",
        "a zip of the folder: submission.json and trajectories/*.json",
        read_tau2,
        recognises=lambda files: any(_base(n) == "submission.json" for n in files),
        folder=True,
        by_definition=True,
        checks=tau2_checks,
    )
)
register(
    Format(
        "bundle",
        "results bundle",
        "one JSON file",
        read_bundle,
        recognises=lambda files: len(files) == 1 and all(_json_object_with(d, "benchmark") for d in files.values()),
    )
)
register(
    Format(
        "inspect",
        "Inspect log",
        ".eval or .json",
        read_inspect,
        recognises=lambda files: bool(files) and all(n.endswith((".eval", ".json")) for n in files),
    )
)
register(
    Format(
        "tbench",
        "Terminal-Bench runs",
        "a zip of the folder of `tb run` runs (run_metadata.json, tb.lock, results.json and the trials' folders), "
        "or the runs' summaries (<run>_results.json); claims.json at its top",
        tbench.read,
        recognises=lambda files: tbench_files.recognises(list(files)),
        folder=True,
        takes=tbench_files.takes,
        checks=tbench.check,
        figures=tbench.claimed,
        ran=tbench.ran,
        claim_fields=(("accuracy", "Claimed accuracy"), ("accuracy stderr", "Claimed accuracy standard error")),
    )
)
