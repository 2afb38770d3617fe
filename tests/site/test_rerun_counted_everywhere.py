"""After a dispute, every page and download says which run counts, and it is the run the board counts.

Seed 000 §6: "A disputed run may be re-run once. Both runs are published and the re-run counts." The re-run an
accepted dispute allows is created empty (`rerun_create`); "the re-run counts" is about a re-run that took
place, so the board (`scoring.common.effective_runs`) keeps the disputed run until the re-run has results, and
from then on counts the re-run in its place.

The case, built by hand through the services: one outcomes benchmark, one agent (Kit), one core task (flights),
one round. Kit's run `kit-flights` is reviewed fail by the tester and the second reviewer (they agree, so fail
is its outcome, 000 §5). Kit's vendor disputes it during the preview, an editor accepts, the round is
published, and the editor creates the re-run `kit-flights-rerun`: a completed run with no verdict, no outcome,
no numbers.

  1. Re-run without results: the re-run has not taken place, so kit-flights still counts (fail, 0 points:
     overall 5 x 0 / 1 tested = 0.0) and the re-run does not ("re-run awaiting results").
  2. The tester and the second reviewer both judge the re-run pass: it has results, so it counts (pass, 2
     points: overall 5 x 2 / 1 = 10.0) and kit-flights does not ("replaced by its re-run").

Each state is read from outside: the run pages, the agent's round page, the task page, the changelog, runs.csv,
the runs API (list and detail) and the board JSON.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import Round
from runs.models import Run
from runs.services import dispute_decide, dispute_file, rerun_create, round_enter_preview, round_publish, verdict_record
from scoring.recount import recount
from tests.builders.review import make_user
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

BENCH, ROUND, ORIGINAL, RERUN = "rerunb", "r1", "kit-flights", "kit-flights-rerun"
AWAITING = "re-run awaiting results"
REPLACED = "replaced by its re-run"


def bundle() -> dict:
    return {
        "benchmark": {"slug": BENCH, "name": "Re-run bench", "methodology": "outcomes"},
        "agents": [{"slug": "kit", "name": "Kit", "organization": "Kite Labs"}],
        "tasks": [{"key": "flights", "title": "Flights", "version": "1.0", "kind": "core", "dimensions": ["travel"]}],
        "rounds": [{"key": ROUND, "name": "Round 1", "status": "draft", "entries": [{"agent": "kit"}]}],
        "runs": [
            {
                "id": ORIGINAL,
                "round": ROUND,
                "agent": "kit",
                "task": "flights",
                "status": "completed",
                "wall_seconds": 600.0,
                "verdicts": [
                    {"role": "tester", "outcome": "fail", "note": "booked the wrong day"},
                    {"role": "second", "outcome": "fail"},
                ],
            }
        ],
    }


@pytest.fixture(autouse=True)
def no_rate_limit(settings):
    settings.API_RATE_LIMIT = 0  # the test reads the API many times


@pytest.fixture
def people():
    return {
        "editor": make_user("edna", "Editors"),
        "tester": make_user("tess", "Testers"),
        "second": make_user("sam", "Reviewers"),
    }


@pytest.fixture
def disputed(load, people):
    """The round published with kit-flights disputed, the dispute accepted and its re-run created empty."""
    load(bundle())
    vendor = make_user("vera", "Vendors", org="Kite Labs")
    rnd = Round.objects.get(benchmark__slug=BENCH, key=ROUND)
    round_enter_preview(round=rnd, by=people["editor"], now=timezone.now() - timedelta(hours=49))
    original = Run.objects.get(round=rnd, key=ORIGINAL)
    dispute = dispute_file(run=original, user=vendor, reason="environment", note="The booking site was down.")
    dispute_decide(dispute=dispute, accept=True, by=people["editor"])
    round_publish(round=Round.objects.get(pk=rnd.pk), by=people["editor"])
    rerun = rerun_create(run=original, by=people["editor"])
    assert rerun.key == RERUN
    compute_all()
    return rerun


def _give_results(rerun: Run, people) -> None:
    why = "The re-run after the accepted dispute."
    verdict_record(run=rerun, role="tester", reviewer=people["tester"], outcome="pass", note="booked", reason=why)
    verdict_record(run=rerun, role="second", reviewer=people["second"], outcome="pass", reason=why)
    compute_all()


# --- what each page and download says about one run ----------------------------------------------------------


def _run_page(client, key: str) -> str:
    html = client.get(f"/b/{BENCH}/r/{ROUND}/runs/{key}/").content.decode()
    return re.sub(r"\s+", " ", html)


def _round_agent_page(client) -> str:
    return re.sub(r"\s+", " ", client.get(f"/b/{BENCH}/r/{ROUND}/agents/kit/").content.decode())


def _task_chip(client, key: str) -> str:
    """The chip of run `key` on the task page (its link, classes and title)."""
    html = client.get(f"/b/{BENCH}/tasks/flights/").content.decode()
    found = re.search(rf'<a class="chip[^"]*" href="/b/{BENCH}/r/{ROUND}/runs/{key}/".*?</a>', html, re.S)
    assert found, f"no chip for {key} on the task page"
    return found.group(0)


def _csv_rows(client) -> dict[str, dict[str, str]]:
    body = client.get(f"/b/{BENCH}/download/runs.csv").content.decode()
    return {r["run"]: r for r in csv.DictReader(io.StringIO(body))}


def _api_list(client) -> dict[str, dict]:
    return {r["key"]: r for r in client.get(f"/api/benchmarks/{BENCH}/runs").json()["items"]}


def _api_detail(client, key: str) -> dict:
    return client.get(f"/api/benchmarks/{BENCH}/runs/{ROUND}/{key}").json()


def _board_cell(client) -> dict:
    data = client.get(f"/api/benchmarks/{BENCH}/rounds/{ROUND}/board").json()["data"]
    (row,) = data["overall"]
    return {"run": row["tasks"]["flights"]["run"], "outcome": row["tasks"]["flights"]["outcome"], **row}


def _assert_counted(client, key: str) -> None:
    page = _run_page(client, key)
    assert '<span class="badge">counts in the rankings</span>' in page and 'warn">does not count' not in page
    assert "not-counted" not in _task_chip(client, key)
    row = _csv_rows(client)[key]
    assert (row["counted"], row["why_not_counted"]) == ("yes", "")
    assert (_api_list(client)[key]["counts"], _api_list(client)[key]["why_not_counted"]) == (True, None)
    detail = _api_detail(client, key)
    assert (detail["counts"], detail["why_not_counted"]) == (True, None)


def _assert_not_counted(client, key: str, why: str) -> None:
    page = _run_page(client, key)
    assert "counts in the rankings" not in page
    assert f'<span class="badge warn">does not count: {why}</span>' in page
    chip = _task_chip(client, key)
    assert "not-counted" in chip and why in chip
    row = _csv_rows(client)[key]
    assert (row["counted"], row["why_not_counted"]) == ("no", why)
    assert (_api_list(client)[key]["counts"], _api_list(client)[key]["why_not_counted"]) == (False, why)
    detail = _api_detail(client, key)
    assert (detail["counts"], detail["why_not_counted"]) == (False, why)


# --- the tests -----------------------------------------------------------------------------------------------


def test_it_counts_the_disputed_run_everywhere_while_its_rerun_has_no_results(client, disputed):
    # The board: kit-flights stands, fail, 0 points; overall 5 x 0 / 1 tested = 0.0.
    cell = _board_cell(client)
    assert (cell["run"], cell["outcome"], cell["points"], cell["overall"]) == (ORIGINAL, "fail", 0, 0.0)
    _assert_counted(client, ORIGINAL)
    _assert_not_counted(client, RERUN, AWAITING)
    # The original's page never calls the empty re-run "the one that counts".
    original = _run_page(client, ORIGINAL)
    assert "is the one that counts" not in original and AWAITING in original
    rerun = _run_page(client, RERUN)
    assert "This run counts" not in rerun
    agent_page = _round_agent_page(client)
    assert f"not counted: {AWAITING}" in agent_page
    changelog = re.sub(r"\s+", " ", client.get(f"/b/{BENCH}/r/{ROUND}/changelog/").content.decode())
    assert f"the re-run does not count ({AWAITING}), and the" in changelog
    assert "original run</a> counts." in changelog


def test_it_counts_the_rerun_everywhere_once_it_has_results(client, disputed, people):
    _give_results(disputed, people)
    # The board: kit-flights-rerun stands, pass, 2 points; overall 5 x 2 / 1 tested = 10.0.
    cell = _board_cell(client)
    assert (cell["run"], cell["outcome"], cell["points"], cell["overall"]) == (RERUN, "pass", 2, 10.0)
    _assert_counted(client, RERUN)
    _assert_not_counted(client, ORIGINAL, REPLACED)
    original = _run_page(client, ORIGINAL)
    assert f"re-run {RERUN}</a> is the one that counts" in original
    assert "This run counts; the original stays published." in _run_page(client, RERUN)
    agent_page = _round_agent_page(client)
    assert f"not counted: {REPLACED}" in agent_page and AWAITING not in agent_page
    changelog = re.sub(r"\s+", " ", client.get(f"/b/{BENCH}/r/{ROUND}/changelog/").content.decode())
    assert "was re-run; the re-run counts, and the" in changelog
    assert f"original run</a> does not ({REPLACED})." in changelog


def test_a_rerun_judged_by_the_tester_alone_does_not_replace_its_run_yet(client, disputed, people):
    # The tester judges the re-run pass; the second reviewer has not. 000 §5: the second judges "without seeing
    # the first outcome", so the tester's verdict is not public, and it is not yet a result of the re-run: the
    # board still counts kit-flights (fail, 0 points: overall 0.0) rather than switch to the re-run the moment a
    # first reviewer judged it, which would tell everyone so.
    why = "The re-run after the accepted dispute."
    verdict_record(run=disputed, role="tester", reviewer=people["tester"], outcome="pass", note="ok", reason=why)
    compute_all()
    cell = _board_cell(client)
    assert (cell["run"], cell["outcome"], cell["overall"]) == (ORIGINAL, "fail", 0.0)
    _assert_counted(client, ORIGINAL)
    _assert_not_counted(client, RERUN, AWAITING)
    # And the public download, which carries no verdict of the re-run yet, recounts to that very board.
    (counted,) = recount(client.get(f"/b/{BENCH}/download/bundle.json").json())["rounds"]
    board = client.get(f"/api/benchmarks/{BENCH}/rounds/{ROUND}/board").json()["data"]
    assert counted["boards"] == board
