"""The rule for email addresses, decided once: what an address typed in any way is (`address_canonical`: the
form an account is stored, signed in, mailed and shown under), and which mailbox it reaches
(`mailbox_key`: one account per key, kept unique by the database). Sign-up, sign-in, the confirmation link, the
admin and the stored rows all read these two functions.

The canonical form is the address a mail server receives from this site, so one account is one mailbox:

1. characters a reader cannot see are removed: Unicode's default-ignorable code points and format characters
   (zero-width spaces and joiners, the soft hyphen, bidirectional marks, variation selectors, tags), and those
   IDNA 2003's nameprep maps to nothing (U+1806 too): a mail server's IDNA step drops or refuses them, so
   `editor@exa\\u00admple.org` was always mailed to `editor@example.org`;
2. NFKC, case folded (`ＥＤＩＴＯＲ` is `editor`), and the other full stops (`。`, `．`, `｡`) are dots;
3. a quoted local part is unquoted when its name needs no quotes (RFC 5321 4.1.2: `"editor"` and `editor` are
   one mailbox); a name that needs them (`"two words"`) is refused, as is an address literal (`@[127.0.0.1]`);
4. the domain without a trailing dot, each label in its ASCII form (IDNA 2008 by UTS #46); a punycode label
   (`xn--...`) is decoded and goes through the same steps first, so `xn--example-3z6c` (`exam\\u200bple`) is
   `example`, and a label that does not decode, or is no valid international name, is refused;
5. what is left must be an address Django accepts, with a name in ASCII (a dotless `ı`, which Django's check
   takes for an `i`, is refused: no mail can be sent to it), and a host name.

The mailbox key of a canonical address (`mailbox_key`) is what two accounts may not share:

- a subaddress is its mailbox: `editor+votes@` is delivered to `editor@` by most mail servers (Gmail, Outlook,
  Fastmail, iCloud, Postfix's `recipient_delimiter`), and Gmail ignores dots in a name (`e.ditor@gmail.com`);
- then UTS #39's confusable skeleton of the whole (`voting.lookalikes`: marks dropped, case folded), the
  domain in its Unicode form, so `exаmple` (Cyrillic "а") and `exarnple` look like `example` and are taken.

Costs, chosen knowingly: a server that delivers `a+b@` somewhere other than `a@` cannot have both as accounts
here, nor can an IDNA 2008 domain that needs a zero-width joiner in its name (a few Indic and Persian names).
"""

from __future__ import annotations

import re
import stringprep
import unicodedata

import idna
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from .lookalikes import skeleton

INVALID = "Enter a valid email address."
QUOTED = 'Type the address without quotes: an address whose name needs them ("two words"@…) is not accepted.'
LITERAL = "Type the address with its domain name: an address at an IP address ([…]) is not accepted."
NON_ASCII_NAME = "Type the name before the @ in plain letters a to z: this one has a letter that is not."

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.1); the ones that are format
# characters (category Cf) are caught by their category too, the rest (fillers, variation selectors) only here.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
FULL_STOPS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
DOT_ATOM = re.compile(r"[-!#$%&'*+/=?^_`{|}~0-9a-z]+(\.[-!#$%&'*+/=?^_`{|}~0-9a-z]+)*\Z")
QUOTED_PAIR = re.compile(r"\\(.)")
SUBADDRESS = "+"
DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def _invisible(c: str) -> bool:
    code = ord(c)
    return (
        unicodedata.category(c) == "Cf"
        or stringprep.in_table_b1(c)
        or any(low <= code <= high for low, high in DEFAULT_IGNORABLE)
    )


def _visible_folded(text: str) -> str:
    """Steps 1 and 2: the invisible characters removed, then NFKC and case folding (NFKC again after folding,
    as Unicode's NFKC_Casefold does), the other full stops made dots."""
    text = "".join(c for c in text if not _invisible(c))
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return text.translate(FULL_STOPS)


def _local_part(name: str) -> str:
    """Step 3: a quoted name is its content when that content needs no quotes."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        name = QUOTED_PAIR.sub(r"\1", name[1:-1])
        if not DOT_ATOM.match(name):
            raise ValidationError(QUOTED)
    return name


def _label(label: str) -> str:
    """Step 4 for one label: its ASCII form; a punycode label decoded and read again as typed."""
    if label.startswith("xn--"):
        try:
            label = _visible_folded(label[4:].encode("ascii").decode("punycode"))
        except (UnicodeError, ValueError, IndexError, OverflowError):
            raise ValidationError(INVALID) from None
    if label.isascii():
        return label
    try:
        return idna.encode(label, uts46=True).decode("ascii")
    except idna.IDNAError:
        raise ValidationError(f"The domain's part “{label}” is not a valid international domain name.") from None


def address_canonical(typed: str) -> str:
    """The canonical form of `typed` (the module's steps 1 to 5); ValidationError with a sentence for the
    person typing when it is no address, or one the rule refuses."""
    text = _visible_folded(typed.strip())
    name, at, domain = text.rpartition("@")
    if not at or not name or not domain:
        raise ValidationError(INVALID)
    if domain.startswith("["):
        raise ValidationError(LITERAL)
    labels = domain.removesuffix(".").split(".")
    name = _local_part(name)
    address = f"{name}@{'.'.join(_label(label) for label in labels)}"
    validate_email(address)
    if not name.isascii():
        # Django's check reads its letters case-insensitively, so a dotless "ı" passes as an "i"; no mail can be
        # sent to a name that is not ASCII (the sign-up's mail would fail), so it is no address here.
        raise ValidationError(NON_ASCII_NAME)
    return address


def mailbox_key(canonical: str) -> str:
    """What two accounts may not share: the mailbox `canonical` (from `address_canonical`) is delivered to,
    as its confusable skeleton (the module's docstring)."""
    name, _, domain = canonical.rpartition("@")
    name = name.split(SUBADDRESS, 1)[0] or name
    if domain in DOTLESS_DOMAINS:
        name, domain = name.replace(".", ""), DOTLESS_DOMAINS[domain]
    readable = ".".join(idna.decode(label) if label.startswith("xn--") else label for label in domain.split("."))
    return skeleton(f"{name}@{readable}")


def name_key(username: str) -> str:
    """The key an account's name holds: its address's mailbox key; for a name that is no address (`admin`,
    made by `createsuperuser`) the skeleton of the name, so that it still holds one."""
    try:
        return mailbox_key(address_canonical(username))
    except ValidationError:
        return skeleton(username)
