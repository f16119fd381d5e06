"""Tests of svmcert.kernels: linear, RBF and neural tangent kernels.

References are independent of the code under test: ``X @ Y.T``, scikit-learn's ``rbf_kernel``,
an exact value of the ReLU NTK on the diagonal, and neural-tangents against the numpy
arc-cosine recursion (within the float64 bound of the chapter "The neural tangent kernel").
"""

import subprocess
import sys

import numpy as np
import pytest

from svmcert import kernels
from svmcert.experiments.safe_screening import ntk as exp

EPS = np.finfo(float).eps


def _psd_and_symmetric(K, tol):
    np.testing.assert_array_equal(K, K.T)
    assert np.linalg.eigvalsh(K)[0] >= -tol * np.linalg.norm(K, 2)


# --------------------------------------------------------------------------- linear and RBF
def test_linear_kernel_is_the_matrix_product(rng):
    X, Y = rng.standard_normal((7, 4)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(kernels.linear_kernel(X, Y), X @ Y.T, rtol=0, atol=1e-14)
    K = kernels.linear_kernel(X)
    np.testing.assert_allclose(K, X @ X.T, rtol=0, atol=1e-14)
    _psd_and_symmetric(K, 10 * 7 * EPS)


def test_rbf_matches_scikit_learn(rng):
    from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

    X, Y = 3.0 * rng.standard_normal((9, 6)), rng.standard_normal((4, 6))
    for gamma in (1e-3, 0.1, 2.0):
        np.testing.assert_allclose(kernels.rbf_kernel(X, Y, gamma=gamma), sk_rbf(X, Y, gamma=gamma), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(kernels.rbf_kernel(X, gamma=gamma), sk_rbf(X, gamma=gamma), rtol=1e-12, atol=1e-15)
    # default gamma: scikit-learn SVC's gamma="scale" = 1 / (n_features * X.var()) (the paper's App. E.2)
    scale = 1.0 / (X.shape[1] * X.var())
    assert kernels.rbf_gamma_scale(X) == pytest.approx(scale, rel=1e-15)
    np.testing.assert_allclose(kernels.rbf_kernel(X, Y), sk_rbf(X, Y, gamma=scale), rtol=1e-12, atol=1e-15)
    assert kernels.rbf_gamma_scale(np.ones((3, 2))) == 1.0


def test_rbf_gram_is_symmetric_psd_with_unit_diagonal(rng):
    X = rng.standard_normal((30, 3))
    X[5] = X[4]  # duplicate rows: a singular Gram
    K = kernels.rbf_kernel(X, gamma=0.5)
    np.testing.assert_array_equal(np.diag(K), 1.0)
    _psd_and_symmetric(K, 30 * EPS)
    assert np.all((K > 0) & (K <= 1))


# --------------------------------------------------------------------------- NTK
def test_closed_form_exact_on_the_diagonal(rng):
    # b = 0, W_std^2 = 2: every ReLU layer halves the variance and the layer doubles it back, so
    # Theta(x, x) = 2 (L + 1) |x|^2 / d exactly.
    X = rng.standard_normal((5, 7))
    for L in (1, 2, 5):
        K = kernels.arccos_ntk_fc(X, depth=L, W_std=2 ** 0.5, b_std=0.0)
        np.testing.assert_allclose(np.diag(K), 2 * (L + 1) * (X ** 2).sum(1) / 7, rtol=1e-14)


@pytest.mark.parametrize("depth,W_std,b_std", [(1, 2 ** 0.5, 0.1), (3, 1.0, 0.0), (5, 1.5, 0.5)])
def test_neural_tangents_matches_closed_form(rng, depth, W_std, b_std):
    X = rng.standard_normal((13, 6))
    Y = np.vstack([rng.standard_normal((4, 6)), X[:3] * (1 + 1e-7 * rng.standard_normal((3, 6))), -X[3:5], np.zeros((1, 6))])
    kw = dict(depth=depth, W_std=W_std, b_std=b_std)
    cf_x, cf_y = kernels.arccos_ntk_fc(X, **kw), kernels.arccos_ntk_fc(Y, **kw)
    scale = np.sqrt(np.outer(np.diag(cf_x), np.diag(cf_y)))
    bound = exp.angle_rounding_bound(depth, 6)
    # block_size 5 does not divide 13: padding, off-diagonal blocks and mirroring are all exercised
    K_sym = kernels.ntk_kernel(X, block_size=5, **kw)
    assert K_sym.dtype == np.float64
    np.testing.assert_array_equal(K_sym[:5, 5:10], K_sym[5:10, :5].T)
    d = np.diag(cf_x)
    assert np.max(np.abs(K_sym - cf_x) / np.sqrt(np.outer(d, d))) <= bound
    K_xy = kernels.ntk_kernel(X, Y, block_size=4, **kw)
    err = np.abs(K_xy - kernels.arccos_ntk_fc(X, Y, **kw))
    ok = scale > 0  # the zero row without bias has a zero kernel row
    assert np.all(err[ok] <= bound * scale[ok]) and np.all(err[~ok] == 0)


def test_conv_ntk_gram_is_symmetric_psd_and_nonnegative(rng):
    X = rng.uniform(0, 1, size=(9, 36))  # 6x6 one-channel images
    K = kernels.ntk_kernel(X, architecture="conv", depth=2, block_size=4)
    assert K.shape == (9, 9) and np.all(K >= 0)
    _psd_and_symmetric(K, 9 * exp.angle_rounding_bound(2, 36))
    K2 = kernels.ntk_kernel(X[:4], X[4:], architecture="conv", depth=2)
    np.testing.assert_allclose(K2, K[:4, 4:], rtol=1e-12)
    # an explicit image_shape gives the same network on (3, 6, 2) images of the same size
    assert kernels.ntk_kernel(X[:2], architecture="conv", depth=1, image_shape=(3, 6, 2)).shape == (2, 2)


def test_empirical_ntk_approaches_the_limit_and_dtypes_agree(rng):
    X = rng.standard_normal((4, 5))
    K_inf = kernels.ntk_kernel(X, depth=2)

    def err(width):
        return np.mean([np.linalg.norm(kernels.empirical_ntk_kernel(X, depth=2, width=width, seed=s) - K_inf)
                        for s in range(3)]) / np.linalg.norm(K_inf)

    assert err(4096) < err(16) / 4  # 256x the width: about 16x smaller at rate width^(-1/2)
    K32 = kernels.empirical_ntk_kernel(X, depth=2, width=64, seed=1)
    K64 = kernels.empirical_ntk_kernel(X, depth=2, width=64, seed=1, dtype="float64")
    assert np.linalg.norm(K32 - K64) <= 1e-5 * np.linalg.norm(K64)  # same network, float32 rounding only


def test_jax_precision_setting_is_restored_and_import_is_lazy():
    import jax
    import jax.numpy as jnp

    kernels.ntk_kernel(np.eye(2), depth=1)
    assert not jax.config.jax_enable_x64 and jnp.ones(1).dtype == jnp.float32
    code = "import sys, svmcert, svmcert.kernels; print('jax' in sys.modules, 'neural_tangents' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_mnist_gram_cache_roundtrip(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMCERT_ROOT", str(tmp_path))
    g = exp.mnist_ntk_gram(digits=(0, 1), n_per_class=3, seed=1, depth=1, block_size=4)
    assert not g.loaded and g.K.shape == (6, 6) and list(g.y) == [1, 1, 1, -1, -1, -1]
    again = exp.mnist_ntk_gram(digits=(0, 1), n_per_class=3, seed=1, depth=1)
    assert again.loaded and again.path.startswith(str(tmp_path))
    np.testing.assert_array_equal(again.K, g.K)
    other = exp.mnist_ntk_gram(digits=(0, 1), n_per_class=3, seed=2, depth=1)  # other images: recomputed
    assert not other.loaded


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,name", [
    (lambda: kernels.linear_kernel(np.ones(3)), "X"),
    (lambda: kernels.linear_kernel(np.ones((2, 3)), np.ones((2, 4))), "Y"),
    (lambda: kernels.rbf_kernel(np.array([[1.0, np.nan]])), "X"),
    (lambda: kernels.rbf_kernel(np.ones((2, 2)), np.array([[np.inf, 0.0]])), "Y"),
    (lambda: kernels.rbf_kernel(np.ones((2, 2)), gamma=0.0), "gamma"),
    (lambda: kernels.rbf_kernel(np.ones((2, 2)), gamma=-1.0), "gamma"),
    (lambda: kernels.arccos_ntk_fc(np.ones((2, 2)), depth=0), "depth"),
    (lambda: kernels.arccos_ntk_fc(np.ones((2, 2)), W_std=0.0), "W_std"),
    (lambda: kernels.arccos_ntk_fc(np.ones((2, 2)), b_std=-0.1), "b_std"),
    (lambda: kernels.ntk_kernel(np.ones((2, 2)), architecture="rnn"), "architecture"),
    (lambda: kernels.ntk_kernel(np.ones((2, 5)), architecture="conv"), "image_shape"),
    (lambda: kernels.ntk_kernel(np.ones((2, 4)), architecture="conv", image_shape=(3, 3, 1)), "image_shape"),
    (lambda: kernels.ntk_kernel(np.ones((2, 2)), block_size=0), "block_size"),
    (lambda: kernels.ntk_kernel(np.ones((2, 2)), depth=1.5), "depth"),
    (lambda: kernels.empirical_ntk_kernel(np.ones((2, 2)), width=0), "width"),
    (lambda: kernels.empirical_ntk_kernel(np.ones((2, 2)), dtype="float16"), "dtype"),
    (lambda: exp.mnist_pair(digits=(3, 3)), "digits"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}:"):
        call()


@pytest.mark.parametrize("scale", [2.0 ** -520, 1e-155, 1e-200, 1e150, 2.0 ** 500])
def test_rbf_kernel_with_its_default_width_is_scale_invariant(scale):
    """gamma = 1 / (d Var(X)) makes exp(-gamma ||x - z||^2) invariant under X -> c X. At entries
    near 1e-155 the squares are subnormal: gamma overflowed and the diagonal came out NaN (inf * 0);
    near 1e-200 the variance underflowed to 0 and the width fell back to 1 (every entry 1). The
    distances are now taken in units of a power of two near the largest entry. A power-of-two c
    gives the unscaled kernel bit for bit; any c within a few roundings of the squared distances."""
    rng = np.random.default_rng(4)
    X, Y = rng.standard_normal((9, 3)), rng.standard_normal((4, 3))
    K, KY = kernels.rbf_kernel(X), kernels.rbf_kernel(X, Y)
    Ks, KYs = kernels.rbf_kernel(scale * X), kernels.rbf_kernel(scale * X, scale * Y)
    assert np.all(np.diag(Ks) == 1.0)
    if np.log2(scale).is_integer():
        np.testing.assert_array_equal(Ks, K)
        np.testing.assert_array_equal(KYs, KY)
    else:
        np.testing.assert_allclose(Ks, K, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(KYs, KY, rtol=1e-12, atol=1e-15)
