"""The open questions of `scoring.readings` as docs/methodology-choices.md lists them (`choices_markdown`), and the
command that writes them there, between its two marker lines (appended at the end the first time):

    .venv/bin/python scripts/readings_doc.py

tests/scoring/test_readings_registry.py keeps the file and the registry equal.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scoring.readings import QUESTIONS  # noqa: E402

DOC = ROOT / "docs" / "methodology-choices.md"
DOC_START = "<!-- open questions: generated from scoring/readings.py by scripts/readings_doc.py -->"
DOC_END = "<!-- end of open questions -->"


def choices_markdown() -> str:
    """The open questions as docs/methodology-choices.md lists them, between `DOC_START` and `DOC_END`."""
    lines = [
        DOC_START,
        "## Open questions: every board under each reading",
        "",
        "Rules a careful benchmark team could read another way. Each has an id, the seed's words, the reading this",
        "site takes and the other one; every board is also computed under each other reading (alone, and all",
        "together), its rank ranges shown on the board and what moves on its Readings page, and `recount BUNDLE",
        "--reading ID=VALUE` recounts a download under any of them: [docs/readings.md](readings.md).",
        "",
    ]
    for q in QUESTIONS:
        quoted = "; ".join(f'{seed}: "{text}"' for seed, text in q.words)
        lines.append(_wrapped(f"- **`{q.id}`** ({q.methodology}). {q.title}. {quoted}", "  "))
        lines.append(_wrapped(f"  - This site: `{q.site.value}`, {q.site.says}.", "    "))
        lines.extend(_wrapped(f"  - Other reading: `{r.value}`, {r.says}.", "    ") for r in q.alternatives)
    lines.append(DOC_END)
    return "\n".join(lines) + "\n"


def _wrapped(text: str, indent: str) -> str:
    return textwrap.fill(text, width=115, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def main() -> None:
    text = DOC.read_text(encoding="utf-8")
    if DOC_START in text and DOC_END in text:
        head, rest = text.split(DOC_START, 1)
        tail = rest.split(DOC_END, 1)[1].lstrip("\n")
        text = head + choices_markdown() + (("\n" + tail) if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + choices_markdown()
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote the open questions into {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
