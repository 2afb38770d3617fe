"""Benchmark of scoring.bradley_terry against LMArena's published Bradley-Terry method, same votes, same run.

    python bench/bench_ratings.py               # 10k/50, 100k/100, 1M/200 (votes/agents)
    python bench/bench_ratings.py --quick       # 10k/50 and 100k/100 only
    python bench/bench_ratings.py --repeats 5   # repetitions per size (default 3; medians reported)
    python bench/bench_ratings.py --naive       # also time one naive per-vote choix fit

Synthetic votes: random true strengths (normal, sd 1 in log-odds, about 175 Elo), uniformly random pairs,
10% ties, the rest drawn from Bradley-Terry. Votes are plain ``(a, b, winner)`` tuples of agent names, as a
service would pass them. Both methods get the same list.

Methods (one row each per size):
  ours     scoring.bradley_terry.fit_ratings: votes counted into distinct (pair, outcome) cells, win matrix,
           choix.ilsr_pairwise_dense plus a prior of alpha = 0.1 virtual ties per agent, 100 seeded
           multinomial resamples of the cell counts, each refitted warm-started from the point estimate
  lmarena  the method LMArena publishes (FastChat, fastchat/serve/monitor/rating_systems.py: compute_bt and
           compute_bootstrap_bt), re-written here with numpy and scipy only: the distinct (a, b, outcome) rows
           with their counts as weights, outcome 1 / 0.5 / 0 for a win / tie / loss of a (a tie is half a win
           for each side), logistic log-loss minimised by scipy.optimize.minimize(method="L-BFGS-B",
           gtol 1e-6, maxiter 100) from zero, base 10, Elo = 1000 + 400 * (rating - mean); bootstrap: 100
           multinomial draws of the row counts (weights divided by the number of votes, as LMArena does),
           each fitted from zero. LMArena spreads the bootstrap fits over a process pool; here they run in
           one process, like ours, so the columns compare the methods, not the number of cores.

Columns (median over --repeats runs, min-max in brackets):
  aggregate  votes -> distinct (pair, outcome) cells or rows (the only pass over the votes)
  fit        the point estimate
  bootstrap  the 100 resampled fits, multinomial draws included
  total      votes -> ratings and 95% intervals, end to end (ours: fit_ratings, rows included)
  peak MiB   tracemalloc peak of one end-to-end run (separate run: tracemalloc slows Python allocations)
Agreement, per size (all in Elo, the largest absolute difference over the agents):
  rating diff              ours vs lmarena point estimates. Both maximise the same Bradley-Terry likelihood
                           (ties as half wins); the difference is our symmetric virtual-tie prior (alpha 0.1)
  rating diff, alpha 1e-6  the same with ours refitted with a negligible prior: what is left is the two
                           solvers' tolerances
  CI bound diff            ours vs lmarena 2.5% / 97.5% bounds; the two bootstraps draw different resamples
  CI bound diff, ours vs ours other seed
                           ours vs ours with another seed: the Monte Carlo noise of 100 rounds, for scale
  lmarena / ours total     ratio of the median end-to-end times

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
import math  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import choix  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402
from scipy.optimize import minimize  # noqa: E402
from scipy.special import expit  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring import bradley_terry as bt  # noqa: E402

SIZES = [(10_000, 50), (100_000, 100), (1_000_000, 200)]
QUICK_SIZES = [(10_000, 50), (100_000, 100)]
ROUNDS = 100


def synthetic_votes(n_votes: int, n_agents: int, seed: int = 1) -> tuple[list[tuple[str, str, str]], list[str]]:
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


# --- LMArena's method, with numpy and scipy ------------------------------------------------------------------

_OUTCOME = {"a": 2, "tie": 1, "b": 0}  # as LMArena codes them; / 2 gives the label 1, 0.5, 0


def lmarena_rows(votes: list[tuple[str, str, str]]):
    """Distinct (a, b, outcome) rows and how many votes each stands for (LMArena's preprocess_for_bt)."""
    agents = sorted({name for a, b, _ in votes for name in (a, b)})
    index = {name: i for i, name in enumerate(agents)}
    schedule = np.array([(index[a], index[b], _OUTCOME[w]) for a, b, w in votes], dtype=np.int32)
    rows, counts = np.unique(schedule, axis=0, return_counts=True)
    return agents, rows[:, :2], rows[:, 2] / 2.0, counts.astype(np.float64)


def _lmarena_loss_and_grad(ratings, pairs, outcomes, weights, scale):
    p = expit(scale * (ratings[pairs[:, 0]] - ratings[pairs[:, 1]]))
    loss = -((np.log(p) * outcomes + np.log1p(-p) * (1.0 - outcomes)) * weights).sum()
    g = -scale * (outcomes - p) * weights
    grad = np.zeros_like(ratings)
    np.add.at(grad, pairs, g[:, None] * np.array([1.0, -1.0]))
    return loss, grad


def lmarena_fit(pairs, outcomes, weights, n_agents: int):
    """Ratings in log10-odds (LMArena's fit_bt: L-BFGS-B from zero, gtol 1e-6, at most 100 iterations)."""
    result = minimize(
        _lmarena_loss_and_grad,
        np.zeros(n_agents),
        args=(pairs, outcomes, weights, math.log(10.0)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 100, "gtol": 1e-6},
    )
    return result.x


def _lmarena_elo(ratings):
    return 1000.0 + 400.0 * (ratings - ratings.mean(axis=-1, keepdims=True))


def lmarena_ratings(votes: list[tuple[str, str, str]], rounds: int = ROUNDS, seed: int = 0):
    """Point ratings and 95% percentile intervals, and the time of each phase."""
    t0 = time.perf_counter()
    agents, pairs, outcomes, weights = lmarena_rows(votes)
    t1 = time.perf_counter()
    rating = _lmarena_elo(lmarena_fit(pairs, outcomes, weights, len(agents)))
    t2 = time.perf_counter()
    n = len(votes)
    draws = np.random.default_rng(seed).multinomial(n, weights / weights.sum(), size=rounds) / n
    boot = _lmarena_elo(np.array([lmarena_fit(pairs, outcomes, w, len(agents)) for w in draws]))
    ci_low, ci_high = np.percentile(boot, [2.5, 97.5], axis=0)
    t3 = time.perf_counter()
    times = {"aggregate": t1 - t0, "fit": t2 - t1, "bootstrap": t3 - t2, "total": t3 - t0}
    return agents, rating, ci_low, ci_high, times


# --- measurements --------------------------------------------------------------------------------------------


def timed(fn, *args, **kwargs):
    gc.collect()
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def peak_mib(fn, *args) -> float:
    gc.collect()
    tracemalloc.start()
    fn(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def run_ours(votes):
    tally, t_aggregate = timed(bt._tally, votes)
    build = bt._MatrixBuilder(tally)
    prior = bt._virtual_ties(len(tally.agents), bt.DEFAULT_ALPHA)
    theta, t_fit = timed(bt._fit_theta, build(tally.count), prior)
    _, t_boot = timed(bt._bootstrap_elo, tally, build, theta, prior, rounds=ROUNDS, seed=bt.DEFAULT_SEED)
    rows, t_total = timed(bt.fit_ratings, votes, bootstrap_rounds=ROUNDS)
    times = {"aggregate": t_aggregate, "fit": t_fit, "bootstrap": t_boot, "total": t_total}
    return rows, times


def run_lmarena(votes):
    gc.collect()
    return lmarena_ratings(votes)


def spread(values: list[float], digits: int) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def bench(n_votes: int, n_agents: int, repeats: int) -> tuple[list[dict[str, str]], dict[str, str]]:
    votes, _ = synthetic_votes(n_votes, n_agents)
    phases = ("aggregate", "fit", "bootstrap", "total")
    times = {method: {p: [] for p in phases} for method in ("ours", "lmarena")}
    for _ in range(repeats):  # interleaved, so both methods see the same load
        rows, t = run_ours(votes)
        for p in phases:
            times["ours"][p].append(t[p])
        agents, rating, ci_low, ci_high, t = run_lmarena(votes)
        for p in phases:
            times["lmarena"][p].append(t[p])
    assert len(rows) == n_agents and len(agents) == n_agents

    lmarena = {a: (rating[i], ci_low[i], ci_high[i]) for i, a in enumerate(agents)}
    ours = {row["agent"]: (row["rating"], row["ci_low"], row["ci_high"]) for row in rows}
    # Controls: ours with a negligible prior (the point estimates should then agree to the solvers'
    # tolerance), and ours with another seed (how far two bootstraps of the same method drift apart).
    no_prior = bt.fit_ratings(votes, alpha=1e-6, bootstrap_rounds=1)
    other_seed = bt.fit_ratings(votes, bootstrap_rounds=ROUNDS, seed=bt.DEFAULT_SEED + 1)
    ours_no_prior = {row["agent"]: (row["rating"],) for row in no_prior}
    ours_other_seed = {row["agent"]: (row["ci_low"], row["ci_high"]) for row in other_seed}
    peaks = {
        "ours": peak_mib(bt.fit_ratings, votes),
        "lmarena": peak_mib(lmarena_ratings, votes),
    }
    table = [
        {
            "votes": f"{n_votes:,}",
            "agents": str(n_agents),
            "method": method,
            **{f"{p} s": spread(times[method][p], 3) for p in phases},
            "peak MiB": f"{peaks[method]:.0f}",
        }
        for method in ("ours", "lmarena")
    ]
    ratio = statistics.median(times["lmarena"]["total"]) / statistics.median(times["ours"]["total"])
    agreement = {
        "votes": f"{n_votes:,}",
        "agents": str(n_agents),
        "rating diff": f"{_max_diff(ours, lmarena, [0]):.3f}",
        "rating diff, alpha 1e-6": f"{_max_diff(ours_no_prior, lmarena, [0]):.4f}",
        "CI bound diff": f"{_max_diff(ours, lmarena, [1, 2]):.1f}",
        "CI bound diff, ours vs ours other seed": f"{_max_diff(ours, ours_other_seed, [1, 2], [0, 1]):.1f}",
        "lmarena / ours total": f"{ratio:.1f}x",
    }
    return table, agreement


def _max_diff(x: dict, y: dict, fields: list[int], y_fields: list[int] | None = None) -> float:
    """Largest absolute difference, in Elo, between the given fields of two {agent: values} maps."""
    y_fields = fields if y_fields is None else y_fields
    return max(abs(x[a][i] - y[a][j]) for a in x for i, j in zip(fields, y_fields, strict=True))


def naive(n_votes: int, n_agents: int, naive_cap: int) -> dict[str, str]:
    """One choix.ilsr_pairwise fit with one (winner, loser) pair per vote, ties dropped."""
    votes, names = synthetic_votes(n_votes, n_agents)
    index = {name: i for i, name in enumerate(names)}
    pairs = [(index[a], index[b]) if w == "a" else (index[b], index[a]) for a, b, w in votes if w != "tie"]
    # choix.ilsr_pairwise loops over the pairs in Python once per iteration.
    if n_votes <= naive_cap:
        _, t_naive = timed(choix.ilsr_pairwise, n_agents, pairs, alpha=0.01, max_iter=1000)
        cell = f"{t_naive:.2f}"
    else:
        # One LSR pass, times the number of ILSR iterations the capped size needed.
        _, t_pass = timed(choix.lsr_pairwise, n_agents, pairs, alpha=0.01)
        iterations = _ilsr_iterations(n_agents, pairs[: naive_cap // 2])
        t_naive = t_pass * iterations
        cell = f"~{t_naive:.1f} (est.: {iterations} passes x {t_pass:.2f})"
    return {
        "votes": f"{n_votes:,}",
        "agents": str(n_agents),
        "naive fit s": cell,
        "naive x101 s": f"~{t_naive * (ROUNDS + 1):.0f}",
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


def print_table(rows: list[dict[str, str]]) -> None:
    columns = list(rows[0])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(row[c] for c in columns) + " |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the 1M-vote size")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each method per size (default 3)")
    parser.add_argument("--naive", action="store_true", help="also time one naive per-vote choix.ilsr_pairwise fit")
    parser.add_argument(
        "--naive-cap", type=int, default=1_000_000, help="largest size to run the naive fit on (with --naive)"
    )
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"choix {_version('choix')}, {ROUNDS} bootstrap rounds, {args.repeats} repeats, "
        f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, "
        f"load average before {_loadavg()}"
    )
    sizes = QUICK_SIZES if args.quick else SIZES
    timings: list[dict[str, str]] = []
    agreement: list[dict[str, str]] = []
    for n, k in sizes:
        table, agree = bench(n, k, args.repeats)
        timings += table
        agreement.append(agree)
    print_table(timings)
    print_table(agreement)
    if args.naive:
        print_table([naive(n, k, args.naive_cap) for n, k in sizes])
    print(f"load average after {_loadavg()}")


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    main()
