"""Print one mutmut target's score from its `mutmut export-cicd-stats` file: killed / total, with the rest."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime


def main(target: str, path: str) -> None:
    with open(path) as f:
        s = json.load(f)
    killed, total = s["killed"] + s["timeout"] + s["segfault"], s["total"]
    counted = ("killed", "survived", "no_tests", "skipped", "suspicious", "timeout", "segfault")
    s["not_checked"] = total - sum(s[k] for k in counted) - s["check_was_interrupted_by_user"]
    rest = ", ".join(
        f"{k.replace('_', ' ')} {s[k]}"
        for k in ("survived", "no_tests", "suspicious", "skipped", "not_checked")
        if s[k]
    )
    pct = 100 * killed / total if total else 0.0
    day = datetime.now(UTC).date().isoformat()
    print(f"{target}: {killed}/{total} mutants killed ({pct:.1f}%) on {day}; not killed: {rest or 'none'}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
