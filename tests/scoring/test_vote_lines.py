"""`recount --votes`: a votes file's bytes read straight into tallies (scoring/vote_lines.py) give exactly what
parsing every line on its own gives (`vote_tallies`), bad lines named by the same numbers; the file reader
(bundles/management/files.py) gives whole lines from gzip (one member or several) or plain files."""

from __future__ import annotations

import gzip
import random

import orjson
import pytest
from django.core.management.base import CommandError

from bundles.management import files
from bundles.management.files import read_line_blocks
from scoring.bundle import BundleError
from scoring.vote_lines import BLANK_LINE, vote_line_tallies, vote_tallies

DOC = {
    "tasks": [{"key": "c1"}, {"key": "c2"}],
    "agents": [{"slug": "a"}, {"slug": "b"}, {"slug": "c"}],
}


def line(task="c1", a="a", b="b", winner="a", **more) -> bytes:
    # The site's line: id, task, a, b, winner, voter, cast_at, counts.
    vote = {"id": "v1", "task": task, "a": a, "b": b, "winner": winner, "voter": "voter-0123456789"}
    vote |= {"cast_at": "2026-11-02T10:00:00.000000Z", "counts": True} | more
    return orjson.dumps(vote)


def blocks_of(*lines: bytes, size: int = 1 << 20):
    """The file `lines` make, in blocks of whole lines of about `size` bytes, as `read_line_blocks` gives them."""
    data = b"\n".join(lines) + b"\n"

    def blocks():
        start = 0
        while start < len(data):
            cut = data.find(b"\n", start + size) + 1 or len(data)
            yield data[start:cut]
            start = cut

    return blocks


def one_by_one(*lines: bytes):
    """The same file parsed line by line, the reference reading."""
    for raw in lines:
        try:
            yield orjson.loads(raw)
        except orjson.JSONDecodeError:
            yield raw.decode("utf-8", errors="replace") if raw.strip() else BLANK_LINE


def test_the_site_s_lines_are_tallied_by_task_pair_and_winner_counting_only_counted_votes():
    lines = [
        line(),  # c1 a-b a
        line(),  # c1 a-b a
        line(winner="tie"),  # c1 a-b tie
        line(counts=False),  # not counted
        line(task="c2", a="c", b="a", winner="b"),  # c2 c-a b
        line(counts=None),  # "counts": null is not false: counted (the per-line rule), read by the strict reader
    ]
    # c1 a-b "a": lines 1, 2 and 6 -> 3; c1 a-b "tie": 1; c2 c-a "b": 1; line 4 left out.
    assert vote_line_tallies(DOC, blocks_of(*lines)) == [
        ("c1", "a", "b", "a", 3),
        ("c1", "a", "b", "tie", 1),
        ("c2", "c", "a", "b", 1),
    ]


def test_bad_lines_are_named_by_their_number_blank_lines_counted():
    lines = [
        line(),  # 1
        b"",  # 2: blank, skipped
        b"{not json",  # 3
        line(voter="Zoë Ørsted"),  # 4: fine, UTF-8 text
        line()[:-1] + b',"voter":"\xff"}',  # 5: invalid UTF-8 in a field the tally does not need
        line(a=["a"]),  # 6: a list where a string belongs
        b"[1, 2]",  # 7: not an object
        line(),  # 8
    ]
    with pytest.raises(BundleError) as exc:
        vote_line_tallies(DOC, blocks_of(*lines))
    assert exc.value.problems == [
        "votes file line 3: not a JSON object",
        "votes file line 5: not a JSON object",
        "votes file line 6: task, a, b and winner must be strings",
        "votes file line 7: not a JSON object",
    ]


def test_votes_naming_what_the_bundle_lacks_are_listed_by_line_after_reading_the_file_again():
    lines = [line(), b"", line(task="c9"), line(), line(b="ghost"), line(b="a"), line(winner="draw")]
    calls = []

    def counted(reader):
        def blocks():
            calls.append(1)
            return reader()

        return blocks

    with pytest.raises(BundleError) as exc:
        vote_line_tallies(DOC, counted(blocks_of(*lines)))
    assert exc.value.problems == [
        "votes file line 3: task 'c9' is not in the bundle",
        "votes file line 5: b: agent 'ghost' is not in the bundle",
        "votes file line 6: an agent cannot be matched against itself",
        "votes file line 7: winner 'draw' is not one of a, b, tie",
    ]
    assert len(calls) == 2  # once fast, once more to number the bad lines
    calls.clear()
    assert vote_line_tallies(DOC, counted(blocks_of(line(), line()))) == [("c1", "a", "b", "a", 2)]
    assert len(calls) == 1  # a good file is read once


def test_json_the_strict_parser_refuses_is_refused_in_every_field():
    # Each of these is refused by orjson (and by the bundle's own parser): NaN, a lone surrogate escape, a
    # document too deep, trailing text. The fast reader skips the fields it does not keep, so each must still
    # be caught and named.
    deep = b"[" * 2000 + b"]" * 2000
    bad = [
        line()[:-1] + b',"x":NaN}',
        line()[:-1] + b',"x":"\\ud800x"}',
        line()[:-1] + b',"x":' + deep + b"}",
        line() + b" trailing",
        line()[:-1] + b',"x":"\xed\xa0\x80"}',  # a surrogate encoded in UTF-8
    ]
    with pytest.raises(BundleError) as exc:
        vote_line_tallies(DOC, blocks_of(line(), *bad))
    assert exc.value.problems == [f"votes file line {n}: not a JSON object" for n in range(2, 7)]


def test_a_number_beyond_a_double_in_a_field_the_tally_does_not_read_is_read_in_both_passes():
    # `1e999` is valid JSON (RFC 8259 leaves the range to the reader); orjson refuses it, the typed reader skips
    # the field without reading its value. The line counts, whether the file is read once or twice.
    huge = line()[:-1] + b',"weight":1e999}'
    assert vote_line_tallies(DOC, blocks_of(line(), huge)) == [("c1", "a", "b", "a", 2)]
    with pytest.raises(BundleError) as exc:
        vote_line_tallies(DOC, blocks_of(huge, line(task="c9")))
    assert exc.value.problems == ["votes file line 2: task 'c9' is not in the bundle"]


@pytest.mark.parametrize("seed", range(20))
def test_any_mix_of_lines_and_blocks_gives_what_parsing_each_line_gives(seed):
    rng = random.Random(seed)
    pool = [
        lambda: line(task=rng.choice(["c1", "c2"]), a="a", b=rng.choice(["b", "c"]), winner=rng.choice("ab")),
        lambda: line(winner="tie", counts=rng.choice([True, False])),
        lambda: line()[:-1] + b',"counts":null}',
        lambda: b'{"task":"c2","a":"c","b":"b","winner":"a"}',  # no counts: counted
        lambda: b" " + line() + b"\r",  # spaces and a carriage return around the object
        lambda: "ünï".join([line().decode()[:-1], ',"voter":"', '"}']).encode(),  # UTF-8 text elsewhere
    ]
    bad = [
        lambda: b"",
        lambda: b"not json",
        lambda: line(task="c9"),
        lambda: line(a=1),
        lambda: line()[:-1] + b',"voter":"\xfe"}',
        lambda: b"null",
    ]
    lines = [rng.choice(pool)() for _ in range(rng.randint(1, 300))]
    if seed % 2:  # half the files have bad lines somewhere
        for _ in range(rng.randint(1, 30)):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(bad)())
    expected: object
    try:
        expected = vote_tallies(DOC, one_by_one(*lines))
    except BundleError as exc:
        expected = exc.problems
    try:
        got: object = vote_line_tallies(DOC, blocks_of(*lines, size=rng.choice([1, 50, 400, 1 << 20])))
    except BundleError as exc:
        got = exc.problems
    assert got == expected


def _lines(path):
    return b"".join(read_line_blocks(path)()).split(b"\n")


def test_the_file_reader_gives_whole_lines_from_gzip_members_and_plain_files(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "BLOCK_BYTES", 7)  # lines cut across many reads
    first, second = b"".join(line(winner=w) + b"\n" for w in "ab"), line(winner="tie") + b"\n"
    plain, joined = tmp_path / "votes.jsonl", tmp_path / "votes.jsonl.gz"
    plain.write_bytes(first + second)
    joined.write_bytes(gzip.compress(first) + gzip.compress(second))  # two members, as `cat a.gz b.gz` makes
    for path in (plain, joined):
        blocks = list(read_line_blocks(path)())
        assert all(block.endswith(b"\n") for block in blocks)
        assert b"".join(blocks) == first + second
    # No final newline: the last line is read all the same.
    plain.write_bytes(first + second.rstrip())
    assert _lines(plain)[-1] == second.rstrip()
    assert vote_line_tallies(DOC, read_line_blocks(plain)) == [
        ("c1", "a", "b", "a", 1),
        ("c1", "a", "b", "b", 1),
        ("c1", "a", "b", "tie", 1),
    ]


def test_a_missing_cut_short_or_damaged_file_is_named_in_the_error(tmp_path):
    with pytest.raises(CommandError, match="votes.jsonl.gz: no such file"):
        read_line_blocks(tmp_path / "votes.jsonl.gz")
    with pytest.raises(CommandError, match="a folder, not a file"):
        read_line_blocks(tmp_path)
    data = gzip.compress(b"".join(line() + b"\n" for _ in range(1000)))
    cut, damaged = tmp_path / "cut.gz", tmp_path / "damaged.gz"
    cut.write_bytes(data[: len(data) // 2])
    damaged.write_bytes(data[:20] + bytes(b ^ 0xFF for b in data[20:40]) + data[40:])
    for path in (cut, damaged):
        with pytest.raises(CommandError, match=f"{path.name}: not a readable gzip file"):
            vote_line_tallies(DOC, read_line_blocks(path))
