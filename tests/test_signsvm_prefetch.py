"""The compiled passes' software prefetch (``signsvm._prefetch``) is a hint only: a pass with it
takes exactly the steps of the pass without it, bit for bit, in a plain pass (``epoch``) and in
shrinking passes, which prefetch only while their active rows exceed the caches' share
(``run_shrinking``). The rows here take 6 MB, above PREFETCH_MIN_BYTES, so the prefetch runs."""

import numpy as np
import pytest

from svmcert.signsvm._dca_kernel import dense_rows, epoch, run_shrinking
from svmcert.signsvm._shuffle import shuffle_state
from svmcert.signsvm._prefetch import PREFETCH_DISTANCE, PREFETCH_MIN_BYTES

N, D = 5000, 100          # 12 bytes a nonzero (float64 value, int32 index): 6 MB when full


def _rows(n, d, seed, density=1.0, constrained=True):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    X[rng.integers(n)] = 0.0                                    # an empty row too
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    sign = rng.choice([-1.0, 0.0, 1.0], size=d) if constrained else np.zeros(d)
    lam_n = 0.5
    indptr, indices, values, cptr, cpos, sq, _ = dense_rows(X, y / lam_n, sign)
    return (indptr, indices, values), (cptr, cpos, sq), sign, lam_n


@pytest.mark.parametrize("lookahead", [1, PREFETCH_DISTANCE, 50])
@pytest.mark.parametrize("constrained", [False, True])
def test_a_prefetching_pass_takes_the_same_steps(lookahead, constrained):
    csr, layout, sign, lam_n = _rows(N, D, seed=3, constrained=constrained)
    n = csr[0].size - 1
    assert 12 * csr[0][-1] >= PREFETCH_MIN_BYTES
    rng = np.random.default_rng(7)
    results = []
    for ahead in (0, lookahead):
        alpha, omega = np.zeros(n), np.zeros(sign.size)
        for _ in range(3):
            epoch(rng.permutation(n) if ahead == 0 else orders.pop(0), *csr, *layout, alpha, omega, sign, lam_n,
                  np.ones(n), ahead)
        results.append((alpha, omega))
        if ahead == 0:
            rng = np.random.default_rng(7)
            orders = [rng.permutation(n) for _ in range(3)]
    (a0, o0), (a1, o1) = results
    assert np.any(a0 > 0.0)                                     # the passes moved
    assert np.array_equal(a0, a1) and np.array_equal(o0, o1)


def test_shrinking_passes_with_the_prefetch_on_equal_those_without():
    # the first passes prefetch; the shrunken ones stop once their rows fit the caches' share
    n, d = N, D
    csr, layout, sign, lam_n = _rows(n, d, seed=11)
    assert 12 * csr[0][-1] >= PREFETCH_MIN_BYTES
    runs = []
    for lookahead in (0, PREFETCH_DISTANCE):
        alpha, omega = np.zeros(n), np.zeros(d)
        carry, index = np.array([np.inf, -np.inf, 0.0, -1.0]), np.arange(n)
        passes, met = run_shrinking(*csr, *layout, alpha, omega, sign, lam_n, 1e-3, 40, np.ones(n), carry,
                                    np.inf, index, lookahead, shuffle_state(5))
        runs.append((alpha, omega, carry.copy(), index.copy(), passes, met))
    (a0, o0, c0, i0, p0, m0), (a1, o1, c1, i1, p1, m1) = runs
    assert p0 == p1 and m0 == m1 and p0 > 1
    assert np.array_equal(a0, a1) and np.array_equal(o0, o1)
    assert np.array_equal(c0, c1) and np.array_equal(i0, i1)
