"""The public pages show the snapshot's numbers, link numbers to runs, and hide what is not published."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from leaderboard.caching import content_version_bump
from leaderboard.models import Round
from recompute.boards import snapshot_recompute
from runs.models import Run, Verdict
from snapshots.models import BoardSnapshot
from tests.builders.site import SECRET_CITY, checks_bundle, outcomes_bundle

pytestmark = pytest.mark.django_db


def _board(bench: str) -> dict:
    return BoardSnapshot.objects.get(round__benchmark__slug=bench, kind="boards").data


def test_it_lists_benchmarks_with_top_agents_on_home(load, client):
    load(checks_bundle(), outcomes_bundle())
    top = _board("qbench")["overall"][0]
    html = client.get("/").content.decode()
    assert "Bench qbench" in html and "Bench obench" in html
    assert top["name"] in html
    assert f"{top['overall']:.1f}" in html


def test_it_shows_the_snapshot_numbers_on_the_board(load, client):
    load(checks_bundle())
    data = _board("qbench")
    response = client.get("/b/qbench/")
    assert response.status_code == 200
    html = response.content.decode()
    for row in data["overall"]:
        assert f"{row['overall']:.1f}" in html
        assert row["name"] in html
    # every per-task median links to the median run behind it
    median_run = data["tasks"]["shop"][0]["median_run"]
    assert f"/b/qbench/r/r1/runs/{median_run}/" in html
    assert '<th scope="col"' in html and "<caption>" in html


def test_it_shows_task_medians_with_run_counts_and_range(load, client):
    load(checks_bundle())
    row = _board("qbench")["tasks"]["notes"][0]
    html = client.get("/b/qbench/?tab=tasks&task=notes").content.decode()
    assert f"{row['median']:.1f}" in html
    assert f"{row['min']:.1f}–{row['max']:.1f}" in html  # on the checks' scale, as the median reads
    assert f"/b/qbench/r/r1/runs/{row['median_run']}/" in html


def test_it_answers_htmx_with_the_board_region_only(load, client):
    load(outcomes_bundle())
    response = client.get("/b/obench/?tab=safety", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="board-region"')
    assert "<html" not in html
    assert 'aria-current="page" class="active">Safety' in html
    assert "1 violation" in html
    assert response["Vary"] and "HX-Request" in response["Vary"]


def test_it_sorts_a_column_and_keeps_a_shareable_url(load, client):
    load(checks_bundle(agents=5))
    rows = _board("qbench")["overall"]
    html = client.get("/b/qbench/?tab=overall&sort=agent&dir=desc").content.decode()
    names = sorted((r["name"] for r in rows), reverse=True)
    positions = [html.index(f">{n}</a>") for n in names]
    assert positions == sorted(positions)
    assert 'aria-sort="descending"' in html
    assert 'href="?tab=overall&amp;sort=agent&amp;dir=asc"' in html


def test_it_shows_vote_ratings_beside_the_score(load, client):
    load(checks_bundle())
    ratings = BoardSnapshot.objects.get(benchmark__slug="qbench", kind="ratings").data
    first = ratings["all"][0]
    html = client.get("/b/qbench/").content.decode()
    assert "Vote rating" in html
    assert f"{first['rating']:.0f}" in html
    assert "few votes" in html  # 12 votes are under 30


def test_it_polls_while_the_snapshot_is_stale(load, client):
    load(checks_bundle())
    BoardSnapshot.objects.filter(kind="boards").update(stale=True)
    html = client.get("/b/qbench/").content.decode()
    assert "Updating" in html and 'hx-trigger="every 3s"' in html
    snapshot_recompute(snapshot_id=BoardSnapshot.objects.get(kind="boards").id)
    html = client.get("/b/qbench/", headers={"HX-Request": "true"}).content.decode()
    assert "every 3s" not in html and "Updating" not in html


def test_it_says_computing_before_the_first_snapshot(load, client):
    load(checks_bundle(), compute=False)
    html = client.get("/b/qbench/").content.decode()
    assert "Computing this board" in html and 'hx-trigger="every 3s"' in html


@pytest.mark.parametrize(
    "url",
    [
        "/b/nope/",
        "/b/obench/r/nope/",
        "/b/obench/r/r1/runs/nope/",
        "/b/obench/tasks/nope/",
        "/agents/nope/",
        "/b/nope/methodology/",
        "/b/obench/r/nope/changelog/",
        "/b/obench/r/r1/agents/nope/",
        "/no/such/page/",
    ],
)
def test_it_answers_404_with_the_site_layout(load, client, url):
    load(outcomes_bundle())
    response = client.get(url)
    assert response.status_code == 404
    assert "This page does not exist" in response.content.decode()
    assert 'class="site-header"' in response.content.decode()


@pytest.mark.parametrize("status", ["draft", "preview"])
def test_it_hides_unpublished_rounds_and_their_runs(load, client, status):
    load(outcomes_bundle(), outcomes_bundle(round_key="r2", status=status))
    for url in [
        "/b/obench/r/r2/",
        "/b/obench/r/r2/runs/ayla-flights/",
        "/b/obench/r/r2/runs/ayla-flights.json",
        "/b/obench/r/r2/changelog/",
        "/b/obench/r/r2/agents/ayla/",
        "/b/obench/r/r2/board.csv",
    ]:
        assert client.get(url).status_code == 404, url
    assert "Round r2" not in client.get("/b/obench/").content.decode()
    assert "/r/r2/" not in client.get("/b/obench/tasks/flights/").content.decode()


def test_it_shows_private_parameters_only_once_published(load, client):
    load(outcomes_bundle(status="preview"))
    assert client.get("/b/obench/").status_code == 404
    # A task only the preview round holds is not public yet, its prompt included.
    task_page = client.get("/b/obench/tasks/flights/")
    assert task_page.status_code == 404
    assert SECRET_CITY not in task_page.content.decode() and "Find flights" not in task_page.content.decode()
    Round.objects.filter(key="r1").update(status="published", published_at="2026-02-01T12:00:00Z")
    content_version_bump()  # runs.services.round_publish does this (through the stale snapshots)
    assert SECRET_CITY in client.get("/b/obench/tasks/flights/").content.decode()
    run_html = client.get("/b/obench/r/r1/runs/ayla-flights/").content.decode()
    assert f"Find flights to {SECRET_CITY}." in run_html


def test_it_publishes_every_verdict_by_role_without_reviewer_names(load, client):
    load(outcomes_bundle())
    reviewer = User.objects.create_user("margot-the-reviewer", "margot@example.org", "x")
    Verdict.objects.filter(run__key="ayla-flights", role="third").update(reviewer=reviewer)
    html = client.get("/b/obench/r/r1/runs/ayla-flights/").content.decode()
    for note in ("Tester note", "Second note", "Third note"):
        assert note in html
    assert "Third reviewer" in html and "a third reviewer decided" in html
    assert "margot" not in html
    assert "full recording" in html
    assert "/b/obench/r/r1/runs/ayla-flights.json" in html


def test_it_links_a_disputed_run_and_its_rerun(load, client):
    load(outcomes_bundle())
    html = client.get("/b/obench/r/r1/runs/bram-flights/").content.decode()
    assert "/b/obench/r/r1/runs/bram-flights-rerun/" in html
    assert "Wrong version" in html and "does not count" in html
    html = client.get("/b/obench/r/r1/runs/bram-flights-rerun/").content.decode()
    assert "This is the re-run of" in html


def test_it_marks_a_run_under_an_old_major_task_version_stale(load, client):
    load(outcomes_bundle())
    html = client.get("/b/obench/r/r1/runs/ayla-email/").content.decode()
    assert "stale: task v1.0, now v2.0" in html


def test_it_gives_a_run_as_json_without_identity(load, client):
    load(outcomes_bundle())
    doc = client.get("/b/obench/r/r1/runs/ayla-flights.json").json()
    assert doc["id"] == "ayla-flights" and doc["agent"] == "ayla"
    assert [v["role"] for v in doc["verdicts"]] == ["tester", "second", "third"]
    assert "reviewer" not in str(doc["verdicts"])


def test_it_shows_every_agents_runs_on_a_task_with_the_median_marked(load, client):
    load(checks_bundle())
    row = _board("qbench")["tasks"]["shop"][0]
    html = client.get(f"/b/qbench/tasks/shop/?agent={row['agent']}").content.decode()
    assert "median run" in html
    assert f"/b/qbench/r/r1/runs/{row['median_run']}/" in html
    assert f'id="agent-{row["agent"]}" class="selected"' in html
    assert SECRET_CITY in html  # published round: parameters are public


def test_it_shows_an_agents_entries_across_rounds(load, client):
    load(outcomes_bundle(), outcomes_bundle(round_key="r0"), outcomes_bundle(round_key="r9", status="draft"))
    html = client.get("/agents/ayla/").content.decode()
    assert "Round r1" in html and "Round r0" in html and "Round r9" not in html
    assert "ayla-large" in html and "<svg" in html


def test_it_shows_the_runs_behind_an_agents_row(load, client):
    load(outcomes_bundle())
    html = client.get("/b/obench/r/r1/agents/ayla/").content.decode()
    for key in ("ayla-flights", "ayla-email", "ayla-no-pay"):
        assert f"/b/obench/r/r1/runs/{key}/" in html


def test_it_plots_score_against_cost_and_lists_agents_missing_an_axis(load, client):
    load(checks_bundle(agents=4))
    html = client.get("/b/qbench/tradeoffs/").content.decode()
    assert "<svg" in html and 'class="frontier"' in html
    assert "Not plotted (no cost data, never drawn at 0): Agent 01" in html
    cost_chart = html.split("against cost")[1].split("against time")[0]
    assert "<title>Agent 01:" not in cost_chart  # no cost: never plotted at 0
    assert "<title>Agent 01:" in html[html.index("against time") :]  # it has a time


def test_it_reranks_with_weights_through_htmx(load, client):
    load(checks_bundle(agents=4))
    url = "/b/qbench/tradeoffs/?w_score=0&w_cost=1&w_time=0"
    html = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<div id="weighted-region"')
    # cost only: the cheapest agent (Agent 00) ranks first; Agent 01 has no cost and is marked
    first_row = html.split("<tbody>")[1].split("</tr>")[0]
    assert "Agent 00" in first_row
    assert "no cost" in html


@pytest.mark.parametrize(
    "bundle,words",
    [
        (outcomes_bundle, ["lowest applies", "third reviewer", "Choices we made"]),
        (checks_bundle, ["median run", "lower of the two middle runs", "Bradley", "Choices we made"]),
    ],
)
def test_it_explains_the_methodology(load, client, bundle, words):
    doc = bundle()
    load(doc)
    html = client.get(f"/b/{doc['benchmark']['slug']}/methodology/").content.decode()
    for word in words:
        assert word in html


def test_it_lists_corrections_and_reruns_in_the_changelog(load, client):
    load(outcomes_bundle())
    html = client.get("/b/obench/r/r1/changelog/").content.decode()
    assert "Corrected Bram&#x27;s plan" in html and "by the editor" in html
    assert "/b/obench/r/r1/runs/bram-flights-rerun/" in html


def test_it_uses_no_inline_style_or_script(load, client):
    load(checks_bundle(), outcomes_bundle())
    for url in [
        "/",
        "/b/qbench/",
        "/b/qbench/tradeoffs/",
        "/b/obench/r/r1/runs/ayla-flights/",
        "/agents/ayla/",
        "/b/obench/tasks/flights/",
    ]:
        html = client.get(url).content.decode()
        assert "style=" not in html, url
        assert "<script>" not in html and "onclick" not in html, url


def test_run_count_on_the_board_is_the_counted_runs(load, client):
    load(checks_bundle())
    assert Run.objects.count() == 3 * 2 * 3
    html = client.get("/b/qbench/").content.decode()
    assert ">6</a>" in html  # two tasks x three counted runs per agent
