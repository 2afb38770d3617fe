"""A Terminal-Bench submission from its zip to its checks and figures, against only reading and parsing the same
files, in one run: the largest shared submission (OpenHands, ../shared/data/terminal-bench: 5 runs x 80 tasks,
400 trial files, 6 terminal recordings, 5.5 MB).

    .venv/bin/python bench/bench_tbench_submission.py              # 7 repeats of each
    .venv/bin/python bench/bench_tbench_submission.py --repeats 15

*full* is what the site does before it writes anything: the zip's size checked as it inflates
(`bundles.zip_inflate`), each JSON file counted within the upload's limits as it inflates (`scoring.bounded_json`),
the files read into runs and claims (`scoring.tbench.read_runs`: every field's kind checked, each recording read
into text), the runs the round gets (`run_docs`: 400 runs with their tests and transcripts), the six checks and
the figures (accuracy, its standard error, pass^k for k = 1..5 and any-of-k for k = 2..5) beside the claims.
*parse* only inflates the same files from the same zip and parses them: each JSON file with orjson, each recording
line by line. Both run in this one process, alternately, so the machine's load falls on both alike; the figure is
the ratio of their medians (target: at most 2x). Peak memory: tracemalloc's peak over one more run of each, alone.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import NamedTuple

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
DATA = ROOT.parent / "shared" / "data" / "terminal-bench"
FOLDER = DATA / "submissions" / "20250711_openhands_claude-4-sonnet"


def the_zip() -> bytes:
    """The submission as its team sends it: the runs' folders and claims.json, zipped."""
    from scoring.tbench import takes

    claims = next(c for c in json.loads((DATA / "claims.json").read_text())["claims"] if c["folder"] == FOLDER.name)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(FOLDER.rglob("*")):
            name = str(path.relative_to(FOLDER))
            if path.is_file() and takes(name):
                z.writestr(name, path.read_bytes())
        z.writestr("claims.json", json.dumps({"claims": [claims]}))
    return out.getvalue()


def the_track():
    from scoring.submission_checks import TaskSet, TrackInput

    listed = json.loads((DATA / "tasks.json").read_text())
    held = TaskSet(listed["version"], {listed["dataset"]: {t: ("v:1.0", "1.0") for t in listed["task_ids"]}})
    return TrackInput({listed["dataset"]: listed["task_ids"]}, [held], [listed["version"]], 5), listed["task_ids"]


def full(data: bytes, track, tasks: list[str]) -> dict:
    from scoring.tbench import read_runs
    from scoring.tbench_checks import checks, figures, recomputed
    from scoring.tbench_runs import run_docs
    from scoring.types import RunInput
    from submissions.files import zip_files
    from submissions.reading import json_budget

    files = zip_files(io.BytesIO(data))
    sub = read_runs(files, json_budget(), counted=True)
    docs = run_docs(sub, "terminal-bench-core")
    runs = [
        RunInput(id=d["id"], round="r", agent="a", task=d["task"], trial=d["trial"], score=d["score"]) for _, d in docs
    ]
    found = checks(track, sub)
    computed = figures(sub.claims, recomputed(sub, tasks, runs))
    return {"runs": len(docs), "checks passed": sum(c.passed for c in found), "figures": len(computed)}


class Stored(NamedTuple):
    task: str
    trial: int
    score: float


def parse(data: bytes) -> int:
    parsed = 0
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            raw = z.read(info)
            if info.filename.endswith(".cast"):
                parsed += sum(1 for line in raw.splitlines() if orjson.loads(line) is not None)
            else:
                orjson.loads(raw)
                parsed += 1
    return parsed


def _timed(fn, *args) -> tuple[float, float]:
    """Wall and CPU seconds of one call (on a loaded machine the CPU time is the steadier one)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def _peak(fn, *args) -> float:
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / (1 << 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    import django

    django.setup()
    data = the_zip()
    track, tasks = the_track()
    shown = full(data, track, tasks)
    files = parse(data)
    print(f"zip {len(data) / (1 << 20):.2f} MiB; {shown}; parse reads {files} JSON documents and recording lines")
    times: dict[str, list[tuple[float, float]]] = {"full": [], "parse": []}
    for _ in range(args.repeats):
        times["full"].append(_timed(full, data, track, tasks))
        times["parse"].append(_timed(parse, data))
    peaks = {"full": _peak(full, data, track, tasks), "parse": _peak(parse, data)}
    wall = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
    for name in ("full", "parse"):
        best = min(w for w, _ in times[name])
        print(
            f"{name:>5}: median {wall[name] * 1000:.1f} ms wall (best {best * 1000:.1f}), "
            f"{cpu[name] * 1000:.1f} ms CPU; peak {peaks[name]:.1f} MiB"
        )
    print(
        f"full / parse: {wall['full'] / wall['parse']:.2f}x wall, {cpu['full'] / cpu['parse']:.2f}x CPU (target at "
        f"most 2x); load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
