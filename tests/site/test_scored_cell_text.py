"""A scored task cell never reads as a pass it is not (seed 002: "An agent passes a task if its score >= 0.80")."""

from pages.tables_scored import best_text


def test_a_best_score_just_under_the_threshold_never_reads_as_a_pass():
    # 79 of 99 tests = 0.79798 < 0.80: two decimals would say "0.80" beside a fail; three, cut down, say 0.797.
    assert best_text(79 / 99, passed=False, threshold=0.8) == "0.797"
    # 0.7996 would round to "0.800"; cut down it is "0.799".
    assert best_text(0.7996, passed=False, threshold=0.8) == "0.799"
    # A pass, or a fail well under: two decimals as everywhere (0.80, 0.78).
    assert best_text(0.8, passed=True, threshold=0.8) == "0.80"
    assert best_text(0.78, passed=False, threshold=0.8) == "0.78"
