"""One mailbox, one voting account: every way of writing an address that reaches an existing account's mailbox, or
looks like its address, is that account. Tested from outside, as a visitor would: the sign-up form and the
sign-in form through the test client, with `editor@example.org` signed up already.

Each variant below is either the same address written another way (`SAME`: invisible characters, quotes, case,
compatibility characters, another full stop, a trailing dot, punycode of any of these) — sign-up refuses it as
taken, sign-in with it reaches the one account, and a fresh sign-up with it makes the account under its plain
form — or another address the mailbox also receives or that looks like it (`LOOKALIKE`: confusables, a
`+tag`) — sign-up refuses it as taken, and it is no account to sign in to."""

from __future__ import annotations

import re
import time
from base64 import urlsafe_b64decode

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from config.env import mailers
from tests.builders.mail import SmtpSink
from tests.builders.voting import make_user
from voting.models import AccountAddress

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-pass-2026"
EDITOR = "editor@example.org"
SAME, LOOKALIKE = "same address", "look-alike"

VARIANTS = {
    # The addresses that made new accounts beside editor@example.org: a character inside the domain that a mail
    # server's IDNA step drops (the confirmation went to editor@example.org), the punycode of one, a quoted name.
    "U+200B zero width space": ("editor@exam\u200bple.org", SAME),
    "U+200D zero width joiner": ("editor@exam\u200dple.org", SAME),
    "U+00AD soft hyphen": ("editor@exa\u00admple.org", SAME),
    "U+034F combining grapheme joiner": ("editor@example\u034f.org", SAME),
    "U+FE0F variation selector-16": ("editor@exam\ufe0fple.org", SAME),
    "U+FEFF zero width no-break space": ("editor@exam\ufeffple.org", SAME),
    "punycode of example with U+200B": ("editor@xn--example-3z6c.org", SAME),
    "quoted local part": ('"editor"@example.org', SAME),
    "U+200E left-to-right mark (was a 500)": ("editor@exam\u200eple.org", SAME),
    # More default-ignorable and format characters, at other places.
    "U+200C zero width non-joiner": ("editor@exam\u200cple.org", SAME),
    "U+200F right-to-left mark": ("editor@exam\u200fple.org", SAME),
    "U+202E right-to-left override": ("editor@exam\u202eple.org", SAME),
    "U+2066 left-to-right isolate": ("editor@exam\u2066ple.org", SAME),
    "U+2060 word joiner": ("editor@exam\u2060ple.org", SAME),
    "U+2063 invisible separator": ("editor@exam\u2063ple.org", SAME),
    "U+180E mongolian vowel separator": ("editor@exam\u180eple.org", SAME),
    "U+1806 mongolian todo soft hyphen (IDNA 2003 drops it)": ("editor@exam\u1806ple.org", SAME),
    "U+061C arabic letter mark": ("editor@exam\u061cple.org", SAME),
    "U+3164 hangul filler": ("editor@exam\u3164ple.org", SAME),
    "U+FE00 variation selector-1": ("editor@exam\ufe00ple.org", SAME),
    "U+E0100 variation selector-17": ("editor@exam\U000e0100ple.org", SAME),
    "U+E0041 tag latin capital a": ("editor@exam\U000e0041ple.org", SAME),
    "U+200B in the top-level domain": ("editor@example.o\u200brg", SAME),
    "U+200B in the local part": ("edi\u200btor@example.org", SAME),
    "U+00AD at the end of the local part": ("editor\u00ad@example.org", SAME),
    "U+FEFF before everything": ("\ufeffeditor@example.org", SAME),
    "punycode of example with U+00AD": ("editor@xn--example-nka.org", SAME),
    "punycode of example with U+034F": ("editor@xn--example-tye.org", SAME),
    "punycode of example with U+FEFF": ("editor@xn--example-1q93b.org", SAME),
    "punycode in capitals": ("editor@XN--EXAMPLE-3Z6C.ORG", SAME),
    # Quoting, case, compatibility characters, other full stops, a trailing dot.
    "quoted local part with a quoted pair": ('"ed\\itor"@example.org', SAME),
    "quoted local part in capitals": ('"EDITOR"@example.org', SAME),
    "capitals": ("EDITOR@EXAMPLE.ORG", SAME),
    "mixed case": ("Editor@Example.Org", SAME),
    "spaces around": ("  editor@example.org  ", SAME),
    "fullwidth local part": ("ｅｄｉｔｏｒ@example.org", SAME),
    "fullwidth at sign": ("editor＠example.org", SAME),
    "fullwidth full stop": ("editor@example．org", SAME),
    "ideographic full stop": ("editor@example。org", SAME),
    "halfwidth ideographic full stop": ("editor@example｡org", SAME),
    "script small e (NFKC e)": ("editor@\u212fxample.org", SAME),
    "small roman numeral fifty (NFKC l)": ("editor@examp\u217ce.org", SAME),
    "trailing dot of the root": ("editor@example.org.", SAME),
    # Other addresses: delivered to the same mailbox, or confusable with its address.
    "subaddress": ("editor+votes@example.org", LOOKALIKE),
    "empty subaddress": ("editor+@example.org", LOOKALIKE),
    "quoted subaddress": ('"editor+2"@example.org', LOOKALIKE),
    "cyrillic a": ("editor@ex\u0430mple.org", LOOKALIKE),
    "punycode of the cyrillic a": ("editor@xn--exmple-4nf.org", LOOKALIKE),
    "greek omicron in the top-level domain": ("editor@example.\u03bfrg", LOOKALIKE),
    "l with a stroke": ("editor@examp\u0142e.org", LOOKALIKE),
    "a with an acute accent": ("editor@ex\u00e1mple.org", LOOKALIKE),
    "combining acute accent": ("editor@exa\u0301mple.org", LOOKALIKE),
    "rn for m": ("editor@exarnple.org", LOOKALIKE),
    "digit one for l": ("editor@examp1e.org", LOOKALIKE),
    "digit zero for o": ("edit0r@example.org", LOOKALIKE),
    "cyrillic a with U+200B": ("editor@ex\u0430m\u200bple.org", LOOKALIKE),
}
SAME_VARIANTS = {name: typed for name, (typed, kind) in VARIANTS.items() if kind == SAME}
VARIANTS_KIND = {typed: kind for typed, kind in VARIANTS.values()}


def sign_up(email: str, client: Client | None = None):
    client = client or Client(raise_request_exception=False)
    return client.post("/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})


def test_the_table_holds_at_least_forty_variants():
    assert len(VARIANTS) >= 40


@pytest.mark.parametrize("typed", [v[0] for v in VARIANTS.values()], ids=list(VARIANTS))
def test_sign_up_refuses_every_variant_of_a_taken_address_and_stores_and_mails_nothing(typed):
    editor = make_user(EDITOR, password=PASSWORD)
    mail.outbox.clear()
    response = sign_up(typed)
    assert response.status_code == 200  # the form again, with its error
    assert "An account with this email already exists" in response.content.decode()
    assert list(get_user_model().objects.values_list("pk", flat=True)) == [editor.pk]
    assert not mail.outbox


@pytest.mark.parametrize("typed", [v[0] for v in VARIANTS.values()], ids=list(VARIANTS))
def test_sign_in_with_a_variant_reaches_the_one_account_or_none(typed):
    editor = make_user(EDITOR, password=PASSWORD)
    client = Client(raise_request_exception=False)
    response = client.post("/signin/", {"username": typed, "password": PASSWORD})
    if VARIANTS_KIND[typed] == SAME:
        assert response.status_code == 302
        assert client.session["_auth_user_id"] == str(editor.pk)
    else:
        assert response.status_code == 200
        assert "do not match an account" in response.content.decode()
        assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("typed", SAME_VARIANTS.values(), ids=SAME_VARIANTS.keys())
def test_a_fresh_sign_up_with_a_variant_is_the_plain_address_and_is_mailed_there(typed):
    response = sign_up(typed)
    assert response.status_code == 302
    user = get_user_model().objects.get()
    assert (user.username, user.email) == (EDITOR, EDITOR)
    (message,) = mail.outbox
    assert message.to == [EDITOR]
    # the plain form and any other spelling of it are now taken
    assert "already exists" in sign_up(EDITOR).content.decode()
    assert "already exists" in sign_up("editor@exam\u200bple.org").content.decode()
    assert get_user_model().objects.count() == 1


def test_one_mailbox_confirms_one_account_however_the_address_is_written():
    """The five accounts that one mailbox confirmed: the first is made, every other one is refused, one mail."""
    first, *others = [
        "sybil@probe.test",
        "sybil@pro\u200bbe.test",
        "sybil@p\u00adrobe.test",
        "sybil@probe\u034f.test",
        '"sybil"@probe.test',
    ]
    assert sign_up(first).status_code == 302
    for typed in others:
        response = sign_up(typed)
        assert response.status_code == 200 and "already exists" in response.content.decode(), typed
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["sybil@probe.test"]
    assert [m.to for m in mail.outbox] == [["sybil@probe.test"]]


def test_a_variant_first_makes_the_plain_account_and_the_plain_address_is_then_taken():
    assert sign_up('"sybil"@pro\u200bbe.test').status_code == 302
    assert "already exists" in sign_up("sybil@probe.test").content.decode()
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["sybil@probe.test"]


@pytest.mark.parametrize(
    "typed",
    ['"sybil probe"@probe.test', '"sybil@probe"@probe.test', "sybil@[127.0.0.1]", "sybil@xn--zz.test"],
    ids=["quoted space", "quoted at sign", "address literal", "punycode that is not"],
)
def test_an_address_no_plain_form_can_write_is_a_form_error(typed):
    response = sign_up(typed)
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    assert not get_user_model().objects.exists() and not mail.outbox


# Nothing is stored when the mail cannot be sent: a real SMTP conversation with a server on this machine that
# refuses the recipient, and a mail server that is not there at all.


@pytest.fixture
def smtp(settings):
    def use(sink: SmtpSink | None) -> None:
        port = sink.port if sink else SmtpSink.closed_port()
        # SMTP as the site's settings make it, with the site's own timeout (EMAIL_TIMEOUT).
        timeout = settings.MAIL_SERVER_TIMEOUT
        settings.MAILERS = mailers(
            host="127.0.0.1", port=port, username="", password="", use_tls=False, timeout=timeout
        )

    return use


@pytest.mark.parametrize(
    "server",
    ["refuses the recipient", "is not there", pytest.param("never answers", marks=pytest.mark.slow)],
)
def test_nothing_is_stored_when_the_mail_cannot_be_sent(smtp, server, settings):
    started = time.monotonic()
    with SmtpSink(refuse_recipients=True, silent=server == "never answers") as sink:
        smtp(None if server == "is not there" else sink)
        response = sign_up("voter@example.org")
    # a hanging server holds the sign-up (and its transaction) for EMAIL_TIMEOUT seconds at most
    assert time.monotonic() - started < settings.MAIL_SERVER_TIMEOUT + 5
    assert response.status_code == 200
    assert "could not send" in response.content.decode()
    assert not get_user_model().objects.exists()
    assert not AccountAddress.objects.exists()
    # the address is not taken: once the mail server answers, the same sign-up works
    with SmtpSink() as sink:
        smtp(sink)
        assert sign_up("voter@example.org").status_code == 302
    assert len(sink.messages) == 1
    assert get_user_model().objects.get().username == "voter@example.org"


def test_a_name_with_a_letter_no_mail_server_takes_is_a_form_error_not_a_500(smtp):
    # A dotless "ı" passes Django's address check as an "i", but no mail can be sent to a name that is not ASCII:
    # the sign-up answered 500 on a real mail server. Now it is the form again, saying why; nothing stored or sent.
    with SmtpSink() as sink:
        smtp(sink)
        response = sign_up("syb\u0131l@probe.test")
        assert response.status_code == 200
        assert "plain letters a to z" in response.content.decode()
        assert not get_user_model().objects.exists() and not AccountAddress.objects.exists()
        assert sink.messages == []
        # the plain address is free, and signs up
        assert sign_up("sybil@probe.test").status_code == 302
    assert get_user_model().objects.get().username == "sybil@probe.test"


# The confirmation link is opaque: it names neither the account nor its address, in any encoding.


def _link(to: str) -> str:
    (message,) = [m for m in mail.outbox if m.to == [to]]
    (link,) = re.findall(r"https?://\S+", message.body)
    return link


def _readable(token: str) -> str:
    """Everything a reader could decode from the token: the text itself and each piece's base64."""
    found = [token]
    for piece in re.split(r"[^A-Za-z0-9_-]", token):
        for start in range(4):  # any alignment of a base64 run inside the piece
            chunk = piece[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                found.append(urlsafe_b64decode(chunk).decode("latin-1"))
            except ValueError:
                continue
    return "\n".join(found)


def test_the_confirmation_link_carries_neither_the_account_nor_its_address():
    assert sign_up("voter@example.org").status_code == 302
    user = get_user_model().objects.get()
    token = _link("voter@example.org").rstrip("/").rsplit("/", 1)[1]
    readable = _readable(token)
    for secret in ("voter", "example.org", '"user"', "address"):
        assert secret not in readable, secret
    assert not re.search(rf"\b{user.pk}\b", readable.replace(token, ""))
    # a second account's link shares nothing with the first's (no counter, no id inside)
    assert sign_up("other@example.org").status_code == 302
    other = _link("other@example.org").rstrip("/").rsplit("/", 1)[1]
    assert token != other and token[:8] != other[:8]
    assert Client().get(_link("other@example.org")).status_code == 200
    assert list(AccountAddress.objects.filter(confirmed_at__isnull=False).values_list("user__username", flat=True)) == [
        "other@example.org"
    ]
