"""The blind-vote screen: what the page, its previews and its headers show before and after the vote."""

from __future__ import annotations

import json
import re
import struct
import zlib

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from leaderboard.models import Task, TaskVersion
from runs.models import Evidence, Run
from voting.models import Matchup, Vote

pytestmark = pytest.mark.django_db


def _page(client, **params):
    response = client.get(reverse("vote"), params)
    assert response.status_code == 200
    return response


def _everything_sent(response) -> str:
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    return (headers + "\n" + response.content.decode()).lower()


def test_it_requires_sign_in(client, world):
    response = client.get(reverse("vote"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("signin"))


def test_it_shows_two_apps_labelled_only_a_and_b(voter_client, world):
    html = _page(voter_client).content.decode()
    assert "A is better" in html and "B is better" in html and "Tie" in html
    assert re.search(r'class="side-letter">A<', html) and re.search(r'class="side-letter">B<', html)


def test_the_page_source_names_no_run_agent_model_or_vendor(voter_client, world):
    # Many pairs, so every agent and run shows up at some point.
    for _ in range(25):
        response = _page(voter_client)
        matchup = Matchup.objects.filter(used_at__isnull=True).latest("id")
        sent = _everything_sent(response)
        for run in (matchup.run_a, matchup.run_b):
            for needle in world.identifying_strings(run):
                assert needle.lower() not in sent, needle
        Matchup.objects.filter(pk=matchup.pk).update(used_at=matchup.created_at)  # move on to a new pair


def _png_chunks(data: bytes) -> list[bytes]:
    """The chunk types of a PNG, each chunk's CRC checked (what a decoder checks)."""
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    kinds, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length : at + 12 + length])[0] == zlib.crc32(kind + body)
        kinds.append(kind)
        at += 12 + length
    return kinds


def test_previews_name_nothing(voter_client, world):
    response = _page(voter_client)
    matchup = Matchup.objects.latest("id")
    for alias, run in ((matchup.alias_a, matchup.run_a), (matchup.alias_b, matchup.run_b)):
        shot = voter_client.get(reverse("vote_preview_shot", args=[alias, 0]))
        second = voter_client.get(reverse("vote_preview_shot", args=[alias, 1]))
        live = voter_client.get(reverse("vote_preview_live", args=[alias]))
        # Only the screenshot stored on the site is listed; the one at an external address is not (that
        # address is on the run's public page).
        assert shot.status_code == 200 and shot["Content-Type"] == "image/png"
        assert second.status_code == 404
        assert live.status_code == 404  # the preview address names the agent: never framed
        for r in (shot, second, live):
            sent = _everything_sent(r) if r is not shot else _everything_sent_headers(r)
            for needle in world.identifying_strings(run):
                assert needle.lower() not in sent, needle
    assert "frame-src 'self' https:" in response["Content-Security-Policy"]
    assert "<iframe" not in response.content.decode()


def test_a_screenshot_is_sent_without_the_text_its_file_carries(voter_client, world):
    # A capture tool may write its name, a window title or an address into the file; the alias sends the
    # picture drawn again from its pixels (voting/pictures.py) and none of that text.
    from tests.builders.voting import png_chunk, tiny_png

    for run in world.runs:
        plain = tiny_png(run.pk)
        tagged = plain[:33] + png_chunk(b"tEXt", f"Title\x00{run.key} - {run.entry.agent.name}".encode()) + plain[33:]
        ev = run.evidence.get(file__gt="")
        ev.file.save("home.png", ContentFile(tagged), save=True)
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    sent = voter_client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 0])).content
    assert sent != tiny_png(matchup.run_a.pk)  # not even the stored file's own picture data
    assert _png_chunks(sent) == [b"IHDR", b"IDAT", b"IEND"]
    assert matchup.run_a.key.encode() not in sent


def test_a_screenshot_missing_from_the_storage_is_a_404_not_an_error(voter_client, world):
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    ev = matchup.run_a.evidence.get(file__gt="")
    ev.file.storage.delete(ev.file.name)
    response = voter_client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 0]))
    assert response.status_code == 404 and response.content == b"No such picture."


def test_a_run_whose_only_screenshots_are_external_addresses_has_nothing_to_show(voter_client, world):
    # An external address is listed on the run's public page, so it would name the run: never shown blind.
    from runs.models import Evidence as Ev

    Ev.objects.filter(file__gt="").delete()
    html = _page(voter_client).content.decode()
    assert "No pair to show" in html and not Matchup.objects.exists()


def test_the_live_preview_is_framed_sandboxed_without_referrer(voter_client, world):
    for run in world.runs:
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq/"
        run.save()
    html = _page(voter_client).content.decode()
    frames = re.findall(r"<iframe[^>]*>", html)
    assert len(frames) == 2
    for frame in frames:
        assert 'sandbox="allow-scripts allow-forms"' in frame
        assert "allow-same-origin" not in frame
        assert 'referrerpolicy="no-referrer"' in frame
        assert "/vote/p/" in frame


def test_an_opaque_preview_address_is_redirected_to(voter_client, world):
    for run in world.runs:
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq/"
        run.save()
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    response = voter_client.get(reverse("vote_preview_live", args=[matchup.alias_a]))
    assert response.status_code == 302
    assert response["Location"] == matchup.run_a.preview_url


def test_a_live_preview_s_address_is_in_no_public_page_download_or_api(client, world):
    # The address is what the voter's frame loads: listed anywhere public, it would name the run. Only an
    # editor's full export (unpublished rounds and private fields included) carries it.
    from bundles.export import bundle_export

    for run in world.runs:
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq/"
        run.save()
    slug, rnd = world.benchmark.slug, world.round.key
    urls = [
        reverse("board", args=[slug]),
        reverse("bundle_json", args=[slug]),
        reverse("runs_csv", args=[slug]),
        f"/api/benchmarks/{slug}/bundle",
        f"/api/benchmarks/{slug}/runs",
    ]
    for run in world.runs:
        urls += [reverse("run", args=[slug, rnd, run.key]), reverse("run_json", args=[slug, rnd, run.key])]
        urls.append(f"/api/benchmarks/{slug}/runs/{rnd}/{run.key}")
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        sent = _everything_sent(response)
        assert "p.example.net" not in sent and "preview_url" not in sent, url
    full = bundle_export(benchmark=world.benchmark, include_unpublished=True)
    assert {r["preview_url"] for r in full["runs"] if r["round"] == rnd} == {r.preview_url for r in world.runs}


def test_importing_the_public_download_keeps_the_preview_addresses_and_changes_nothing(world):
    # The public bundle leaves the addresses out; imported again (a mirror, a recount that writes) it must not
    # blank them, nor log a correction in the round.
    from bundles.export import bundle_export
    from bundles.importer import bundle_import
    from leaderboard.models import ChangelogEntry

    for run in world.runs:
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq/"
        run.save()
    before = dict(Run.objects.values_list("key", "preview_url"))
    evidence = Evidence.objects.count()
    report = bundle_import(doc=json.loads(json.dumps(bundle_export(benchmark=world.benchmark))))
    assert "runs" not in report.updated and not report.created
    # The stored screenshots come back as their addresses on the site: found, not added again as links.
    assert Evidence.objects.count() == evidence
    assert dict(Run.objects.values_list("key", "preview_url")) == before
    assert not ChangelogEntry.objects.exists()


def test_a_side_showing_a_build_does_not_redirect_to_the_run_s_preview_address(voter_client, world, tmp_path):
    # A run with both: the frame shows the build, and the alias's /live/ answers nothing, so the address (which
    # would tell the voter more than the build) is never sent.
    from runs.services.app_builds import app_build_save

    for run in world.runs:
        run.preview_url = f"https://p.example.net/{run.pk * 7919:x}zq/"
        run.save()
        app_build_save(run=run, files={"index.html": b"<!doctype html><title>App</title><p>Hello</p>"})
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    for alias in (matchup.alias_a, matchup.alias_b):
        assert voter_client.get(reverse("vote_preview_live", args=[alias])).status_code == 404
        assert voter_client.get(reverse("vote_preview_app", args=[alias])).status_code == 200


def test_an_uploaded_screenshot_is_sent_without_its_file_name_or_its_comments(voter_client, world):
    # A JPEG with a comment (COM) and an EXIF segment (APP1) naming the run: sent drawn again as a JPEG, with
    # neither (tests/security/test_vote_screen_matching.py has the rest).
    import io

    from PIL import Image

    for run in world.runs:
        exif = Image.Exif()
        exif[0x010E] = run.key  # ImageDescription
        out = io.BytesIO()
        Image.new("RGB", (16, 16), (90, 120, 150)).save(out, "JPEG", comment=run.key.encode(), exif=exif.tobytes())
        ev = Evidence(run=run, kind="screenshot", caption="home")
        ev.file.save(f"{run.key}.jpg", ContentFile(out.getvalue()), save=True)
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    # Picture 0 is the world's stored PNG, picture 1 this upload.
    response = voter_client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 1]))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/jpeg"
    assert response["X-Content-Type-Options"] == "nosniff"
    shown = Image.open(io.BytesIO(response.content))
    assert shown.format == "JPEG" and shown.size == (16, 16)
    assert "comment" not in shown.info and "exif" not in shown.info
    assert matchup.run_a.key.encode() not in response.content
    assert "Content-Disposition" not in response
    assert matchup.run_a.key.lower() not in _everything_sent_headers(response)


def _everything_sent_headers(response) -> str:
    return "\n".join(f"{k}: {v}" for k, v in response.headers.items()).lower()


def test_reloading_shows_the_same_pair_until_voted(voter_client, world):
    _page(voter_client)
    _page(voter_client)
    assert Matchup.objects.count() == 1


def _shots_listed(html: str, letter: str) -> int:
    found = re.search(rf"Screenshots of app {letter} \((\d+)\)", html)
    return int(found.group(1)) if found else 0


def test_a_pair_whose_run_left_the_vote_pool_is_shown_again_on_reload_from_the_database(voter_client, world):
    # Before the vote the sides come from the shared vote pool; a pair already on screen whose run is no longer
    # drawable (here its app is marked as not started, and the pool is worked out again) is still the voter's
    # open pair: the reload reads its runs and shows the same screenshots.
    from voting.pool import vote_pool_retire

    first = _page(voter_client).content.decode()
    matchup = Matchup.objects.get()
    shots = {letter: _shots_listed(first, letter) for letter in "AB"}
    assert shots["A"] >= 1 and shots["B"] >= 1
    Run.objects.filter(pk=matchup.run_a_id).update(app_started=False)
    vote_pool_retire()
    again = _page(voter_client).content.decode()
    assert Matchup.objects.count() == 1 and matchup.key in again
    assert {letter: _shots_listed(again, letter) for letter in "AB"} == shots


def test_a_task_s_new_wording_shows_on_the_vote_screen_at_once(voter_client, world, django_capture_on_commit_callbacks):
    # The task's prompt and scenarios come from the shared vote pool; the editor's change of the version (the
    # service, as the admin does it) retires it once it commits.
    from django.contrib.auth.models import User

    from leaderboard.services import task_version_update

    _page(voter_client)
    matchup = Matchup.objects.get()
    editor = User.objects.create_superuser("wording-editor", password="x")
    with django_capture_on_commit_callbacks(execute=True):
        task_version_update(
            version=matchup.task.current_version,
            by=editor,
            prompt="Build a to-do list that survives a reload.",
            scenarios=["Add three items", "Reload the page"],
        )
    html = _page(voter_client).content.decode()
    assert "Build a to-do list that survives a reload." in html and "Reload the page" in html


def test_a_chosen_task_only_draws_that_task(voter_client, world):
    task = world.tasks[1]
    for _ in range(5):
        _page(voter_client, scope=f"{world.benchmark.slug}/{task.key}")
        Matchup.objects.update(used_at=Matchup.objects.latest("id").created_at)
    assert set(Matchup.objects.values_list("task_id", flat=True)) == {task.id}


def test_a_scope_with_nothing_to_compare_says_so(voter_client, world):
    html = _page(voter_client, scope="appbench-t/no-such-task").content.decode()
    assert "No pair to show" in html


def test_the_vote_reveals_names_only_after_it_is_cast(voter_client, world):
    html = _page(voter_client).content.decode()
    matchup = Matchup.objects.latest("id")
    name_a, name_b = matchup.run_a.entry.agent.name, matchup.run_b.entry.agent.name
    assert name_a not in html and name_b not in html
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    assert response.status_code == 302
    assert response["Location"] == reverse("vote_reveal", args=[matchup.key])
    revealed = voter_client.get(response["Location"]).content.decode()
    assert name_a in revealed and name_b in revealed
    assert "Next pair" in revealed
    vote = Vote.objects.get()
    assert (vote.agent_a, vote.agent_b, vote.winner) == (matchup.run_a.entry.agent, matchup.run_b.entry.agent, "a")
    assert vote.counts is True


def _split_next(html: str) -> tuple[str, str]:
    """(the revealed stage, the next pair held in its <template id="next-stage">, '' when none)."""
    found = re.search(r'<template id="next-stage">(.*?)</template>', html, re.S)
    if found is None:
        return html, ""
    return html[: found.start()] + html[found.end() :], found.group(1)


def test_an_htmx_vote_answers_with_the_revealed_pair_and_the_next_pair_ready_behind_next(voter_client, world):
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "tie"}, HTTP_HX_REQUEST="true")
    revealed, following = _split_next(response.content.decode())
    assert response.status_code == 200
    # Only the vote bar comes back (and the names for the two panel headers, out of band): the apps' frames
    # are not in the answer, so they keep what the voter did in them until "Next pair".
    assert revealed.lstrip().startswith('<div class="vote-reveal-wrap" id="vote-reveal">')
    assert "<iframe" not in revealed and 'id="vote-stage"' not in revealed
    bar = revealed.split('hx-swap-oob="true"')[0]
    name_a, name_b = matchup.run_a.entry.agent.name, matchup.run_b.entry.agent.name
    assert "<strong>A</strong> = " in bar and name_a in bar and name_b in bar
    assert bar.index(name_a) < bar.index(name_b)  # A = name_a, B = name_b
    assert 'id="side-reveal-A" class="side-reveal" hx-swap-oob="true"' in revealed
    assert "Next pair" in revealed and "data-next-stage" in revealed
    assert Vote.objects.get().winner == "tie"
    # The next pair was drawn with the vote: an open matchup of the same voter, held blind in the template.
    nxt = Matchup.objects.get(used_at__isnull=True)
    assert nxt.pk != matchup.pk and nxt.voter_id == matchup.voter_id
    assert following.lstrip().startswith('<section id="vote-stage"')
    assert f'action="/vote/m/{nxt.key}/"' in following
    everything = following.lower()
    for agent in world.agents.values():
        assert agent.name.lower() not in everything and agent.slug not in everything
    for run in (nxt.run_a, nxt.run_b):
        assert run.key.lower() not in everything and run.entry.model.lower() not in everything
    # Without JavaScript the "Next pair" link loads /vote/, which shows that same pair (nothing is drawn).
    again = voter_client.get(reverse("vote"), HTTP_HX_REQUEST="true").content.decode()
    assert f'action="/vote/m/{nxt.key}/"' in again
    assert Matchup.objects.count() == 2


def test_the_pair_drawn_with_the_vote_is_not_the_pair_just_voted_on(voter_client, world):
    # One task, five agents the voter may see (ten pairs): the pair just voted on is never drawn straight after.
    for _ in range(12):
        _page(voter_client, scope="appbench-t/todo-app")
        matchup = Matchup.objects.get(used_at__isnull=True)
        voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"}, HTTP_HX_REQUEST="true")
        nxt = Matchup.objects.get(used_at__isnull=True)
        assert nxt.scope == "appbench-t/todo-app"
        just = {matchup.run_a.entry.agent_id, matchup.run_b.entry.agent_id}
        assert {nxt.run_a.entry.agent_id, nxt.run_b.entry.agent_id} != just


def test_over_the_draw_limit_the_vote_still_counts_and_no_next_pair_is_drawn(voter_client, world, settings):
    settings.VOTE_DRAW_RATE_LIMIT = 1  # the first screen's draw uses it up
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "b"}, HTTP_HX_REQUEST="true")
    revealed, following = _split_next(response.content.decode())
    assert response.status_code == 200 and following == ""
    assert Vote.objects.get().winner == "b"
    assert not Matchup.objects.filter(used_at__isnull=True).exists()
    # The button then asks the server, which answers with the rate limit's message.
    assert 'hx-get="/vote/"' in revealed
    assert voter_client.get(reverse("vote"), HTTP_HX_REQUEST="true").status_code == 429


def test_an_unknown_choice_is_refused(voter_client, world):
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "both"})
    assert response.status_code == 400
    assert not Vote.objects.exists()
    assert Matchup.objects.get().used_at is None


def _queries(request, *, fresh: bool = True) -> int:
    """The queries of one request; with `fresh`, made as by a process that has read nothing within the last
    second (the pair counts a draw reads, `voting.pool.recent`)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from voting import pool

    if fresh:
        pool.local_clear()
    with CaptureQueriesContext(connection) as ctx:
        request()
    return len(ctx.captured_queries)


def _htmx_vote(client):
    """The htmx vote on the voter's latest pair (answered with the revealed pair and the next one), to measure."""
    key = Matchup.objects.latest("id").key

    def vote() -> None:
        answer = client.post(reverse("vote_cast", args=[key]), {"winner": "b"}, HTTP_HX_REQUEST="true")
        assert answer.status_code == 200 and 'id="next-stage"' in answer.content.decode()

    return vote


def _screen_queries(client) -> tuple[int, int, int, int]:
    """Queries of a draw (GET /vote/ with no open pair), a reload (the same pair again), the vote without
    JavaScript (answered with a redirect to the reveal) and the vote of the htmx screen (answered with the
    revealed pair and the next pair, drawn with it)."""
    client.get(reverse("vote"))  # the first screen works out the shared vote pool
    # and the first vote makes the ratings snapshot; neither is measured
    client.post(reverse("vote_cast", args=[Matchup.objects.latest("id").key]), {"winner": "tie"})
    Matchup.objects.filter(used_at__isnull=True).delete()
    draw = _queries(lambda: client.get(reverse("vote")))  # a new pair is drawn
    reload = _queries(lambda: client.get(reverse("vote")))  # the same pair again
    key = Matchup.objects.latest("id").key
    vote = _queries(lambda: client.post(reverse("vote_cast", args=[key]), {"winner": "a"}))
    assert Matchup.objects.get(key=key).used_at is not None
    client.get(reverse("vote"))  # a new pair
    return draw, reload, vote, _queries(_htmx_vote(client))


def test_the_vote_screen_and_the_vote_run_a_fixed_small_number_of_queries(client, voter, monkeypatch):
    # The counts do not grow with the runs, their screenshots, the tasks or the votes: the drawable runs, what
    # each side shows and the task's wording come from the shared vote pool, the pair counts from the vote
    # cells.
    from tests.builders.voting import build_world, tiny_png

    client.force_login(voter)
    world = build_world(tasks=("todo-app",), trials=1)
    small = _screen_queries(client)
    more = Task.objects.create(benchmark=world.benchmark, key="shop-app", title="Build a shop")
    TaskVersion.objects.create(task=more, version="1.0", prompt="Build a shop.", scenarios=["Buy something"])
    for run in world.runs:
        for trial, task in ((2, run.task), (3, run.task), (1, more), (2, more)):
            copy = Run.objects.create(
                key=f"{run.key}-{task.key}-{trial}x",
                round=run.round,
                entry=run.entry,
                task=task,
                trial=trial,
                app_started=True,
            )
            for n in range(3):
                shot = Evidence(run=copy, kind="screenshot")
                shot.file.save(f"{copy.key}-{n}.png", ContentFile(tiny_png(copy.pk + n)), save=True)
    Matchup.objects.filter(used_at__isnull=True).delete()
    big = _screen_queries(client)
    assert small == big
    draw, reload, vote, one_request_vote = big
    # Every request: the user (the session comes from the cache, Django's cached_db). A screen also reads the
    # voter's stored standing (voting/standing.py: the day's votes, the flag, the address, and the organization
    # a draw leaves out, joined). Reload: the user and the open pair, read with the standing = 2. Draw: the user,
    # the open pair (none), the standing, the pair counts, the voter's last pair, the check of the two picked
    # runs, the new pair = 7; the sides, the task, its version, the scope list and the navigation's vendor link
    # come from the vote pool and the standing. Vote: the user and a transaction (begin, commit; the savepoint
    # of the test's transaction here) holding the vote added to the standing (an update that locks the voter's
    # row), the claim (the pair read with its runs' agents, their rounds' status, the voter's standing and the
    # ratings snapshot's flag: already stale from the first vote, so nothing more is read or written), its
    # update, the vote, its cell = 8; what the reveal shows comes from the vote pool. The htmx vote: those 8,
    # then the next pair's draw without the user, standing, open pair and last pair (the one just voted on,
    # known): the pair counts, the check of the two runs, the new pair = 11. The same on SQLite.
    assert (draw, reload, vote, one_request_vote) == (7, 2, 8, 11)
    # A process that read the pair counts within the last second draws from its own copy of them: 10.
    from voting import pool

    monkeypatch.setattr(pool, "POOL_RECHECK_SECONDS", 3600.0)  # however slow this machine is
    Matchup.objects.filter(used_at__isnull=True).delete()
    client.get(reverse("vote"))  # a draw: the pair counts read
    assert _queries(_htmx_vote(client), fresh=False) == 10


def test_on_invent_tasks_the_draw_reads_the_voter_s_voted_pairs_in_one_more_query(client, voter):
    # Invent and startup pairs the voter has not voted on come first (voting/draw/matchups.py): one statement reads the
    # pairs the voter has voted on, in the draw and in the next pair drawn with an htmx vote; nothing else
    # changes from the to-spec counts above (7, 2, 8, 11).
    from tests.builders.voting import build_world
    from voting.pool import vote_pool_retire

    client.force_login(voter)
    world = build_world(tasks=("messenger",), trials=1)
    Task.objects.filter(pk=world.tasks[0].pk).update(kind="invent")
    vote_pool_retire()  # the update sends no signal
    assert _screen_queries(client) == (8, 2, 8, 12)


def test_a_pair_whose_round_was_withdrawn_while_on_screen_takes_no_vote(voter_client, world):
    # The draw checks a pair's runs when it is drawn; the round can be withdrawn (back to draft) while the pair
    # is on the voter's screen. The vote is then refused (410) and nothing is stored.
    from leaderboard.models import Round

    _page(voter_client)
    matchup = Matchup.objects.get()
    Round.objects.filter(pk=world.round.pk).update(status="draft")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    assert response.status_code == 410 and "no longer shown" in response.content.decode()
    assert not Vote.objects.exists() and Matchup.objects.get().used_at is None


def test_transcripts_judges_and_marks_never_reach_the_vote_screen(voter_client, world):
    # What a run page says of what the agent did: on every run the voter could be shown, and nowhere on the
    # vote screen, before or after the draw.
    from runs.models import SearchEntry, Transcript

    secret = "Zx-did-it-this-way"
    for run in Run.objects.all():
        Run.objects.filter(pk=run.pk).update(
            marks=[{"at_seconds": 12, "label": f"intervention: {secret}"}],
            judge={"criteria": [{"name": f"{secret} criterion", "score": 7}], "narrative": secret},
        )
        Transcript.objects.create(run=run, source="bundle", path="transcripts/none", meta={"output": secret})
        SearchEntry.objects.create(run=run, kind="message", anchor="m-0", text=secret)
    for _ in range(5):
        response = _page(voter_client)
        assert secret.lower() not in _everything_sent(response)
        matchup = Matchup.objects.filter(used_at__isnull=True).latest("id")
        Matchup.objects.filter(pk=matchup.pk).update(used_at=matchup.created_at)


def test_the_reveal_bar_names_each_side_with_a_link_and_nothing_names_an_app_before_the_vote(voter_client, world):
    html = _page(voter_client).content.decode()
    matchup = Matchup.objects.latest("id")
    name_a, name_b = matchup.run_a.entry.agent.name, matchup.run_b.entry.agent.name
    # Before the vote: the empty places the names will fill, and no name, slug, run key or model anywhere.
    assert 'id="side-reveal-A"' in html and 'id="side-reveal-B"' in html
    for agent in world.agents.values():
        assert agent.name not in html and agent.slug not in html.lower()
    for run in (matchup.run_a, matchup.run_b):
        assert run.key not in html and run.entry.model not in html
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "b"}, HTTP_HX_REQUEST="true")
    bar, _ = _split_next(response.content.decode())
    run_b_url = reverse("run", args=[world.benchmark.slug, matchup.run_b.entry.round.key, matchup.run_b.key])
    assert f'<a href="{run_b_url}">{name_b}</a>' in bar
    assert f"You voted <strong>B is better</strong> ({name_b})" in bar
    assert name_a in bar.split("You voted")[0]  # A named as well, before the sentence


def test_markup_in_a_task_or_an_agent_s_name_is_shown_as_text_on_the_screen_and_in_the_reveal(voter_client, world):
    # What a benchmark team or a vendor typed (a task's title, prompt and scenarios, an agent's name) is text on
    # the vote screen, the next pair drawn with a vote and the reveal: never markup the page would run.
    from leaderboard.models import Agent
    from voting.pool import vote_pool_retire

    tasks = [task.pk for task in world.tasks]  # whichever task the pair is drawn from
    Task.objects.filter(pk__in=tasks).update(title='<img src=x onerror="alert(1)">')
    TaskVersion.objects.filter(task__in=tasks).update(prompt="Build <script>alert(2)</script>", scenarios=["<b>3</b>"])
    Agent.objects.filter(pk__in=[a.pk for a in world.agents.values()]).update(name="<i>Agent</i>")
    vote_pool_retire()  # the updates send no signal
    page = _page(voter_client).content.decode()
    matchup = Matchup.objects.latest("id")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"}, HTTP_HX_REQUEST="true")
    bar, following = _split_next(response.content.decode())
    for html in (page, following):
        assert re.search(r"&lt;img src=x onerror=&(#34|quot);alert\(1\)&(#34|quot);&gt;", html)
        assert "<img src=x" not in html
        assert "Build &lt;script&gt;alert(2)&lt;/script&gt;" in html and "<script>alert(2)" not in html
        assert "&lt;b&gt;3&lt;/b&gt;" in html and "<b>3</b>" not in html
    assert "&lt;i&gt;Agent&lt;/i&gt;" in bar and "<i>Agent</i>" not in bar


def test_the_reveal_of_a_vote_an_editor_removed_says_so(voter_client, world):
    from django.contrib.auth.models import Group

    from tests.builders.voting import make_user
    from voting.services.editing import vote_change

    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    editor = make_user("editor@example.com")
    editor.groups.add(Group.objects.get(name="Editors"))
    vote_change(vote=Vote.objects.get(), by=editor, delete=True)
    html = voter_client.get(reverse("vote_reveal", args=[matchup.key])).content.decode()
    assert "Your vote on this pair was removed by an editor." in html
    assert "You voted" not in html and "Your vote counts" not in html
