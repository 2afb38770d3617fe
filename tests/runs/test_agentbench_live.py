"""The AgentBench-Live converter: the published directory becomes one valid `scored` bundle, as published."""

from __future__ import annotations

import copy
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from runs.agentbench_live import ConversionError, convert_directory, main, score_parts  # noqa: E402
from scoring.bundle import round_inputs, validate_bundle  # noqa: E402

DATA = Path("/work/shared/data/agentbench-live")
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="published AgentBench-Live data not present")

MULTI_TRIAL_FILE = "claude-code-20260314-145526.json"


@pytest.fixture(scope="module")
def bundle() -> dict:
    return convert_directory(DATA)


@pytest.fixture(scope="module")
def published() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted((DATA / "results").glob("*.json"))}


@pytest.fixture
def copy_dir(tmp_path: Path) -> Path:
    dst = tmp_path / "abl"
    shutil.copytree(DATA, dst)
    return dst


def _runs(bundle: dict, agent: str, task: str) -> list[dict]:
    return sorted((r for r in bundle["runs"] if r["agent"] == agent and r["task"] == task),
                  key=lambda r: r["trial"])


def test_real_directory_converts_to_a_valid_scored_bundle(bundle):
    assert validate_bundle(bundle) == []
    b = bundle["benchmark"]
    assert (b["slug"], b["name"], b["methodology"]) == ("agentbench-live", "AgentBench-Live", "scored")
    assert b["params"] == {"pass_threshold": 0.8}
    assert [a["slug"] for a in bundle["agents"]] == ["claude-code", "gemini-cli"]
    assert {a["organization"] for a in bundle["agents"]} == {"Anthropic", "Google"}
    (rnd,) = bundle["rounds"]
    assert (rnd["key"], rnd["name"], rnd["status"]) == ("2026-03", "March 2026 runs", "published")
    assert rnd["published_at"] == "2026-03-19T14:51:19"
    assert rnd["starts_on"] == "2026-03-14"
    assert [(e["agent"], e["cli"], e["product_version"], e["model"]) for e in rnd["entries"]] == [
        ("claude-code", "claude-code", None, None), ("gemini-cli", "gemini-cli", None, None)]
    # The scoring side can build its inputs from it.
    (ri,) = round_inputs(bundle)
    assert len(ri.runs) == len(bundle["runs"])


def test_tasks_come_from_the_yaml_as_published(bundle):
    tasks = {t["key"]: t for t in bundle["tasks"]}
    assert len(tasks) == 10
    t = tasks["data-001"]
    assert t["title"] == "Analyze quarterly sales data and identify trends"
    assert t["version"] == "1"  # published `version: 1`, kept as its text
    assert (t["kind"], t["domain"], t["dimensions"], t["difficulty"]) == ("core", "data", [], "easy")
    assert t["evaluation"] == "composite"
    assert t["human_minutes"] == 10
    assert t["tags"] == ["data-analysis", "pandas", "csv", "sales"]
    assert t["time_limit_min"] == 5.0  # evaluation.timeout_seconds 300
    assert t["prompt"].startswith("The file `/workspace/sales.csv`")
    assert Counter(t["evaluation"] for t in tasks.values()) == {"auto": 3, "llm-judge": 4, "composite": 3}
    assert all(r["task_version"] == tasks[r["task"]]["version"] for r in bundle["runs"])


def test_one_run_per_score_row_plus_one_per_extra_trial(bundle, published):
    assert len(published) == 38
    rows = sum(len(d["scores"]) for d in published.values())
    extra = sum(len(s["trial_scores"]) - 1 for d in published.values() for s in d["scores"]
                if "trial_scores" in s)
    assert (rows, extra) == (116, 4)
    assert len(bundle["runs"]) == rows + extra == 120
    assert len({r["id"] for r in bundle["runs"]}) == 120
    per_agent = Counter(r["agent"] for r in bundle["runs"])
    assert per_agent == {"claude-code": 66, "gemini-cli": 54}


def test_multi_trial_layout_becomes_one_run_per_trial_in_list_order(bundle, published):
    for row in published[MULTI_TRIAL_FILE]["scores"]:
        runs = [r for r in _runs(bundle, "claude-code", row["task_id"])
                if r["started_at"] == "2026-03-14T14:55:26"]
        assert [r["trial"] for r in runs] == [1, 2, 3]
        assert [r["score"] for r in runs] == row["trial_scores"]
        assert [r["id"] for r in runs] == [f"abl-claude-code-{row['task_id']}-t{i}" for i in (1, 2, 3)]
        # avg_time_seconds is an average over trials, not a run's wall time: not copied anywhere.
        assert all(r["wall_seconds"] is None for r in runs)
    # The later single-run files continue the numbering.
    assert [r["trial"] for r in _runs(bundle, "claude-code", "code-001")] == list(range(1, 10))


def test_trials_follow_file_timestamps_per_agent_and_task(bundle):
    by_key: dict[tuple[str, str], list[dict]] = {}
    for r in bundle["runs"]:
        by_key.setdefault((r["agent"], r["task"]), []).append(r)
    assert len(by_key) == 20
    for runs in by_key.values():
        runs.sort(key=lambda r: r["trial"])
        assert [r["trial"] for r in runs] == list(range(1, len(runs) + 1))
        starts = [r["started_at"] for r in runs]
        assert starts == sorted(starts)
    counts = {k: len(v) for k, v in by_key.items()}
    assert counts[("claude-code", "code-001")] == 9
    assert counts[("claude-code", "research-001")] == 5
    assert counts[("gemini-cli", "code-002")] == 7
    assert counts[("gemini-cli", "tool-002")] == 5
    g = _runs(bundle, "gemini-cli", "research-001")
    assert [r["started_at"][:10] for r in g] == [
        "2026-03-14", "2026-03-15", "2026-03-19", "2026-03-19", "2026-03-19"]


def test_heuristic_rows_keep_their_raw_heuristic(bundle, published):
    fallback_rows = [s for d in published.values() for s in d["scores"]
                     if (s.get("details") or {}).get("judge_fallback") is True]
    heur = [r for r in bundle["runs"] if r["heuristic"] is not None]
    assert len(heur) == len(fallback_rows) == 56
    # Newer files: heuristic_score, kept raw even where the score it produced is low.
    r = next(r for r in bundle["runs"] if r["id"] == "abl-claude-code-data-002-t6")
    assert (r["score"], r["heuristic"], r["judge_scores"]) == (0.30000000000000004, 0.30000000000000004, None)
    # Older files: output_presence 0.7, above the 0.6 cap, kept raw (scoring applies the cap).
    r = next(r for r in bundle["runs"] if r["id"] == "abl-claude-code-data-001-t3")
    assert (r["score"], r["auto_pass_rate"], r["heuristic"]) == (0.8799999999999999, 1.0, 0.7)
    assert sum(1 for r in heur if r["heuristic"] > 0.6) == 24


def test_judge_scores_are_the_criteria_on_the_1_to_10_scale(bundle):
    r = next(r for r in bundle["runs"] if r["id"] == "abl-claude-code-multi-001-t5")
    assert r["started_at"] == "2026-03-19T13:52:42"
    parts = (r["score"], r["auto_pass_rate"], r["judge_scores"], r["heuristic"])
    assert parts == (0.64, 1.0, [1.0] * 4, None)
    assert sum(1 for r in bundle["runs"] if r["judge_scores"]) == 13
    # The one row whose criteria are all 0.0 (off the 1-10 scale) keeps its published score only.
    r = next(r for r in bundle["runs"] if r["agent"] == "gemini-cli" and r["task"] == "research-002"
             and r["started_at"] == "2026-03-19T14:02:00")
    assert (r["score"], r["judge_scores"], r["heuristic"]) == (0.0, None, None)


def test_score_parts_of_published_rows():
    assert score_parts({"task_id": "x", "score": 1.0, "details": {"auto_pass_rate": 1.0}}) == {
        "score": 1.0, "auto_pass_rate": 1.0, "judge_scores": None, "heuristic": None}
    row = {"score": 0.12, "details": {"auto_pass_rate": 0.0, "heuristic_score": 0.3, "judge_fallback": True,
                                      "auto_weight": 0.6, "judge_weight": 0.4}}
    assert score_parts(row) == {"score": 0.12, "auto_pass_rate": 0.0, "judge_scores": None, "heuristic": 0.3}
    row = {"score": 0.1, "details": {"Accuracy": 1.0, "Completeness": 1.0, "error": 0.0}}
    assert score_parts(row)["judge_scores"] == [1.0, 1.0]
    with pytest.raises(ConversionError) as e:
        score_parts({"score": "abc", "details": {"Clarity": "good", "judge_fallback": True}})
    assert "score: 'abc' is not a number" in e.value.problems
    assert "details.Clarity: 'good' is not a number" in e.value.problems
    assert any(p.startswith("details.judge_fallback: is true but") for p in e.value.problems)


def test_no_cost_tokens_or_latency_are_invented(bundle):
    for r in bundle["runs"]:
        for f in ("cost_usd", "tokens_input", "tokens_output", "tokens_cache_write", "wall_seconds",
                  "first_output_seconds", "steps", "plan_label"):
            assert r.get(f) is None, (r["id"], f)
        assert r["status"] == "completed"
        assert r["started_at"].startswith("2026-03-1")


def test_output_is_deterministic(bundle):
    again = convert_directory(str(DATA))
    assert again == bundle
    assert json.dumps(again, sort_keys=False) == json.dumps(bundle, sort_keys=False)


def test_published_files_are_not_modified(published):
    convert_directory(DATA)
    assert {p.name: json.loads(p.read_text()) for p in sorted((DATA / "results").glob("*.json"))} == published


def _rewrite(path: Path, mutate) -> None:
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))


def test_malformed_rows_are_all_reported_with_file_and_field(copy_dir):
    name = "gemini-cli-20260319-145119.json"

    def mutate(doc):
        doc["scores"][3]["score"] = "abc"
        del doc["scores"][1]["task_id"]
        doc["scores"][2]["task_id"] = "data-999"
        doc["scores"][4]["details"]["Completeness"] = "high"
        doc["scores"][5]["details"]["auto_pass_rate"] = 1.5

    _rewrite(copy_dir / "results" / name, mutate)
    with pytest.raises(ConversionError) as e:
        convert_directory(copy_dir)
    probs = e.value.problems
    assert f"results/{name}: scores[3].score: 'abc' is not a number" in probs
    assert f"results/{name}: scores[1].task_id: is required" in probs
    assert f"results/{name}: scores[2].task_id: 'data-999' is not a task defined in tasks/" in probs
    assert f"results/{name}: scores[4].details.Completeness: 'high' is not a number" in probs
    assert any(p.startswith(f"results/{name}: scores[5].details.auto_pass_rate: 1.5") for p in probs)
    assert len(probs) == 5


def test_malformed_files_are_reported_together(copy_dir):
    res = copy_dir / "results"
    (res / "claude-code-20260314-225815.json").write_text("{not json")
    _rewrite(res / "claude-code-20260314-230123.json", lambda d: d.pop("agent"))
    _rewrite(res / "gemini-cli-20260314-225901.json", lambda d: d.pop("scores"))
    _rewrite(res / MULTI_TRIAL_FILE, lambda d: d["scores"][1]["trial_scores"].__setitem__(2, None))
    with pytest.raises(ConversionError) as e:
        convert_directory(copy_dir)
    probs = e.value.problems
    assert any(p.startswith("results/claude-code-20260314-225815.json: (file): not valid JSON")
               for p in probs)
    assert "results/claude-code-20260314-230123.json: agent: is required" in probs
    assert "results/gemini-cli-20260314-225901.json: scores: is required" in probs
    assert f"results/{MULTI_TRIAL_FILE}: scores[1].trial_scores[2]: None is not a number" in probs
    assert len(probs) == 4


def test_inconsistent_names_and_bad_task_yaml_are_reported(copy_dir):
    res = copy_dir / "results"
    _rewrite(res / "gemini-cli-20260319-134522.json", lambda d: d.__setitem__("timestamp", "20260319-999999"))
    _rewrite(res / "gemini-cli-20260319-134542.json", lambda d: d.__setitem__("agent", "claude-code"))
    (copy_dir / "tasks" / "code" / "code-001-pagination-bug.yaml").write_text("id: [unclosed\n")
    with pytest.raises(ConversionError) as e:
        convert_directory(copy_dir)
    probs = e.value.problems
    for start in ("results/gemini-cli-20260319-134522.json: timestamp: '20260319-999999'",
                  "results/gemini-cli-20260319-134542.json: agent: 'claude-code' differs",
                  "tasks/code/code-001-pagination-bug.yaml: (file): cannot be read as YAML"):
        assert any(p.startswith(start) for p in probs), start
    # Rows naming the now-undefined code-001 are reported too (the task file could not be read).
    assert any("task_id: 'code-001' is not a task defined in tasks/" in p for p in probs)


def test_a_clean_copy_converts_identically(copy_dir, bundle):
    assert convert_directory(copy_dir) == bundle


def test_cli_prints_the_bundle(capsys, bundle):
    assert main([str(DATA)]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(bundle))


def test_cli_reports_problems_on_stderr(copy_dir, capsys):
    (copy_dir / "results" / "claude-code-20260314-225815.json").write_text("[]")
    assert main([str(copy_dir)]) == 1
    err = capsys.readouterr().err
    assert "results/claude-code-20260314-225815.json: (file): must be a JSON object, got list" in err


def test_bundle_is_independent_of_later_mutation(bundle):
    b = copy.deepcopy(bundle)
    b["runs"][0]["score"] = 0.5
    assert convert_directory(DATA)["runs"][0]["score"] == bundle["runs"][0]["score"]
