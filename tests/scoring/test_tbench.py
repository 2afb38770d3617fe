"""Terminal-Bench's runs read and checked as its own leaderboard checks them (scoring.tbench, tbench_checks): each
check failing on a hand-made folder that breaks its rule alone, accuracy and its standard error worked out by hand,
and a terminal recording read into text."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from scoring.tbench import TbenchError, read_runs
from scoring.tbench_casts import CastError, cast_transcript
from scoring.tbench_checks import checks, figures, recomputed
from scoring.tbench_runs import run_docs
from scoring.types import RunInput
from tests.builders import tbench as tb

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "terminal-bench" / "submissions"


def _checked(files: dict[str, bytes], **track) -> dict[str, tuple[bool, str]]:
    return {c.name: (c.passed, c.detail) for c in checks(tb.track(**track), read_runs(files))}


def _runs(sub) -> list[RunInput]:
    """The trials as the stored runs the figures are recomputed from."""
    return [
        RunInput(
            id=d["id"], round="r", agent="a", task=d["task"], trial=d["trial"], status=d["status"], score=d["score"]
        )
        for _, d in run_docs(sub, tb.DATASET)
    ]


def test_a_folder_that_follows_every_rule_passes_every_check():
    found = _checked(tb.folder())
    assert all(passed for passed, _ in found.values()), found
    assert found["tb_runs"][1] == "5 trials of each of the 2 tasks (5 runs × 1 attempt)"
    assert found["tb_one_agent"][1] == "agent toy-agent, model toy-model-1, in every run"


def test_a_dataset_version_the_benchmark_does_not_hold_fails_tb_dataset():
    found = _checked(tb.folder(dataset=(tb.DATASET, "2.0")))
    assert found["tb_dataset"] == (False, "toy-bench 2.0: the benchmark holds no such task set (it holds 1.0)")
    assert _checked(tb.folder(), accepted=("0.9",))["tb_dataset"] == (False, "toy-bench 1.0: this track takes 0.9")


def test_four_runs_fail_tb_runs_and_five_attempts_of_one_run_pass():
    found = _checked(tb.folder(runs=4))
    assert found["tb_runs"] == (False, "4 trials per task (4 runs × 1 attempt); 5 are required (runs × attempts)")
    assert _checked(tb.folder(runs=1, attempts=5))["tb_runs"] == (
        True,
        "5 trials of each of the 2 tasks (1 run × 5 attempts)",
    )


def test_a_task_run_fewer_times_than_the_others_fails_tb_runs():
    found = _checked(tb.folder(skip={(5, "beta")}))
    assert found["tb_runs"] == (
        False,
        "trials per task differ (5 runs × 1 attempt): 5 on 1 task (alpha); 4 on 1 task (beta)",
    )


def test_a_changed_timeout_fails_tb_timeouts():
    found = _checked(
        tb.folder(
            config=lambda i: (
                {"global_timeout_multiplier": 2.0} if i == 3 else {"global_agent_timeout_sec": 3600} if i == 4 else {}
            )
        )
    )
    assert found["tb_timeouts"] == (
        False,
        "run run-3: global_timeout_multiplier 2.0; run run-4: global_agent_timeout_sec 3600 (an override)",
    )


def test_a_run_without_its_lock_cannot_show_its_timeouts():
    files = {k: v for k, v in tb.folder().items() if k != "run-2/tb.lock"}
    assert _checked(files)["tb_timeouts"] == (False, "run run-2: cannot be checked: no tb.lock with its run_config")


def test_two_agents_or_two_models_fail_tb_one_agent():
    agents = _checked(tb.folder(agent=lambda i: "other-agent" if i == 2 else "toy-agent"))
    assert (
        agents["tb_one_agent"][0] is False
        and "the runs ran 2 agents: other-agent, toy-agent" in agents["tb_one_agent"][1]
    )
    models = _checked(tb.folder(model=lambda i: "toy-model-2" if i == 5 else "toy-model-1"))
    assert models["tb_one_agent"][1].startswith("the runs ran 2 models: toy-model-1, toy-model-2")


def test_a_missing_trial_is_named_by_tb_trials_complete():
    found = _checked(tb.folder(skip={(2, "beta")}))
    assert found["tb_trials_complete"] == (False, "run run-2: 1 of 2 trials have no result: beta")


def test_a_summary_that_disagrees_with_its_trials_fails_tb_summaries_agree():
    def lying(i: int, s: dict) -> dict:
        return (
            {**s, "n_resolved": 2, "n_unresolved": 0, "accuracy": 1.0, "resolved_ids": ["alpha", "beta"]}
            if i == 1
            else s
        )

    found = _checked(tb.folder(summary=lying))
    assert found["tb_summaries_agree"] == (
        False,
        "run run-1: n_resolved 2, its trials resolve 1; run run-1: n_unresolved 0, its trials leave 1 unresolved; "
        "run run-1: resolved_ids differ from its trials on beta",
    )


def test_accuracy_its_stderr_and_pass_k_by_hand():
    # Runs 1 and 2 resolve both tasks, runs 3-5 only alpha: run accuracies 2/2, 2/2, 1/2, 1/2, 1/2.
    # accuracy = (1 + 1 + .5 + .5 + .5) / 5 = 0.7. Deviations .3 .3 -.2 -.2 -.2, squares .09 .09 .04 .04 .04 = .30;
    # sample variance .30 / 4 = .075, sd .273861; stderr = .273861 / sqrt(5) = .122474.
    # pass^k and any-of-k per task, then the mean over the two tasks: alpha n=5 c=5 gives 1 for every k; beta n=5
    # c=2: pass^1 = 2/5 = .4 -> mean .7; any-of-2 = 1 - C(3,2)/C(5,2) = 1 - 3/10 = .7 -> mean .85;
    # pass^2 = C(2,2)/C(5,2) = 1/10 -> mean .55; pass^3 = C(2,3) = 0 -> mean .5. any-of-1 would be pass^1: not given.
    sub = read_runs(tb.folder(resolved=lambda i: {"alpha", "beta"} if i <= 2 else {"alpha"}))
    found = recomputed(sub, list(tb.TASKS), _runs(sub))
    assert found["accuracy"] == pytest.approx(0.7)
    assert (
        found["accuracy stderr"] == pytest.approx(math.sqrt(0.075) / math.sqrt(5)) == pytest.approx(0.122474, abs=1e-6)
    )
    assert (found["pass^1"], found["any-of-2"], found["pass^2"], found["pass^3"]) == pytest.approx(
        (0.7, 0.85, 0.55, 0.5)
    )
    assert "pass^6" not in found and "any-of-6" not in found  # k stops at the fewest trials of a task
    # One name, one figure: nothing here is called pass@k (002's share of an agent's trials of a task that pass).
    assert not [name for name in found if "pass@" in name] and "any-of-1" not in found


def test_a_claim_agrees_at_its_own_rounding_and_a_figure_not_claimed_agrees_with_nothing():
    sub = read_runs(
        tb.folder(resolved=lambda i: {"alpha", "beta"} if i <= 2 else {"alpha"}),
        claims={"accuracy": "0.70", "accuracy stderr": "0.12"},
    )
    rows = {f.name: f for f in figures(sub.claims, recomputed(sub, list(tb.TASKS), _runs(sub)))}
    # 0.122474 against 0.12 (two decimals: within half of 0.01) agrees; against 0.121 (three: within 0.0005) not.
    assert rows["accuracy"].agrees is True and rows["accuracy stderr"].agrees is True
    assert (rows["any-of-2"].claimed, rows["any-of-2"].agrees) == (None, None)
    strict = read_runs(tb.folder(), claims={"accuracy stderr": "0.121"})
    assert figures(strict.claims, {"accuracy stderr": 0.122474})[0].agrees is False


def test_run_summaries_without_trials_support_accuracy_only():
    # One run sent as its summary's counts alone (no results, no ids): accuracy 1 of 2 = 0.5 agrees; its standard
    # error needs two runs and its per-task figures the trials: the stderr claimed is not verifiable.
    counts = {"run-1_results.json": json.dumps({"n_resolved": 1, "n_unresolved": 1, "accuracy": 0.5}).encode()}
    sub = read_runs(counts, claims={"accuracy": "0.5", "accuracy stderr": "0.01"})
    rows = {f.name: f for f in figures(sub.claims, recomputed(sub, list(tb.TASKS), []))}
    assert (rows["accuracy"].recomputed, rows["accuracy"].agrees) == (0.5, True)
    assert (rows["accuracy stderr"].recomputed, rows["accuracy stderr"].agrees) == (None, None)
    assert not any(name.startswith("pass") for name in rows)
    assert _checked(counts)["tb_trials_complete"] == (False, "run run-1: no trial results (its summary's counts only)")


def test_droids_accuracy_and_stderr_by_hand_from_its_files():
    # Droid's five runs resolve 43, 41, 42, 37 and 39 of the 80 tasks: accuracies .5375 .5125 .525 .4625 .4875,
    # accuracy = (43+41+42+37+39)/400 = 202/400 = 0.505. Deviations from .505: .0325 .0075 .02 -.0425 -.0175;
    # squares .00105625 .00005625 .0004 .00180625 .00030625, sum .003625. Terminal-Bench's stderr is the sample
    # standard deviation over runs (n - 1) over sqrt(n): sqrt(.003625 / 4) = .0301040, / sqrt(5) = .0134629 -> 0.0135
    # as the public table shows. (The population deviation, sqrt(.003625 / 5) / sqrt(5) = .0120416, would show 0.0120.)
    folder = SHARED / "20250923_droid_claude-4-sonnet"
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    sub = read_runs({k: v for k, v in files.items() if k.endswith(("results.json", "tb.lock", "run_metadata.json"))})
    tasks = sorted({t.task for r in sub.runs for t in r.trials})
    found = recomputed(sub, tasks, _runs(sub))
    assert [sum(t.resolved is True for t in r.trials) for r in sub.runs] == [43, 41, 42, 37, 39]
    assert found["accuracy"] == pytest.approx(0.505)
    assert found["accuracy stderr"] == pytest.approx(0.0134629, abs=1e-7)


@pytest.mark.parametrize("counted", [False, True])
def test_unreadable_files_are_refused_naming_the_file_and_field(counted):
    # Read in one pass when counted on their way in (the site's zip and folder reading), else counted here: the
    # same refusals either way.
    files = tb.folder()
    bad = json.dumps({"task_id": "alpha", "is_resolved": "yes"}).encode()
    files["run-1/alpha/alpha.1-of-1.run-1/results.json"] = bad
    with pytest.raises(TbenchError, match=r"^run-1/alpha/alpha.1-of-1.run-1/results.json: is_resolved: expected `bool"):
        read_runs(files, counted=counted)
    trial = "run-1/alpha/alpha.1-of-1.run-1/results.json"
    for number, why in (("NaN", "NaN is not a JSON number"), ("1e999", "the number 1e999 is past the largest float")):
        files[trial] = b'{"task_id": "alpha", "total_input_tokens": %s}' % number.encode()
        with pytest.raises(TbenchError, match=rf"^{trial}: total_input_tokens: .*{why}"):
            read_runs(files, counted=counted)
    summaries = tb.folder(trial_folders=False)
    summaries["run-2_results.json"] = b'{"results": [{"task_id": "alpha", "is_resolved": 1}], "n_resolved": 1}'
    with pytest.raises(TbenchError, match=r"^run-2_results.json: results\[0\].is_resolved: expected `bool"):
        read_runs(summaries, counted=counted)
    with pytest.raises(TbenchError, match="no run found"):
        read_runs({"claims.json": b"{}"})


@pytest.mark.parametrize("counted", [False, True])
def test_runs_sent_as_summaries_alone_are_read_from_their_results(counted):
    sub = read_runs(tb.folder(trial_folders=False), counted=counted)
    assert [(r.id, r.trials_from, len(r.trials)) for r in sub.runs][:2] == [
        ("run-1", "its summary", 2),
        ("run-2", "its summary", 2),
    ]
    assert _checked(tb.folder(trial_folders=False, runs=2))["tb_timeouts"] == (
        False,
        "run run-1: cannot be checked: no tb.lock with its run_config; "
        "run run-2: cannot be checked: no tb.lock with its run_config",
    )


def test_a_terminal_recording_reads_as_what_was_typed_and_what_was_printed():
    doc = cast_transcript(tb.CAST)
    # Escape sequences out; a carriage return writes over its line ("0% [Working]" left for "Done: ...").
    assert doc["messages"] == [
        {"role": "tool", "function": "terminal", "text": "root@box:/app# "},
        {"role": "assistant", "text": "ls -la"},
        {
            "role": "tool",
            "function": "terminal",
            "text": "ls -la\ntotal 8\n-rw-r--r-- 1 root root 42 notes.txt\nDone: flux capacitor ready",
        },
    ]


@pytest.mark.parametrize(
    ("cast", "why"),
    [
        (b'{"version": 1, "width": 80, "height": 24}\n', "line 1: not an asciicast v2 header (version 2)"),
        (b'{"version": 2, "width": 80, "height": 24}\n[1.0, "o"]\n', "line 2: an event is [seconds, code, text]"),
        (b'{"version": 2, "width": 80, "height": 24}\n[2.0, "o", "a"]\n[1.0, "o", "b"]\n', "line 3: its time 1.0"),
    ],
)
def test_a_recording_that_is_no_asciicast_is_refused_saying_where(cast, why):
    with pytest.raises(CastError, match=f"^{re.escape(why)}"):
        cast_transcript(cast)


def test_a_recording_of_more_events_than_a_recording_may_hold_is_refused_before_it_is_read(monkeypatch):
    from scoring import tbench_casts

    monkeypatch.setattr(tbench_casts, "MAX_EVENTS", 3)  # tb.CAST has 4
    with pytest.raises(CastError, match="^4 events, more than the 3 a recording may hold"):
        cast_transcript(tb.CAST)


def test_a_run_holding_more_trials_of_a_task_than_its_attempts_fails_tb_runs():
    # Five runs of one attempt each, but run-1 holds a second trial of each task (attempt 2 of its declared 1):
    # six trials of every task, the same for each, so only the attempts declared show the extra one.
    files = tb.folder()
    for task in tb.TASKS:
        extra = tb.trial("run-1", task, attempt=2, of=1)
        files[f"run-1/{task}/{extra['trial_name']}/results.json"] = json.dumps(extra).encode()
    found = _checked(files)
    assert found["tb_runs"] == (
        False,
        "more trials than the run declares (n_attempts): run run-1 (1 attempt): 2 tasks: alpha (2 trials), "
        "beta (2 trials)",
    )
