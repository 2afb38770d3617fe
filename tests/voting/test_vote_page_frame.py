"""The vote screen's page is rendered in Jinja2 (voting/jinja2/voting/base.html, the site's base in Jinja2) and
every other page by Django's templates (templates/base.html): a visitor sees the same frame on both."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.models import Organization
from tests.builders.voting import make_user
from voting.models import Matchup, Vote

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value="|"X-CSRFToken": ")([A-Za-z0-9]+)')


def _frame(html: str) -> str:
    """The page without what is its own: its title, description, extra head lines and main content; the CSRF
    tokens (masked afresh for each page) as a mark; the spaces between tags."""
    html = re.sub(r"<title>.*?</title>", "<title/>", html, flags=re.S)
    html = re.sub(r'<meta name="description" content="[^"]*">', "<meta description/>", html)
    html = re.sub(r"\s*<(link|script)[^>]*(vote\.css|vote\.js)[^>]*>(</script>)?", "", html)
    html = re.sub(r"<main id=\"main\" class=\"container\">.*</main>", "<main/>", html, flags=re.S)
    html = TOKEN.sub(lambda m: m.group(1) + "TOKEN", html)
    return re.sub(r">\s+<", "><", html).strip()


def _both(client: Client) -> tuple[str, str]:
    vote = client.get(reverse("vote"))
    other = client.get("/no-such-page/")  # the site's 404 page: templates/base.html with its default blocks
    assert vote.status_code == 200 and other.status_code == 404
    return vote.content.decode(), other.content.decode()


@pytest.mark.parametrize("who", ["voter", "vendor", "editor"])
def test_the_vote_page_shows_the_site_s_frame_as_every_other_page_does(client, world, who):
    organization = Organization.objects.create(name="Acme Labs", slug="acme-labs") if who == "vendor" else None
    user = make_user(f"{who}@example.com", organization=organization)
    if who == "editor":
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    client.force_login(user)
    vote, other = _both(client)
    assert _frame(vote) == _frame(other)
    # What differs by visitor is there: the account's address, the vendor's Preview link, the editor's Admin link.
    assert f"{who}@example.com" in vote
    assert (">Preview</a>" in vote) == (who == "vendor")
    assert (">Admin</a>" in vote) == (who == "editor")
    assert "<title>Vote · " in vote


def test_the_sign_up_s_message_shows_on_the_vote_page_it_leads_to_once(client, world):
    password = "long-enough-pass-2026"
    answer = client.post(
        "/signup/", {"email": "new@example.org", "password1": password, "password2": password, "next": "/vote/"}
    )
    assert answer.status_code == 302 and answer["Location"] == "/vote/"
    first, second = client.get("/vote/").content.decode(), client.get("/vote/").content.decode()
    assert (
        '<div class="messages" role="status"><p class="message info">We sent a link to new@example.org: open it '
        "to confirm your address, so your votes count.</p></div>"
    ) in re.sub(r">\s+<", "><", first)
    assert "We sent a link" not in second  # shown once, as on every page


def test_the_vote_page_masks_the_csrf_token_once_and_its_forms_work_with_it(world, voter):
    client = Client(enforce_csrf_checks=True)
    client.force_login(voter)
    page = client.get(reverse("vote")).content.decode()
    tokens = [m.group(2) for m in TOKEN.finditer(page)]
    # The htmx header, the sign-out form and the vote form: one masking for the page (Django masks the token afresh
    # each time it is asked, about 0.1 ms; Django's Jinja2 backend asks at each use).
    assert len(tokens) == 3 and len(set(tokens)) == 1, tokens
    key = Matchup.objects.get(voter=voter, used_at__isnull=True).key
    assert (
        client.post(reverse("vote_cast", args=[key]), {"winner": "a", "csrfmiddlewaretoken": tokens[2]}).status_code
        == 302
    )
    assert Vote.objects.get(voter=voter).winner == "a"
    # The htmx vote sends the page's header and is answered with the next pair, whose form has a working token too.
    client.get(reverse("vote"))
    key = Matchup.objects.get(voter=voter, used_at__isnull=True).key
    answer = client.post(
        reverse("vote_cast", args=[key]), {"winner": "b"}, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=tokens[0]
    )
    (following,) = [m.group(2) for m in TOKEN.finditer(answer.content.decode())]
    client.post(
        reverse("vote_cast", args=[Matchup.objects.get(voter=voter, used_at__isnull=True).key]),
        {"winner": "tie", "csrfmiddlewaretoken": following},
    )
    assert sorted(Vote.objects.filter(voter=voter).values_list("winner", flat=True)) == ["a", "b", "tie"]
    # Signing out from the vote page works with its token.
    assert client.post(reverse("signout"), {"csrfmiddlewaretoken": tokens[1]}).status_code == 302
    assert client.get(reverse("vote")).status_code == 302  # signed out: the sign-in page


def test_the_vote_page_s_static_addresses_follow_the_settings(voter_client, world, settings):
    # The addresses are worked out once per process (config/jinja2.py); a change of where static files are served
    # is seen at once, as the Django pages see it.
    assert 'href="/static/css/site.css"' in voter_client.get(reverse("vote")).content.decode()
    settings.STATIC_URL = "/assets/"
    page = voter_client.get(reverse("vote")).content.decode()
    assert 'href="/assets/css/site.css"' in page and 'src="/assets/js/vote.js"' in page
