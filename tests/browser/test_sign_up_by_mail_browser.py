"""Signing up to vote in a real browser (Debian's Chromium through Playwright) at a desktop's width, with the
site's mail printed on the console as `make serve` prints it: a sign-up error keeps the visitor on their way to
the vote page, and the link read off the console (its first line with a link, as a person copies it) opens and
confirms the address."""

from __future__ import annotations

import re

import pytest

from config.env import CONSOLE_BACKEND

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "plum-orchard-77-kite"


def test_a_visitor_signs_up_to_vote_after_an_error_and_confirms_from_the_console(
    live_server, browser, settings, capsys
):
    settings.MAILERS = {"default": {"BACKEND": CONSOLE_BACKEND}}
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/signup/?next=/vote/")
    page.get_by_label("Email").fill("voter@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD + "x")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_text("The two passwords differ.").wait_for()
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/vote/$"))

    printed = capsys.readouterr().out
    line = next(line for line in printed.splitlines() if "http" in line)
    link = re.search(r"https?://\S+", line).group(0)
    page.goto(link)
    assert "is confirmed" in page.locator("main").inner_text(), page.locator("main").inner_text()
    page.get_by_role("link", name="Vote").last.click()
    page.wait_for_url(re.compile(r"/vote/$"))
    assert "once you confirm your email address" not in page.content()
