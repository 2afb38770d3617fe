"""Benchmark of scoring.bradley_terry: fit and bootstrap time, peak memory, and the naive choix baseline.

    python bench/bench_ratings.py           # 10k/50, 100k/100, 1M/200 (votes/agents)
    python bench/bench_ratings.py --quick   # 10k/50 and 100k/100 only

Synthetic votes: random true strengths (normal, sd 1 in log-odds, about 175 Elo), uniformly random pairs,
10% ties, the rest drawn from Bradley-Terry. Votes are plain ``(a, b, winner)`` tuples of agent names, as a
service would pass them.

Columns:
  aggregate  votes -> distinct (pair, outcome) cells (the only pass over the votes)
  fit        the point estimate (choix.ilsr_pairwise_dense on the win matrix)
  bootstrap  the 100 resampled fits, multinomial draws included
  total      fit_ratings end to end (aggregate + fit + bootstrap + rows); target < 2 s for 1M/200
  peak MiB   tracemalloc peak during fit_ratings (separate run: tracemalloc slows Python allocations)
  naive fit  choix.ilsr_pairwise with one (winner, loser) pair per vote, ties dropped, one fit only;
             capped: skipped above --naive-cap votes and reported as an estimate from one LSR pass
  naive x101 the naive fit times 101 (point fit + 100 bootstrap fits, each on re-drawn pairs), estimated
  speed-up  naive x101 / total

BLAS runs single-threaded (OPENBLAS_NUM_THREADS=1 unless already set): the fit's LU factorisations are of
200x200 matrices at most, too small to gain from threads, and on a busy 2-core machine OpenBLAS threads
competing with other processes made the same bootstrap take 1 to 16 s instead of a steady 1 s. Set it to
another value in the environment to compare.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy is imported; see the docstring

import argparse  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import choix  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring import bradley_terry as bt  # noqa: E402

SIZES = [(10_000, 50), (100_000, 100), (1_000_000, 200)]
QUICK_SIZES = [(10_000, 50), (100_000, 100)]
ROUNDS = 100


def synthetic_votes(
    n_votes: int, n_agents: int, seed: int = 1
) -> tuple[list[tuple[str, str, str]], list[str]]:
    rng = np.random.default_rng(seed)
    names = [f"agent-{i:03d}" for i in range(n_agents)]
    strength = rng.normal(0.0, 1.0, n_agents)
    a = rng.integers(0, n_agents, n_votes)
    b = (a + rng.integers(1, n_agents, n_votes)) % n_agents
    p_a = 1.0 / (1.0 + np.exp(strength[b] - strength[a]))
    u = rng.random(n_votes)
    tie = u < 0.1
    a_wins = ~tie & (u < 0.1 + 0.9 * p_a)
    winner = np.where(tie, "tie", np.where(a_wins, "a", "b"))
    votes = list(zip([names[i] for i in a], [names[i] for i in b], winner.tolist(), strict=True))
    return votes, names


def naive_pairs(votes: list[tuple[str, str, str]], names: list[str]) -> list[tuple[int, int]]:
    index = {name: i for i, name in enumerate(names)}
    pairs = []
    for a, b, winner in votes:
        if winner == "a":
            pairs.append((index[a], index[b]))
        elif winner == "b":
            pairs.append((index[b], index[a]))
    return pairs


def timed(fn, *args, **kwargs):
    gc.collect()
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def bench(n_votes: int, n_agents: int, naive_cap: int) -> dict[str, float | str]:
    votes, names = synthetic_votes(n_votes, n_agents)

    tally, t_aggregate = timed(bt._tally, votes)
    build = bt._MatrixBuilder(tally)
    prior = bt._virtual_ties(len(tally.agents), bt.DEFAULT_ALPHA)
    theta, t_fit = timed(bt._fit_theta, build(tally.count), prior)
    _, t_boot = timed(bt._bootstrap_elo, tally, build, theta, prior, rounds=ROUNDS, seed=bt.DEFAULT_SEED)
    rows, t_total = timed(bt.fit_ratings, votes, bootstrap_rounds=ROUNDS)
    assert len(rows) == n_agents

    gc.collect()
    tracemalloc.start()
    bt.fit_ratings(votes, bootstrap_rounds=ROUNDS)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    pairs = naive_pairs(votes, names)
    # choix.ilsr_pairwise loops over the pairs in Python once per iteration; same prior strength in spirit.
    if n_votes <= naive_cap:
        _, t_naive = timed(choix.ilsr_pairwise, n_agents, pairs, alpha=0.01, max_iter=1000)
        naive = f"{t_naive:.2f}"
    else:
        # One LSR pass, times the number of ILSR iterations the capped size needed.
        _, t_pass = timed(choix.lsr_pairwise, n_agents, pairs, alpha=0.01)
        iterations = _ilsr_iterations(n_agents, pairs[: naive_cap // 2])
        t_naive = t_pass * iterations
        naive = f"~{t_naive:.1f} (est.: {iterations} passes x {t_pass:.2f})"
    return {
        "votes": f"{n_votes:,}",
        "agents": str(n_agents),
        "aggregate": f"{t_aggregate:.3f}",
        "fit": f"{t_fit:.3f}",
        "bootstrap": f"{t_boot:.3f}",
        "total": f"{t_total:.3f}",
        "peak MiB": f"{peak / 2**20:.0f}",
        "naive fit": naive,
        "naive x101": f"~{t_naive * (ROUNDS + 1):.0f}",
        "speed-up": f"~{t_naive * (ROUNDS + 1) / t_total:.0f}x",
    }


def _ilsr_iterations(n_agents: int, pairs: list[tuple[int, int]]) -> int:
    """How many LSR passes choix.ilsr_pairwise makes on (a sample of) these pairs."""
    passes = 0
    params = None
    converged = choix.convergence.NormOfDifferenceTest(1e-8, order=1)
    while passes < 1000:
        params = choix.lsr_pairwise(n_agents, pairs, alpha=0.01, initial_params=params)
        passes += 1
        if converged(params):
            break
    return passes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="skip the 1M-vote size")
    parser.add_argument(
        "--naive-cap", type=int, default=1_000_000, help="largest size to run the naive fit on"
    )
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"choix {_version('choix')}, {ROUNDS} bootstrap rounds, "
        f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
        f"load average before {os.getloadavg()[0]:.2f}"
    )
    results = [bench(n, k, args.naive_cap) for n, k in (QUICK_SIZES if args.quick else SIZES)]
    columns = list(results[0])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in results:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    print(f"load average after {os.getloadavg()[0]:.2f}")


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    main()
