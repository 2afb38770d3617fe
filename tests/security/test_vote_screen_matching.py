"""A voter who hashes what the vote screen sends, to name the apps before voting: every screenshot and every
HTML page, script and style sheet of a build comes with bytes of its own for the pair, never those of the public
evidence file nor of another voter's pair, and a screenshot carries nothing of its file but the picture (no
comment, no data after its end, no colour profile or its name). Fetched over HTTP as a voter does."""

from __future__ import annotations

import hashlib
import io
import zlib

import pytest
from django.core.files.base import ContentFile
from django.test import Client
from django.urls import reverse
from PIL import Image, ImageChops, ImageCms, ImageStat

from runs.models import Evidence
from runs.services.app_builds import app_build_save
from tests.builders.voting import build_world, make_user, matchup_for, png_chunk

pytestmark = pytest.mark.django_db

INDEX = b"<!doctype html><title>Todo</title><script src='app.js'></script><link rel=stylesheet href='app.css'>"
SCRIPT = b"document.title = 'todo';"
STYLE = b"body{color:#333}"


def _picture(fmt: str, **params) -> bytes:
    """A 64 x 48 picture with some detail (a screenshot of sorts)."""
    image = Image.new("RGB", (64, 48), (240, 240, 240))
    for x in range(64):
        for y in range(0, 48, 5):
            image.putpixel((x, y), (x * 4, y * 5, 128))
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


@pytest.fixture
def pair():
    """One run with a stored screenshot and a build, and two voters, each shown it in a pair of their own."""
    world = build_world(tasks=("todo-app",), trials=1, opaque_shots=False)
    run, other = world.runs[0], world.runs[1]
    app_build_save(run=run, files={"index.html": INDEX, "app.js": SCRIPT, "app.css": STYLE})
    clients, matchups = [], []
    for email in ("first@example.com", "second@example.com"):
        voter = make_user(email)
        client = Client()
        client.force_login(voter)
        clients.append(client)
        matchups.append(matchup_for(voter, run, other))
    return run, clients, matchups


def _store(run, name: str, data: bytes) -> Evidence:
    Evidence.objects.filter(run=run, kind="screenshot").exclude(file="").delete()
    shot = Evidence(run=run, kind="screenshot", caption="home")
    shot.file.save(name, ContentFile(data), save=True)
    return shot


def _served(client: Client, matchup) -> bytes:
    response = client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 0]))
    assert response.status_code == 200, response.content
    return response.content


@pytest.mark.parametrize("fmt, name", [("PNG", "home.png"), ("JPEG", "home.jpg")])
def test_a_screenshot_is_sent_with_bytes_of_its_own_for_each_pair_never_the_public_files(pair, fmt, name):
    run, (first, second), (mine, theirs) = pair
    shot = _store(run, name, _picture(fmt))
    public = Client().get(shot.file.url)  # the run is published: anyone may fetch its evidence
    assert public.status_code == 200
    public_bytes = b"".join(public.streaming_content)
    sent, other_sent, again = _served(first, mine), _served(second, theirs), _served(first, mine)
    digests = {hashlib.sha256(b).hexdigest() for b in (public_bytes, sent, other_sent)}
    assert len(digests) == 3  # the public file, this pair's and the other voter's pair's: three different files
    assert sent == again  # a reload of the same pair gets the same picture (the browser may cache it)
    # Still the same picture to the eye: same size, every pixel within a few steps of the public one.
    original, shown = Image.open(io.BytesIO(public_bytes)).convert("RGB"), Image.open(io.BytesIO(sent))
    assert shown.format == fmt and shown.size == original.size
    diff = ImageChops.difference(original, shown.convert("RGB"))
    if fmt == "PNG":
        assert max(high for _, high in diff.getextrema()) == 1  # a few pixels one step off, the rest exact
    else:
        # About what compressing this picture again changes with no nudge at all (3.5 steps on average).
        assert max(ImageStat.Stat(diff).mean) < 5


def test_a_jpeg_is_sent_without_its_comment_or_what_follows_its_end(pair):
    run, (first, _), (mine, _) = pair
    marked = _picture("JPEG", comment=b"zephyrbot run 2026-10 via ShotTool") + b"TRAILER zephyrbot 2026-10"
    assert Image.open(io.BytesIO(marked)).info["comment"]  # the stored file has a COM segment
    _store(run, "home.jpg", marked)
    sent = _served(first, mine)
    decoded = Image.open(io.BytesIO(sent))
    decoded.load()
    assert decoded.format == "JPEG" and "comment" not in decoded.info and "exif" not in decoded.info
    assert sent.endswith(b"\xff\xd9")  # nothing after the end of the image
    assert b"zephyrbot" not in sent and b"TRAILER" not in sent and b"\xff\xfe" not in sent[: sent.find(b"\xff\xda")]


def test_a_png_is_sent_without_its_colour_profile_or_the_profile_s_name(pair):
    run, (first, _), (mine, _) = pair
    plain = _picture("PNG")
    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    iccp = png_chunk(b"iCCP", b"zephyrbot-capture\x00\x00" + zlib.compress(profile))
    tagged = plain[:33] + iccp + png_chunk(b"tEXt", b"Software\x00zephyrbot") + plain[33:]  # after IHDR
    assert Image.open(io.BytesIO(tagged)).info["icc_profile"]
    _store(run, "home.png", tagged)
    sent = _served(first, mine)
    decoded = Image.open(io.BytesIO(sent))
    decoded.load()
    assert decoded.format == "PNG" and "icc_profile" not in decoded.info and not decoded.text
    assert b"iCCP" not in sent and b"zephyrbot" not in sent


def test_a_file_that_is_no_picture_is_not_sent(pair):
    run, (first, _), (mine, _) = pair
    _store(run, "home.png", b"\x89PNG\r\n\x1a\n not really")
    assert first.get(reverse("vote_preview_shot", args=[mine.alias_a, 0])).status_code == 404


@pytest.mark.parametrize("path, stored", [("", INDEX), ("app.js", SCRIPT), ("app.css", STYLE)])
def test_a_build_s_page_script_and_style_are_sent_with_bytes_of_their_own_for_each_pair(pair, path, stored):
    _, (first, second), (mine, theirs) = pair
    bodies = []
    for client, matchup in ((first, mine), (second, theirs)):
        response = client.get(
            reverse("vote_preview_app_file", args=[matchup.alias_a, path])
            if path
            else reverse("vote_preview_app", args=[matchup.alias_a])
        )
        assert response.status_code == 200
        bodies.append(response.content)
    assert bodies[0] != bodies[1] and stored not in bodies  # no digest of one serving matches another
    after_doctype = stored[len(b"<!doctype html>") :] if not path else stored
    assert all(after_doctype in body for body in bodies)  # the app itself is unchanged
