"""When two email addresses look the same: Unicode's confusable skeleton (UTS #39, section 4), so that no one
signs up `editor@exаmple.org` (a Cyrillic "а") beside `editor@example.org`.

`skeleton(x)` is UTS #39's: NFD, each character replaced by its prototype from `confusables.txt` (Unicode's
data, version 13.0, in `voting/unicode/`, as published with its terms), NFD again. Two strings with one
skeleton are confusable. Two decisions on top of it, for addresses:

- combining marks are then dropped: UTS #39 maps "ł" to "l" and a combining overlay, and an overlay, a dot
  or an accent is easy to miss at a glance (`exampłe.org` for `example.org`); the cost is that `josé@` and
  `jose@` of one domain are one address here;
- the result is case-folded (a sign-up's address is already lower-case; a prototype may not be).

Why a copy of the data file and not a library: no kept Python library computes the skeleton. PyICU (ICU's
SpoofChecker) has no wheels; confusable-homoglyphs stores the mapping both ways, which loses the prototype;
the `confusables` package ships this same file but also installs a top-level `tests` package, which shadows a
project's own tests.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "unicode" / "confusables.txt"


@cache
def _prototypes() -> dict[str, str]:
    """{character: its prototype}, from the lines `0430 ;\t0061 ;\tMA\t# ...` of confusables.txt."""
    table = {}
    for line in DATA.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source, target = ("".join(chr(int(code, 16)) for code in fields[i].split()) for i in (0, 1))
        table[source] = target
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton of `text`, without combining marks and case-folded (the module's docstring says why):
    two addresses with one skeleton look alike."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text.casefold()))
    bare = "".join(c for c in unicodedata.normalize("NFD", mapped) if not unicodedata.combining(c))
    return bare.casefold()
