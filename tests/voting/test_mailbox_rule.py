"""The address rule on its own (voting.mailbox): whatever is typed, the answer is a canonical address or a
sentence for the form, never another error (a 500 on the sign-up page); a canonical address is plain ASCII and
its own canonical form, so that what is stored, signed in with and mailed to is one string."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voting.mailbox import address_canonical, mailbox_key

PIECES = st.one_of(
    st.text(max_size=10),
    st.sampled_from(
        ["editor", "example", "org", "xn--", "xn--example-3z6c", '"', "\\", ".", "@", "+", "\u200b", "\u0430"]
        + ["\u00df", "\ufb01", "\u3002", "[", "]", "-", "\u0130", "\u03c2", "\ud800", "\U000e0041", " "]
    ),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=8).map("".join))
def test_any_text_is_a_canonical_address_or_a_form_error(typed):
    try:
        address = address_canonical(typed)
    except ValidationError as error:
        assert error.messages and all(error.messages)
        return
    assert address.isascii()
    assert address_canonical(address) == address
    assert mailbox_key(address)


def test_the_key_is_the_mailbox_a_server_delivers_to():
    key = mailbox_key("editor@example.org")
    for other in ("editor+votes@example.org", "editor@xn--exmple-4nf.org", "edit0r@example.org"):
        assert mailbox_key(other) == key, other
    assert mailbox_key("e.ditor@gmail.com") == mailbox_key("editor@googlemail.com")
    # only Gmail ignores a name's dots
    assert mailbox_key("e.ditor@example.org") != key
    assert mailbox_key("editors@example.org") != key
