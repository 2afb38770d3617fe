"""The mail the site sends is readable as written, its link whole on one line: on the console of `make serve`
(where a quoted-printable body broke the link in two, with a trailing `=`), in the file a mail client opens, and
as a mail server receives it over SMTP. Each is followed from outside: sign up, read the mail the way a person
would (the first line with a link on it), open that link."""

from __future__ import annotations

import email
import email.policy
import io
import re

import pytest
from django.test import Client

from config.env import CONSOLE_BACKEND, mailers
from tests.builders.mail import SmtpSink
from voting.models import AccountAddress

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-pass-2026"
ADDRESS = "reader@example.org"


def sign_up() -> None:
    response = Client().post("/signup/", {"email": ADDRESS, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302


def first_link(text: str) -> str:
    """The link a person copies from the text: the first line that holds one, up to the end of the link."""
    line = next(line for line in text.splitlines() if "http" in line)
    return re.search(r"https?://\S+", line).group(0)


def opens_and_confirms(link: str) -> None:
    response = Client().get(link)
    assert response.status_code == 200, link
    assert AccountAddress.objects.get(user__username=ADDRESS).confirmed_at is not None


def test_the_console_shows_the_link_whole_and_it_confirms(settings, capsys):
    settings.MAILERS = {"default": {"BACKEND": CONSOLE_BACKEND}}
    sign_up()
    printed = capsys.readouterr().out
    assert "quoted-printable" not in printed and "base64" not in printed
    assert not re.search(r"=\r?$", printed, re.MULTILINE), "a soft line break of quoted-printable"
    opens_and_confirms(first_link(printed))


def test_a_mail_client_reads_the_mail_and_its_link(settings, tmp_path):
    backend = "django.core.mail.backends.filebased.EmailBackend"
    settings.MAILERS = {"default": {"BACKEND": backend, "OPTIONS": {"file_path": str(tmp_path)}}}
    sign_up()
    (path,) = tmp_path.iterdir()
    raw = path.read_bytes()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["To"] == ADDRESS and "Confirm your address" in message["Subject"]
    assert message["Content-Transfer-Encoding"] in ("7bit", "8bit")
    body = message.get_content()
    assert first_link(body) == first_link(raw.decode())  # the source a client shows reads as the body does
    opens_and_confirms(first_link(body))


def test_a_mail_server_receives_the_link_whole(settings):
    with SmtpSink() as sink:
        settings.MAILERS = mailers(host="127.0.0.1", port=sink.port, username="", password="", use_tls=False, timeout=5)
        sign_up()
    (raw,) = sink.messages
    assert b"quoted-printable" not in raw
    message = email.message_from_binary_file(io.BytesIO(raw), policy=email.policy.SMTP)
    assert message["To"] == ADDRESS
    opens_and_confirms(first_link(raw.decode()))
