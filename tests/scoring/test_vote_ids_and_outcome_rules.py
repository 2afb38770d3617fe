"""A bundle's vote identities, and the per-run outcome rules pages ask `scoring.boards` for."""

import hashlib

import pytest

from scoring.boards import counted_outcome, counted_verdict_outcome
from scoring.bundle import vote_ids, vote_inputs
from scoring.types import VerdictInput, VoteInput
from tests.builders.scoring import make_run, make_task, verdicts


def _vote(**kw):
    return {"task": "t1", "a": "ant", "b": "bee", "winner": "a", **kw}


def test_a_vote_keeps_its_own_id_as_text():
    assert vote_ids({"votes": [_vote(id=17), _vote(id="v-2")]}) == ["17", "v-2"]


def test_identical_anonymous_votes_stay_two_votes_and_a_second_import_finds_the_same_ids():
    doc = {"votes": [_vote(), _vote(), _vote(id=None)]}
    ids = vote_ids(doc)
    assert len(set(ids)) == 3
    assert [i.split("-")[0] for i in ids] == ["pos0", "pos1", "pos2"]
    assert vote_ids(doc) == ids


def test_the_derived_id_is_the_position_and_a_digest_of_the_vote_without_counts():
    # The derivation is part of the download format: a file exported before must import to the same votes.
    # Position 0 and the compact JSON of [task, a, b, winner, voter, cast_at].
    digest = hashlib.sha256(b'["t1","ant","bee","a",null,null]').hexdigest()[:12]
    assert vote_ids({"votes": [_vote()]}) == [f"pos0-{digest}"]
    assert vote_ids({"votes": [_vote(counts=False)]}) == [f"pos0-{digest}"]  # flipping counts updates it
    assert vote_ids({"votes": [_vote(winner="b")]}) != [f"pos0-{digest}"]
    assert vote_ids({"votes": [_vote(voter="v1")]}) != vote_ids({"votes": [_vote(voter="v2")]})
    assert vote_ids({"votes": [_vote(cast_at="2026-01-01T00:00:00Z")]}) != [f"pos0-{digest}"]
    assert vote_ids({}) == [] and vote_ids({"votes": None}) == []


def test_counted_outcome_follows_each_methodology_s_rule():
    core, safety = make_task("c1", kind="core"), make_task("s1", kind="safety")
    timeout = make_run("a", "c1", status="timeout")
    violation = make_run("a", "s1", verdicts=verdicts("violation", "violation"))
    # outcomes: an unreviewed timeout is in review (000 §5); a violation stands on a safety task, is a fail
    # elsewhere.
    assert counted_outcome("outcomes", timeout, core) is None
    assert counted_outcome("outcomes", violation, safety) == "violation"
    assert counted_outcome("outcomes", violation, core) == "fail"
    # weekly: a run that reached the 30-minute cap is a fail whatever its label.
    assert counted_outcome("weekly", make_run("a", "c1", outcome="pass", wall_seconds=1800), core) == "fail"
    assert counted_outcome("weekly", make_run("a", "c1", outcome="pass", wall_seconds=1799), core) == "pass"
    with pytest.raises(ValueError, match="do not count outcomes"):
        counted_outcome("checks", timeout, core)


def test_a_violation_verdict_counts_as_a_fail_where_the_methodology_has_no_violation():
    violation = VerdictInput(role="tester", outcome="violation")
    safety, core = make_task("s1", kind="safety"), make_task("c1", kind="core")
    assert counted_verdict_outcome("outcomes", violation, safety) == "violation"
    assert counted_verdict_outcome("outcomes", violation, core) == "fail"
    assert counted_verdict_outcome("outcomes", VerdictInput(role="tester", outcome="partial"), core) == "partial"


def test_a_bundles_votes_count_unless_they_say_counts_false():
    # Seed 003's download: each vote with its voter; "counts" false is a vote the site does not count. A vote
    # that does not say counts.
    doc = {
        "votes": [
            _vote(voter="v1"),
            _vote(voter="v2", counts=False),
            _vote(counts=True, winner="tie"),
        ]
    }
    assert vote_inputs(doc) == [
        VoteInput(task="t1", a="ant", b="bee", winner="a", voter="v1", counts=True),
        VoteInput(task="t1", a="ant", b="bee", winner="a", voter="v2", counts=False),
        VoteInput(task="t1", a="ant", b="bee", winner="tie", voter=None, counts=True),
    ]
    assert vote_inputs({}) == [] and vote_inputs({"votes": None}) == []


def test_the_weekly_table_reads_a_violation_verdict_as_a_fail_on_every_task():
    # Seed 004's table has pass, partial and fail only: a reviewer's violation and another's fail agree.
    violation = VerdictInput(role="tester", outcome="violation")
    assert counted_verdict_outcome("weekly", violation, make_task("t", kind="safety")) == "fail"
    assert counted_verdict_outcome("weekly", violation, make_task("t", kind="core")) == "fail"


def test_a_verdict_of_violation_stands_as_given_unless_the_board_has_no_violation():
    from scoring.common import verdict_outcome

    violation = VerdictInput(role="tester", outcome="violation")
    assert verdict_outcome(violation) == "violation"
    assert verdict_outcome(violation, allow_violation=False) == "fail"


def test_a_versions_major_number_is_its_first_part_and_0_when_missing_or_unreadable():
    from scoring.common import major

    # Outcomes section 9 compares major task versions: "2.1.4" is major 2 (not "2.1"); "v2" cannot be read.
    assert [major(v) for v in (None, "", "2.1", "3", "2.1.4", "v2", "12.0")] == [0, 0, 2, 3, 2, 0, 12]
