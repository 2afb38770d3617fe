"""`import_inspect`: a real Inspect eval's logs become a `scored` round whose board matches the logs."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from inspect_ai.log import read_eval_log, write_eval_log

from leaderboard.models import Agent, Benchmark, Entry, Round, Task
from runs.models import Run
from snapshots.models import BoardSnapshot
from tests.inspect_logs import scripted
from tests.inspect_logs.conftest import publish
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db
# Inspect's `includes` scorer writes C or I; value_to_float maps them to 1 and 0.
CI = {"C": 1.0, "I": 0.0}


def _import(*paths, **options) -> str:
    out = []

    class Out:
        def write(self, text):
            out.append(text)

        def flush(self):
            pass

    call_command("import_inspect", *map(str, paths), "--benchmark", "quiz", "--round", "r1", stdout=Out(), **options)
    return "".join(out)


def _board() -> dict[str, dict]:
    compute_all()
    snap = BoardSnapshot.objects.get(round__key="r1", round__benchmark__slug="quiz", kind="boards")
    return {row["agent"]: row for row in snap.data["overall"]}


def test_it_imports_a_real_eval_and_the_board_equals_a_hand_computation(quiz_logs):
    out = _import(quiz_logs["steady"], quiz_logs["flaky"])
    assert "12 run(s)" in out

    bench = Benchmark.objects.get(slug="quiz")
    assert bench.methodology == "scored"
    assert Round.objects.get(benchmark=bench, key="r1").status == "draft"
    assert sorted(Task.objects.filter(benchmark=bench).values_list("key", flat=True)) == [
        "quiz.3",
        "quiz.add",
        "quiz.capital",
    ]
    assert Task.objects.get(key="quiz.add").current_version.prompt == "What is 17 + 25? Answer with the number."
    assert set(Task.objects.values_list("domain", flat=True)) == {"quiz"}
    board = _board()

    # Every cell against the log's own per-sample scores: each epoch is a trial, the best trial is the cell.
    for model, path in quiz_logs.items():
        log = read_eval_log(str(path))
        row = board[f"scripted-{model}"]
        for sample in log.samples:
            cell = row["tasks"][f"quiz.{sample.id}"]
            trial = next(s for s in cell["scores"] if s["trial"] == sample.epoch)
            assert trial["score"] == CI[sample.scores["includes"].value]
        for sample_id in ("add", "capital", 3):
            scores = [CI[s.scores["includes"].value] for s in log.samples if s.id == sample_id]
            assert row["tasks"][f"quiz.{sample_id}"]["best"] == max(scores)

    # By hand, from the script (an answer containing the target is C = 1, else I = 0):
    # steady: add 1,1 (best 1, pass@k 2/2); capital 1,1 (1, 2/2); 3 "Venus" then "Mars": 0,1 (1, 1/2)
    #   score = (1 + 1 + 1) / 3 = 1.0; pass rate 3/3; mean pass@k = (1 + 1 + 0.5) / 3 = 0.8333...
    # flaky: add "42" then "41": 1,0 (1, 1/2); capital "Porto" twice: 0,0 (0, 0); 3 "Mars" twice: 1,1 (1, 2/2)
    #   score = (1 + 0 + 1) / 3 = 0.6667; pass rate 2/3; mean pass@k = (0.5 + 0 + 1) / 3 = 0.5
    steady, flaky = board["scripted-steady"], board["scripted-flaky"]
    assert steady["score"] == pytest.approx(1.0) and steady["rank"] == 1
    assert steady["pass_rate"] == pytest.approx(1.0)
    assert steady["mean_pass_at_k"] == pytest.approx(2.5 / 3)
    assert flaky["score"] == pytest.approx(2 / 3) and flaky["rank"] == 2
    assert flaky["pass_rate"] == pytest.approx(2 / 3)
    assert flaky["mean_pass_at_k"] == pytest.approx(0.5)
    # The Inspect task is the domain: its mean is the mean over its samples.
    assert steady["domains"] == {"quiz": pytest.approx(1.0)} and flaky["domains"] == {"quiz": pytest.approx(2 / 3)}
    # Cost only where the log carries it (steady's usage has total_cost 0.002 a generate; flaky's none).
    assert steady["cost_usd"] == pytest.approx(0.002) and flaky["cost_usd"] is None


def test_tokens_leave_cache_reads_out_and_working_time_is_wall_seconds(quiz_logs):
    _import(quiz_logs["steady"])
    log = read_eval_log(str(quiz_logs["steady"]))
    sample = next(s for s in log.samples if s.id == "add" and s.epoch == 1)
    run = Run.objects.get(key="scripted-steady.quiz.add.1")
    # One generate per sample: input 120, output 8, cache write 30; the 900 cache reads never count.
    assert (run.tokens_input, run.tokens_output, run.tokens_cache_write) == (120, 8, 30)
    assert run.wall_seconds == pytest.approx(sample.working_time)
    assert run.trial == 1 and run.status == "completed"
    entry = Entry.objects.get(round__key="r1", agent__slug="scripted-steady")
    assert entry.model == "scripted/steady" and entry.cli == "generate"
    assert entry.product_version.startswith("inspect_ai ")
    assert Agent.objects.get(slug="scripted-steady").organization.name == "scripted"


def test_importing_the_same_logs_again_changes_nothing(quiz_logs):
    _import(quiz_logs["steady"], quiz_logs["flaky"])
    before = list(Run.objects.order_by("key").values())
    out = _import(quiz_logs["flaky"], quiz_logs["steady"])
    assert "created nothing; updated nothing" in out
    assert list(Run.objects.order_by("key").values()) == before


def test_a_second_model_lands_in_the_same_round_and_keeps_the_first(quiz_logs):
    _import(quiz_logs["steady"])
    _import(quiz_logs["flaky"])
    assert sorted(Entry.objects.filter(round__key="r1").values_list("agent__slug", flat=True)) == [
        "scripted-flaky",
        "scripted-steady",
    ]
    assert Run.objects.count() == 12
    assert Task.objects.count() == 3


def test_a_dry_run_prints_the_bundle_and_writes_nothing(quiz_logs):
    out = _import(quiz_logs["flaky"], dry_run=True)
    doc = json.loads(out)
    assert doc["benchmark"] == {"slug": "quiz", "name": "quiz", "methodology": "scored"}
    assert len(doc["runs"]) == 6 and {r["task"] for r in doc["runs"]} == {"quiz.add", "quiz.capital", "quiz.3"}
    assert Benchmark.objects.count() == 0 and Run.objects.count() == 0


@pytest.mark.parametrize(
    ("status", "reason"),
    [("cancelled", "the eval was cancelled"), ("started", "the eval has not finished")],
)
def test_an_unfinished_or_cancelled_eval_is_refused_with_the_reason(quiz_logs, tmp_path, status, reason, capsys):
    log = read_eval_log(str(quiz_logs["flaky"]))
    log.status = status
    path = tmp_path / f"{status}.eval"
    write_eval_log(log, str(path))
    with pytest.raises(CommandError, match="nothing was written"):
        _import(quiz_logs["steady"], path)
    assert f"{status}.eval: {reason}" in capsys.readouterr().err
    assert Benchmark.objects.count() == 0 and Run.objects.count() == 0


def test_a_sample_whose_input_changed_is_refused_by_its_sample_id(quiz_logs, tmp_path, capsys):
    _import(quiz_logs["steady"])
    reworded = [s.model_copy(update={"input": "What is 17 + 26?"}) if s.id == "add" else s for s in scripted.QUESTIONS]
    scripted.SCRIPTS["reworded"] = scripted.SCRIPTS["steady"]
    try:
        (log,) = scripted.run(["reworded"], tmp_path, task=scripted.quiz(reworded))
    finally:
        del scripted.SCRIPTS["reworded"]
    with pytest.raises(CommandError):
        _import(log.location)
    err = capsys.readouterr().err
    assert "sample 'add' of quiz" in err and "its input differs" in err
    assert "sample 'capital'" not in err
    assert not Entry.objects.filter(agent__slug="scripted-reworded").exists()
    assert Run.objects.count() == 6


def test_a_benchmark_of_another_methodology_is_refused(quiz_logs, capsys):
    Benchmark.objects.create(slug="quiz", name="Quiz", methodology="outcomes")
    with pytest.raises(CommandError):
        _import(quiz_logs["steady"])
    assert "uses the 'outcomes' methodology" in capsys.readouterr().err
    assert Run.objects.count() == 0


def test_the_agent_can_come_from_the_solver_or_a_tag(quiz_logs):
    _import(quiz_logs["steady"], agent_from="solver")
    assert Entry.objects.get().agent.slug == "generate"
    with pytest.raises(CommandError):
        _import(quiz_logs["steady"], agent_from="tag:agent")


def test_an_errored_sample_is_an_infra_error_and_a_limit_hands_the_sample_in(tmp_path):
    (broken,) = scripted.run(["broken"], tmp_path / "broken", fail_on_error=False)
    (limited,) = scripted.run(["steady"], tmp_path / "limited", token_limit=100)
    assert broken.status == "success" and all(s.error for s in broken.samples)
    assert all(s.limit is not None and s.limit.type == "token" for s in limited.samples)
    _import(broken.location, limited.location)
    statuses = dict(Run.objects.values_list("entry__agent__slug", "status").distinct())
    assert statuses == {"scripted-broken": "infra_error", "scripted-steady": "budget_exhausted"}
    # An infra error is the platform's: no score. A run stopped at its token limit is handed in as it stood.
    assert set(Run.objects.filter(entry__agent__slug="scripted-broken").values_list("score", flat=True)) == {None}
    board = _board()
    assert board["scripted-broken"]["tested"] == 0
    assert board["scripted-steady"]["tested"] == 3


@pytest.mark.parametrize(("limit", "kind"), [("time_limit", "time"), ("working_limit", "working")])
def test_a_sample_stopped_by_its_time_or_working_time_limit_is_a_timeout(tmp_path, client, limit, kind):
    # The model "slow" answers after 5 seconds: a 1-second limit on the clock (time) or on the time the sample
    # spent working (working) stops it. Both are limits on time, so the run reached its time limit (`timeout`),
    # not its budget (`budget_exhausted`, the token limit above): its page says "status: Timeout".
    task = scripted.quiz(scripted.QUESTIONS[:1], epochs=1)
    (log,) = scripted.run(["slow"], tmp_path, task=task, **{limit: 1})
    assert [s.limit.type if s.limit else None for s in log.samples] == [kind]
    _import(log.location)
    assert list(Run.objects.values_list("key", "status")) == [("scripted-slow.quiz.add.1", "timeout")]
    publish("quiz", "r1")
    page = client.get("/b/quiz/r/r1/runs/scripted-slow.quiz.add.1/").content.decode()
    assert "status: Timeout" in page and "budget exhausted" not in page.lower()


def test_a_benchmark_the_import_makes_has_no_vendor_window_and_publishes_from_draft(quiz_logs):
    # A team running its own evals has no vendors to wait for (#32.14): preview_hours 0, so "Publish" takes
    # the draft round straight to published; an existing benchmark keeps the window it has.
    from django.contrib.auth.models import Group, User

    from runs.services import round_publish

    _import(quiz_logs["steady"])
    assert Benchmark.objects.get(slug="quiz").preview_hours == 0
    editor = User.objects.create_user("ed")
    editor.groups.add(Group.objects.get(name="Editors"))
    rnd = round_publish(round=Round.objects.get(benchmark__slug="quiz", key="r1"), by=editor)
    assert rnd.status == "published"
    Benchmark.objects.filter(slug="quiz").update(preview_hours=24)
    _import(quiz_logs["flaky"])  # another import into the benchmark leaves its window as it is
    assert Benchmark.objects.get(slug="quiz").preview_hours == 24


def test_a_sample_run_in_a_local_sandbox_is_recorded_in_local_mode(tmp_path, client, quiz_logs):
    # 002, "Sandbox": "Local mode (fallback): ... Results may vary based on the host environment." A real eval of
    # the quiz's first question in Inspect's local sandbox: its run records local mode, and its page marks it; the
    # quiz run with no sandbox records none.
    (log,) = scripted.run(["steady"], tmp_path, task=scripted.quiz(scripted.QUESTIONS[:1], epochs=1), sandbox="local")
    assert log.eval.sandbox.type == "local"
    _import(log.location, quiz_logs["flaky"])
    run = Run.objects.get(key="scripted-steady.quiz.add.1")
    assert (run.execution_mode, run.judge_model) == ("local", "")
    assert set(Run.objects.filter(entry__agent__slug="scripted-flaky").values_list("execution_mode", flat=True)) == {""}
    publish("quiz", "r1")
    page = client.get("/b/quiz/r/r1/runs/scripted-steady.quiz.add.1/").content.decode()
    assert "Local mode (fallback)" in page and "results may vary with the host" in page
