"""The streamed votes download: gzip JSON lines of the public votes with pseudonymous voters; the bundle
refers to it above VOTES_INLINE_LIMIT; `recount BUNDLE --votes FILE` gives the ratings the site shows."""

from __future__ import annotations

import gzip
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from recompute.boards import compute_ratings
from tests.builders.voting import cast, cast_then_withdraw, make_user
from voting.standing import standings_retire

pytestmark = pytest.mark.django_db


def _run(world, slug, task=0):
    return next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[task].id)


def _votes(world):
    voter = make_user("streamer@example.com")
    plan = [("zephyrbot", "marlinide", "a")] * 3 + [
        ("marlinide", "thistledev", "b"),
        ("thistledev", "zephyrbot", "tie"),
    ]
    plan += [("zephyrbot", "corvidcode", "a", 1)] * 2
    for a, b, w, *task in plan:
        cast(voter, _run(world, a, *task), _run(world, b, *task), w)
    draft_run = next(r for r in world.draft_runs if r.task_id == world.tasks[0].id)
    cast_then_withdraw(voter, _run(world, "zephyrbot"), draft_run, "b")  # names an unpublished agent: never downloaded
    return voter


def _download(client, world) -> list[dict]:
    response = client.get(reverse("votes_file", args=[world.benchmark.slug]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/gzip"
    return [json.loads(line) for line in gzip.decompress(b"".join(response.streaming_content)).splitlines()]


def test_the_votes_file_holds_every_public_vote_with_pseudonymous_voters(client, world):
    voter = _votes(world)
    lines = _download(client, world)
    assert len(lines) == 7  # 3 + 1 + 1 + 2 public votes; the vote on the draft agent is left out
    assert all("secretdraft" not in (v["a"], v["b"]) for v in lines)
    assert {v["voter"] for v in lines} == {lines[0]["voter"]}
    assert lines[0]["voter"].startswith("voter-")
    text = json.dumps(lines)
    assert voter.email not in text and f'"{voter.pk}"' not in text
    assert set(lines[0]) == {"id", "task", "a", "b", "winner", "voter", "cast_at", "counts"}


def test_above_the_limit_the_bundle_refers_to_the_file_and_recount_of_both_gives_the_sites_ratings(
    client, world, settings, tmp_path, capsys
):
    settings.VOTES_INLINE_LIMIT = 6
    _votes(world)
    bundle = client.get(reverse("bundle_json", args=[world.benchmark.slug])).json()
    assert bundle["votes"] == []
    assert bundle["votes_file"]["votes"] == 7
    assert bundle["votes_file"]["url"].endswith(f"/b/{world.benchmark.slug}/download/votes.jsonl.gz")
    bundle_path = tmp_path / "bundle.json"
    bundle_path.write_text(json.dumps(bundle))
    votes_path = tmp_path / "votes.jsonl.gz"
    response = client.get(reverse("votes_file", args=[world.benchmark.slug]))
    votes_path.write_bytes(b"".join(response.streaming_content))

    call_command("recount", str(bundle_path), "--votes", str(votes_path))
    _, site = compute_ratings(world.benchmark.id)
    assert json.loads(capsys.readouterr().out)["ratings"] == site
    assert [row["agent"] for row in site["all"]][0] == "zephyrbot"  # 6 wins, 1 tie, no loss

    with pytest.raises(CommandError, match="1 problem"):
        call_command("recount", str(bundle_path), stdout=StringIO(), stderr=StringIO())


def test_at_or_under_the_limit_the_votes_stay_inline(client, world, settings):
    settings.VOTES_INLINE_LIMIT = 7
    _votes(world)
    bundle = client.get(reverse("bundle_json", args=[world.benchmark.slug])).json()
    assert len(bundle["votes"]) == 7 and "votes_file" not in bundle


def test_recount_names_the_bad_lines_of_a_votes_file(client, world, settings, tmp_path):
    settings.VOTES_INLINE_LIMIT = 0
    _votes(world)
    bundle_path = tmp_path / "bundle.json"
    bundle_path.write_text(client.get(reverse("bundle_json", args=[world.benchmark.slug])).content.decode())
    good = json.dumps({"task": world.tasks[0].key, "a": "zephyrbot", "b": "marlinide", "winner": "a"})
    bad = json.dumps({"task": world.tasks[0].key, "a": "zephyrbot", "b": "nobody", "winner": "a"})
    votes_path = tmp_path / "votes.jsonl"
    votes_path.write_text(f"{good}\n{bad}\nnot json\n")
    err = StringIO()
    with pytest.raises(CommandError, match="2 problem"):
        call_command("recount", str(bundle_path), "--votes", str(votes_path), stdout=StringIO(), stderr=err)
    assert "votes file line 2: b: agent 'nobody' is not in the bundle" in err.getvalue()
    assert "votes file line 3: not a JSON object" in err.getvalue()


def test_each_line_is_compact_json_with_non_ascii_kept_and_the_reader_refuses_what_json_refuses(
    client, world, settings, tmp_path
):
    """The lines are what `json.dumps(vote, ensure_ascii=False, separators=(",", ":"))` writes (the format does
    not depend on the encoder that writes it), and the recount's reader is as strict as the bundle parser: NaN
    and a line that is not UTF-8 are bad lines, named by number, not numbers or text that slip through."""
    from voting.models import Vote

    _votes(world)
    site_voters = Vote.objects.filter(voter__isnull=False)
    standings_retire(site_voters.values_list("voter_id", flat=True))  # what a service changing votes does first
    site_voters.update(voter=None, voter_label="électeur-7")  # an imported voter
    raw = gzip.decompress(b"".join(client.get(reverse("votes_file", args=[world.benchmark.slug])).streaming_content))
    lines = raw.decode("utf-8").splitlines()
    assert lines and all(
        line == json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":")) for line in lines
    )
    assert '"voter":"électeur-7"' in lines[0]

    settings.VOTES_INLINE_LIMIT = 0
    bundle_path = tmp_path / "bundle.json"
    bundle_path.write_text(client.get(reverse("bundle_json", args=[world.benchmark.slug])).content.decode())
    votes_path = tmp_path / "votes.jsonl"
    votes_path.write_bytes(
        raw.splitlines()[0] + b"\n" + b'{"task": NaN}\n' + b'{"task": "\xff"}\n' + b'{"task": ["t"], "a": "x"}\n'
    )
    err = StringIO()
    with pytest.raises(CommandError, match="3 problem"):
        call_command("recount", str(bundle_path), "--votes", str(votes_path), stdout=StringIO(), stderr=err)
    assert "votes file line 2: not a JSON object" in err.getvalue()
    assert "votes file line 3: not a JSON object" in err.getvalue()
    assert "votes file line 4: task, a, b and winner must be strings" in err.getvalue()


def test_on_postgresql_the_database_writes_the_same_lines_byte_for_byte(world):
    """The download's lines are made by PostgreSQL (COPY) on the production path and one by one in Python on
    SQLite: the same bytes, whatever the text (quotes, backslashes, control characters, non-ASCII), the voter
    (site or imported pseudonym) or the time (with and without microseconds)."""
    from datetime import UTC, datetime

    from django.db import connection

    from bundles import votes_file
    from voting.models import Vote

    if connection.vendor != "postgresql":
        pytest.skip("the COPY path is PostgreSQL's")
    _votes(world)
    first = Vote.objects.order_by("id").first()
    odd = 'imported \\ "quoted" \\\\ tab\there\nnew\x01line é 猫 \u2028 </script>'
    Vote.objects.create(
        key='k\\"\x02é',
        task_id=first.task_id,
        agent_a_id=first.agent_a_id,
        agent_b_id=first.agent_b_id,
        winner="tie",
        voter=None,
        voter_label=odd,
        cast_at=datetime(2026, 11, 2, 3, 4, 5, 60, tzinfo=UTC),
        counts=False,
    )
    standings_retire([first.voter_id])  # what a service changing a vote does first
    Vote.objects.filter(pk=first.pk).update(cast_at=datetime(2026, 11, 2, 3, 4, 5, tzinfo=UTC))
    for unpublished in (False, True):
        by_copy = gzip.decompress(
            b"".join(votes_file.votes_file_chunks(world.benchmark, include_unpublished=unpublished, batch=2))
        )
        by_python = gzip.decompress(
            b"".join(votes_file._python_chunks(world.benchmark, include_unpublished=unpublished, batch=2, level=6))
        )
        assert by_copy == by_python
        assert json.loads(by_copy.splitlines()[-1])["voter"] == odd or unpublished
    assert by_copy.count(b"\n") == Vote.objects.count()


def test_export_bundle_can_stream_its_votes_to_a_file_that_recount_reads_back(world, tmp_path, capsys):
    _votes(world)
    bundle_path, votes_path = tmp_path / "bundle.json", tmp_path / "votes.jsonl.gz"
    call_command(
        "export_bundle", "--benchmark", world.benchmark.slug, "-o", str(bundle_path), "--votes-file", str(votes_path)
    )
    bundle = json.loads(bundle_path.read_text())
    assert bundle["votes"] == [] and bundle["votes_file"]["votes"] == 7
    assert len(gzip.decompress(votes_path.read_bytes()).splitlines()) == 7
    capsys.readouterr()
    call_command("recount", str(bundle_path), "--votes", str(votes_path))
    _, site = compute_ratings(world.benchmark.id)
    assert json.loads(capsys.readouterr().out)["ratings"] == site
