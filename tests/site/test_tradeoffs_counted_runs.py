"""The trade-offs page of boards whose score is not about cost or time (checks, outcomes): cost and time per run
are averaged over the runs the board counts, time-limit runs included, and the page says which runs those are."""

from __future__ import annotations

import pytest

from tests.builders.site import checks_timeouts_bundle, outcomes_timeout_bundle

pytestmark = pytest.mark.django_db


def _row(html: str, agent: str) -> str:
    start = html.index(f'data-agent="{agent}"')
    return html[start : html.index("</tr>", start)]


def test_a_checks_agent_that_times_out_more_does_not_look_faster(load, client):
    load(checks_timeouts_bundle())
    html = client.get("/b/qbench/tradeoffs/").content.decode()
    # agent-01 over its 4 counted runs: (300 + 7200 + 7200 + 300) / 4 = 3,750 s = 1h 02m (its completed runs
    # alone would read 300 s = 5m 00s). agent-00: (600 + 600 + 600) / 3 = 600 s = 10m 00s, the run without a
    # time left out of the mean and named: time on 3 of 4 runs.
    assert "1h 02m" in _row(html, "agent-01") and "5m 00s" not in _row(html, "agent-01")
    assert "10m 00s" in _row(html, "agent-00")
    assert "Agent 00 (time on 3 of 4 runs)" in html
    assert "averaged over the runs the overall board counts" in html
    assert "a run stopped at the time limit or when its budget ran out included" in html


def test_an_outcomes_agents_time_limit_run_counts_in_its_time(load, client):
    load(outcomes_timeout_bundle())
    html = client.get("/b/obench/tradeoffs/").content.decode()
    # Bram's overall counts one core run, the flights re-run (a pass, judged at the 30-minute time limit):
    # 1,800 s = 30m 00s. Its completed runs (the safety task, no time) would give no time at all.
    assert "30m 00s" in _row(html, "bram")
    # Ayla's overall counts flights (300 s) and email (no time): time on 1 of 2 runs, 5m 00s; the safety run
    # is not in the overall.
    assert "5m 00s" in _row(html, "ayla")
    assert "Ayla (time on 1 of 2 runs)" in html
    assert "the counted run of each core task it was tested on" in html


@pytest.mark.parametrize(
    "build,slug", [(checks_timeouts_bundle, "qbench"), (outcomes_timeout_bundle, "obench")], ids=["checks", "outcomes"]
)
def test_the_methodology_page_says_which_runs_the_axes_average(load, client, build, slug):
    load(build())
    html = client.get(f"/b/{slug}/methodology/").content.decode()
    assert "averaged over the runs the overall counts" in html
    assert "make an agent that times out more look faster" in html
