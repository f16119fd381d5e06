"""The passes' own generator (``signsvm._shuffle``): a shuffle is a permutation of the prefix, its
orders are uniform (checked against the uniform law, not against the code), and a run depends on
its seed alone."""

from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from svmcert.signsvm import dual_coordinate_ascent
from svmcert.signsvm._shuffle import seed_zero_state, shuffle_prefix, shuffle_state


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), active=st.integers(0, 300), seed=st.integers(-2**70, 2**70))
def test_a_shuffle_permutes_the_prefix_and_leaves_the_rest(n, active, seed):
    active = min(active, n)
    index = np.arange(n)[::-1].copy()
    before = index.copy()
    state = shuffle_state(seed)
    assert state.dtype == np.uint64 and state[0] != 0
    shuffle_prefix(index, active, state)
    assert sorted(index[:active]) == sorted(before[:active])
    assert np.array_equal(index[active:], before[active:])


def test_the_orders_of_four_are_uniform():
    # 24 000 shuffles of 4 items: each of the 24 orders should come 1000 times. Under the uniform
    # law the chi-square statistic (23 degrees of freedom) exceeds its 1e-4 quantile (about 58)
    # once in 10 000 seeds; a shuffle that skips a swap or draws j from the whole range (the
    # classic biased shuffle) puts it in the hundreds.
    state = shuffle_state(2026)
    counts = dict.fromkeys(permutations(range(4)), 0)
    index = np.arange(4)
    for _ in range(24_000):
        index[:] = np.arange(4)
        shuffle_prefix(index, 4, state)
        counts[tuple(index.tolist())] += 1
    observed = np.array(list(counts.values()))
    assert observed.min() > 0
    assert stats.chisquare(observed).statistic < stats.chi2.ppf(1 - 1e-4, df=23)


def test_positions_are_uniform_for_a_bound_that_does_not_divide_two_to_the_32():
    # 30 000 draws below b = 3 * 2**30 + 1: each third of [0, b) should receive a third of them.
    # A draw taken as 32 random bits modulo b would put half of them in the first third (its values
    # below 2**32 - b come twice as often): the rejection step is what this checks
    n = 3 * 2**30 + 1
    state = shuffle_state(7)
    from svmcert.signsvm._shuffle import _below
    draws = np.array([_below(n, state) for _ in range(30_000)])
    assert draws.min() >= 0 and draws.max() < n
    thirds = np.bincount(np.minimum(draws * 3 // n, 2), minlength=3)
    assert stats.chisquare(thirds).statistic < stats.chi2.ppf(1 - 1e-4, df=2)


def test_the_default_state_is_seed_zeros():
    assert np.array_equal(seed_zero_state(), shuffle_state(0))


@pytest.mark.parametrize("seed", [0, 3])
def test_a_run_depends_on_its_seed_alone(seed):
    # the numba global generator moved in between must not change the run
    from numba import njit

    @njit
    def disturb(k):
        np.random.seed(k)
        return np.random.randint(1000)

    rng = np.random.default_rng(4)
    X = rng.standard_normal((120, 6))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(120) > 0, 1.0, -1.0)
    sign = np.array([1.0, -1.0, 0.0, 0.0, 1.0, 0.0])
    runs = []
    for k in (1, 99):
        disturb(k)
        res = dual_coordinate_ascent(X, y, 1.0 / 120, sign, tol=1e-8, seed=seed, record_history=False)
        runs.append(res)
    assert runs[0].converged and runs[1].converged
    assert np.array_equal(runs[0].alpha, runs[1].alpha) and runs[0].n_iter == runs[1].n_iter
    other = dual_coordinate_ascent(X, y, 1.0 / 120, sign, tol=1e-8, seed=seed + 1, record_history=False)
    assert not np.array_equal(other.alpha, runs[0].alpha)   # another seed, another path
