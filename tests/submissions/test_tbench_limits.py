"""A Terminal-Bench zip is counted within the upload's limits as it inflates (submissions.files.zip_files with
scoring.bounded_json), whatever a hostile team puts in its trial files: nesting past the depth limit, a small zip
of millions of tiny values, an entry inflating past the bytes allowed; each refused naming the file, before the
reader holds it. And only what lies outside strings is counted: a test named with brackets, commas, quotes and
backslashes is read as it was sent, however low the limits."""

from __future__ import annotations

import io
import json

import pytest

from scoring.tbench import read_runs
from submissions.files import zip_files
from submissions.reading import SubmissionRefused
from tests.builders import tbench as tb

TRIAL = "run-1/alpha/alpha.1-of-1.run-1/results.json"


def _with_trial(**extra) -> bytes:
    files = tb.folder()
    files[TRIAL] = json.dumps(tb.trial("run-1", "alpha", **extra)).encode()
    return tb.zipped(files)


def _refused(data: bytes) -> list[str]:
    with pytest.raises(SubmissionRefused) as exc:
        zip_files(io.BytesIO(data))
    return exc.value.problems


def test_a_trial_nested_past_the_depth_limit_is_refused_naming_its_file_and_field():
    files = tb.folder()
    files[TRIAL] = b'{"task_id": "alpha", "pad": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    assert _refused(tb.zipped(files)) == [f"{TRIAL}: pad{'[0]' * 11}…: nested deeper than 64 levels"]


def test_a_small_zip_of_millions_of_tiny_values_is_refused_before_it_is_read():
    # 1,600,000 empty lists, each counted once (its bracket) with its comma: past the 1,500,000 of an upload.
    files = tb.folder()
    files[TRIAL] = b'{"task_id": "alpha", "pad": [' + b",".join([b"[]"] * 1_600_000) + b"]}"
    data = tb.zipped(files)
    assert len(data) < 100_000
    assert _refused(data) == [f"{TRIAL}: more than 1,500,000 values in the upload: too large to read"]


# The toy folder's JSON values, as counted (each array or object once, each item after its first by its comma):
# a trial's results.json, an object of 13 fields (1 + 12) holding parser_results of one (1): 14; a run's summary,
# 6 fields (1 + 5), its results list of two trials (1 + 1 + 2 x 14), resolved_ids and unresolved_ids of one each
# (1 + 1): 38; run_metadata.json, 8 fields (1 + 7) with task_ids of two (1 + 1): 10. Five runs: 5 x (2 x 14 + 38
# + 10) = 380.


def test_the_files_of_one_upload_share_its_values(settings):
    # No file holds 100 values (a summary, the largest, 38); the folder holds 380: refused at the file that passes.
    settings.SUBMISSION_MAX_JSON_VALUES = 100
    (problem,) = _refused(tb.zipped(tb.folder()))
    assert problem.endswith(": more than 100 values in the upload: too large to read")
    settings.SUBMISSION_MAX_JSON_VALUES = 380
    assert len(zip_files(io.BytesIO(tb.zipped(tb.folder())))) == 25  # 5 runs x (2 trials, summary, metadata, lock)


def test_an_entry_inflating_past_the_bytes_allowed_is_refused(settings):
    settings.SUBMISSION_MAX_BYTES = 200_000
    assert _refused(_with_trial(pad="x" * 300_000)) == ["the zip inflates past 200,000 bytes"]


def test_brackets_commas_quotes_and_backslashes_inside_strings_are_not_counted(settings):
    # A test name holding 30,000 each of [ { , and the escapes \" and \\ (no JSON value among them) is read as
    # sent within 380 values (the folder's own, above: the name replaces test_it, one key for one) and 4 levels
    # (a summary: its object, results, a trial, its parser_results). Counted, the name alone would pass both.
    name = '[{,"\\' * 30_000
    settings.SUBMISSION_MAX_JSON_VALUES = 380
    settings.SUBMISSION_MAX_JSON_DEPTH = 4
    files = zip_files(io.BytesIO(_with_trial(parser_results={name: "passed"})))
    run = read_runs(files, counted=True).runs[0]
    assert (run.id, run.trials[0].task, run.trials[0].tests) == ("run-1", "alpha", {name: "passed"})
    settings.SUBMISSION_MAX_JSON_DEPTH = 3
    assert _refused(_with_trial(parser_results={name: "passed"})) == [
        "run-1/results.json: results[0].parser_results: nested deeper than 3 levels"
    ]
