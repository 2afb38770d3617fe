"""The board row is a typed contract (`scoring.types`): a page that reads a key a board row does not have, by
`row["key"]` or by `row.get("key")`, is a mypy error, not a blank cell; and the real pages and API pass mypy with
the project's own configuration."""

from __future__ import annotations

from pathlib import Path

from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parents[1]

MISSPELT = """\
from scoring.types import ChecksTaskRow, OutcomesRow, ScoredRow


def cells(outcomes: OutcomesRow, scored: ScoredRow, checks: ChecksTaskRow) -> list[object]:
    return [
        outcomes.get("overal"),
        scored["pass_rte"],
        checks.get("median_rn"),
        outcomes.get("overall"),
        scored["pass_rate"],
        checks.get("median_run"),
    ]
"""


def test_a_misspelt_board_row_key_is_a_type_error_and_the_real_pages_and_api_pass(tmp_path, monkeypatch):
    snippet = tmp_path / "misspelt.py"
    snippet.write_text(MISSPELT)
    monkeypatch.chdir(ROOT)  # the project's packages and its mypy plugin resolve from the checkout
    out, err, _ = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--no-error-summary",
            "--show-error-codes",
            str(snippet),
            "pages",
            "api",
        ]
    )
    assert not err, err
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert all(line.startswith(str(snippet)) for line in errors), "pages/ or api/ fail mypy:\n" + out
    assert len(errors) == 3, out
    for key, row in (("overal", "OutcomesRow"), ("pass_rte", "ScoredRow"), ("median_rn", "ChecksTaskRow")):
        assert any(f'TypedDict "{row}" has no key "{key}"' in line for line in errors), out


MISSPELT_FIGURES = """\
from scoring.boards import RoundStatistics
from scoring.tradeoffs import RerankedRow
from scoring.vote_margins import BoardMargins


def figures(stats: RoundStatistics, row: RerankedRow, margins: BoardMargins) -> list[object]:
    return [
        stats.get("nosie"),
        row["weighted_rnk"],
        margins.get("vots"),
        stats.get("noise"),
        row["weighted_rank"],
        margins.get("votes"),
    ]
"""


def test_a_misspelt_key_of_the_round_statistics_trade_offs_or_vote_margins_is_a_type_error(tmp_path, monkeypatch):
    """The other rows pages read (the statistics page, the trade-offs page, the vote margins) are typed as
    the board rows are: a key they lack is a mypy error."""
    snippet = tmp_path / "misspelt_figures.py"
    snippet.write_text(MISSPELT_FIGURES)
    monkeypatch.chdir(ROOT)
    out, err, _ = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--no-error-summary",
            "--show-error-codes",
            str(snippet),
        ]
    )
    assert not err, err
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 3, out
    for key, row in (("nosie", "RoundStatistics"), ("weighted_rnk", "RerankedRow"), ("vots", "BoardMargins")):
        assert any(f'TypedDict "{row}" has no key "{key}"' in line for line in errors), out
