"""The blind-vote screen: what the page, its previews and its headers show before and after the vote."""

from __future__ import annotations

import re

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


def test_previews_name_nothing(voter_client, world):
    response = _page(voter_client)
    matchup = Matchup.objects.latest("id")
    for alias, run in ((matchup.alias_a, matchup.run_a), (matchup.alias_b, matchup.run_b)):
        shot = voter_client.get(reverse("vote_preview_shot", args=[alias, 0]))
        second = voter_client.get(reverse("vote_preview_shot", args=[alias, 1]))
        live = voter_client.get(reverse("vote_preview_live", args=[alias]))
        # Only the screenshot at an address that names nothing is listed; the one naming the agent is not.
        assert shot.status_code == 302 and shot["Location"].startswith("https://shots.example.net/")
        assert second.status_code == 404
        assert live.status_code == 404  # the preview address names the agent: never framed
        for r in (shot, second, live):
            sent = _everything_sent(r)
            for needle in world.identifying_strings(run):
                assert needle.lower() not in sent, needle
    assert "frame-src 'self' https:" in response["Content-Security-Policy"]
    assert "<iframe" not in response.content.decode()


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


def test_an_uploaded_screenshot_is_streamed_without_its_file_name(voter_client, world, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 64
    for run in world.runs:
        ev = Evidence(run=run, kind="screenshot", caption="home")
        ev.file.save(f"{run.key}.png", ContentFile(png), save=True)
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    # Picture 0 is the screenshot at an opaque address, picture 1 the uploaded file.
    response = voter_client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 1]))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content) == png
    assert "Content-Disposition" not in response
    assert matchup.run_a.key.lower() not in _everything_sent_headers(response)


def _everything_sent_headers(response) -> str:
    return "\n".join(f"{k}: {v}" for k, v in response.headers.items()).lower()


def test_reloading_shows_the_same_pair_until_voted(voter_client, world):
    _page(voter_client)
    _page(voter_client)
    assert Matchup.objects.count() == 1


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


def test_an_htmx_vote_returns_the_revealed_stage_and_next_pair_loads_a_new_one(voter_client, world):
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "tie"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="vote-stage"')
    assert matchup.run_a.entry.agent.name in html and "Next pair" in html
    assert 'hx-get="/vote/"' in html
    nxt = voter_client.get(reverse("vote"), HTTP_HX_REQUEST="true")
    assert nxt.content.decode().lstrip().startswith('<section id="vote-stage"')
    assert Matchup.objects.count() == 2
    assert Vote.objects.get().winner == "tie"


def test_an_unknown_choice_is_refused(voter_client, world):
    _page(voter_client)
    matchup = Matchup.objects.latest("id")
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "both"})
    assert response.status_code == 400
    assert not Vote.objects.exists()
    assert Matchup.objects.get().used_at is None


def _reload_queries(client) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(reverse("vote"))  # draws the pair
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(reverse("vote")).status_code == 200  # the same pair again
    return len(ctx.captured_queries)


def test_reloading_the_vote_screen_runs_a_fixed_number_of_queries(client, voter):
    # The count does not grow with the runs, their screenshots or the tasks: the sides' runs and evidence are
    # read in two queries, the scope list in a fixed number per votable benchmark.
    from tests.builders.voting import build_world

    client.force_login(voter)
    world = build_world(tasks=("todo-app",), trials=1)
    small = _reload_queries(client)
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
                Evidence.objects.create(run=copy, kind="screenshot", url=f"https://shots.example.net/{copy.pk}-{n}.png")
    Matchup.objects.all().delete()
    big = _reload_queries(client)
    assert small == big <= 14
