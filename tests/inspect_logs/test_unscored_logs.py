"""A result nobody scored is not a 0 (issue #33, item 10).

A real Inspect log of an eval run without scoring (`inspect eval --no-score`, as Inspect's own test logs are) is
refused on every way in, naming `inspect score`; in a log that is scored, a sample its scorer gave no score is a
run without a score: the board leaves it out and says "not scored"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from leaderboard.api_keys import api_key_create
from leaderboard.models import Agent, Benchmark, Round, Task
from runs.models import Run
from tests.builders.review import make_user
from tests.inspect_logs import scripted
from tests.inspect_logs.conftest import publish

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def unscored_log(tmp_path_factory) -> Path:
    """The quiz run with `score=False`: every sample ran to its end, and no scorer ever scored one."""
    (log,) = scripted.run(["steady"], tmp_path_factory.mktemp("unscored"), score=False)
    assert log.status == "success" and not any(s.scores for s in log.samples)
    return Path(log.location)


@pytest.fixture(scope="module")
def partly_scored_log(tmp_path_factory) -> Path:
    """The quiz scored by `includes`, except that its scorer gives sample 'capital' (both epochs) no score."""
    task = scripted.quiz(scorer=scripted.includes_except(["capital"]))
    (log,) = scripted.run(["steady"], tmp_path_factory.mktemp("partly"), task=task)
    assert [s.id for s in log.samples if not s.scores] == ["capital", "capital"]
    return Path(log.location)


def _import(path: Path) -> None:
    call_command("import_inspect", str(path), "--benchmark", "quiz", "--round", "r1")


def _row(html: str, agent: str) -> str:
    """The board's table row of `agent`."""
    start = html.index(f'data-agent="{agent}"')
    return html[start : html.index("</tr>", start)]


def _nothing_written() -> bool:
    return not Run.objects.exists() and not Round.objects.exists() and not Task.objects.exists()


def test_import_inspect_refuses_a_log_nobody_scored_and_names_inspect_score(unscored_log, capsys):
    with pytest.raises(CommandError, match=r"^1 problem\(s\); nothing was written$"):
        _import(unscored_log)
    err = capsys.readouterr().err
    assert f"{unscored_log.name}: no sample has a score" in err
    assert f"`inspect score {unscored_log.name}`" in err
    assert _nothing_written() and not Benchmark.objects.exists() and not Agent.objects.exists()


def test_the_upload_api_refuses_a_log_nobody_scored_with_422_and_writes_nothing(unscored_log):
    bench = Benchmark.objects.create(slug="quiz", name="Quiz", methodology="scored")
    key = api_key_create(name="CI", benchmark=bench)[1]
    with open(unscored_log, "rb") as f:
        res = Client().post(
            "/api/benchmarks/quiz/inspect", {"logs": [f], "round": "r1"}, HTTP_AUTHORIZATION=f"Bearer {key}"
        )
    assert res.status_code == 422, res.content
    (problem,) = res.json()["problems"]
    assert problem.startswith(f"{unscored_log.name}: no sample has a score")
    assert f"`inspect score {unscored_log.name}`" in problem
    assert _nothing_written()


def test_the_admin_import_page_refuses_a_log_nobody_scored_and_says_so(unscored_log):
    bench = Benchmark.objects.create(slug="quiz", name="Quiz", methodology="scored")
    client = Client()
    client.force_login(make_user("edna", "Editors"))
    with open(unscored_log, "rb") as f:
        res = client.post(
            f"/admin/leaderboard/benchmark/{bench.pk}/import/",
            {"kind": "inspect", "files": [f], "round": "r1", "agent_from": "model"},
            follow=True,
        )
    shown = [str(m) for m in res.context["messages"]]
    assert shown[0] == "1 problem(s); nothing was written."
    assert any("no sample has a score" in m and f"`inspect score {unscored_log.name}`" in m for m in shown)
    assert _nothing_written()


def test_a_sample_its_scorer_did_not_score_is_not_scored_on_the_board_not_a_zero(partly_scored_log, client):
    _import(partly_scored_log)
    # Stored as completed runs without a score, which the methodology leaves out.
    capital = Run.objects.filter(task__key="quiz.capital")
    assert sorted(capital.values_list("status", "score")) == [("completed", None), ("completed", None)]
    publish("quiz", "r1")

    row = _row(client.get("/b/quiz/r/r1/").content.decode(), "scripted-steady")
    # By hand, from the script: add "42" twice, C C, best 1; 3 "Venus" then "Mars", I C, best 1; capital has no
    # score, so it is no trial and, like any task without a score, counts 0 in the mean: (1 + 1 + 0) / 3 = 0.67.
    assert re.search(r">0\.67</a>\s*<span class=\"ci\"", row)
    assert '<span class="sub">tested 2 of 3 · 2 runs not scored</span>' in row

    tasks = _row(client.get("/b/quiz/r/r1/?tab=tasks").content.decode(), "scripted-steady")
    cells = [
        " ".join(re.sub(r"<[^>]+>", " ", c).split())
        for c in re.findall(r'<td class="num(?: card-more)?"[^>]*>(.*?)</td>', tasks, re.S)
    ]
    # quiz.3 best 1 (pass@2 1/2), quiz.add best 1 (2/2), quiz.capital "not scored", never 0.00.
    assert sorted(cells) == ["1.00 pass@2 100%", "1.00 pass@2 50%", "not scored"]

    run = client.get("/b/quiz/r/r1/runs/scripted-steady.quiz.capital.1/").content.decode()
    assert "score: not scored" in run and "does not count" in run


def test_a_sample_stopped_by_a_limit_without_a_score_is_refused(tmp_path, capsys):
    # A limit hands a sample in as it stood, which scores 0 when it has no score: a 0 nobody measured. Inspect
    # scores a sample stopped by a limit, so one without a score is its scorer's gap, and the log is refused.
    task = scripted.quiz(scripted.QUESTIONS[:2], epochs=1, scorer=scripted.includes_except(["add"]))
    (log,) = scripted.run(["slow"], tmp_path, task=task, time_limit=1)
    add = next(s for s in log.samples if s.id == "add")
    assert add.limit is not None and add.limit.type == "time" and not add.scores
    with pytest.raises(CommandError):
        _import(Path(log.location))
    err = capsys.readouterr().err
    assert "sample 'add' epoch 1: stopped by its time limit with no score" in err
    assert _nothing_written()
