"""The head-to-head says two agents are level on a task when the board has them level: scores equal to nine
decimals are equal wherever the board ranks (docs/methodology-choices.md, "Equal is equal to nine decimals"),
and the head-to-head's "Ahead" column reads the same rule."""

from __future__ import annotations

import re

import pytest

from tests.site.conftest import two_agent_scored

pytestmark = pytest.mark.django_db


def test_two_composite_scores_equal_to_nine_decimals_are_level_on_the_head_to_head(load, client):
    # Seed 002, composite: 0.6 x tests passed share + 0.4 x judge mean / 10.
    #   Ayla: 9/10 tests, judge 4 and 4: 0.6 x 0.9 + 0.4 x 0.4 = 0.54 + 0.16 = 0.70 (as a float 0.7000000000000001).
    #   Bram: 5/10 tests, judge 10 and 10: 0.6 x 0.5 + 0.4 x 1.0 = 0.30 + 0.40 = 0.70 (as a float 0.7).
    # The same 0.70 on the board: neither is ahead on the task.
    def run(agent: str, passed: int, judge: int) -> dict:
        return {
            "id": f"{agent}-mix",
            "round": "r1",
            "agent": agent,
            "task": "mix",
            "status": "completed",
            "tests_passed": passed,
            "tests_total": 10,
            "judge_scores": [judge, judge],
        }

    load(
        two_agent_scored(
            "ties", {"key": "mix", "title": "Mix", "evaluation": "composite"}, [run("ayla", 9, 4), run("bram", 5, 10)]
        )
    )
    overall = client.get("/api/benchmarks/ties/rounds/r1/board").json()["data"]["overall"]
    assert [r["rank"] for r in overall] == [1, 1]  # the board has them level
    page = re.sub(r"\s+", " ", client.get("/b/ties/compare/?a=ayla&b=bram&round=r1").content.decode())
    found = re.search(r'<tr data-task="mix">(.*?)</tr>', page)
    assert found, "no row for the task"
    ahead = re.sub(r"<[^>]+>", "", re.findall(r"<td>(.*?)</td>", found.group(1))[-1]).strip()
    assert ahead == "same"
