"""Chapter "The neural tangent kernel" (Hanada et al., Sec. 5.2): checks of :mod:`svmcert.kernels`.

* neural-tangents' fully connected ReLU NTK against the numpy arc-cosine recursion;
* the convolutional NTK Gram matrix of a two-digit MNIST-5k problem (symmetry, PSD, timing),
  cached under ``_build/cache/ntk/`` for the chapters that train SVMs on it
  (:func:`mnist_ntk_gram` is the loader);
* finite-width empirical NTKs converging to the infinite-width one as width^(-1/2).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np

from ... import datasets, kernels

__all__ = [
    "UNIT_ROUNDOFF",
    "angle_rounding_bound",
    "normalized_error",
    "fc_agreement",
    "mnist_pair",
    "NTKGram",
    "mnist_ntk_gram",
    "gram_checks",
    "swapped_block_error",
    "empirical_convergence",
    "fit_rate",
    "float32_fit_drift",
]

UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2  # u = 2^-53


def angle_rounding_bound(depth: int, fan_in: int) -> float:
    """Worst-case float64 error of one NTK entry, relative to sqrt(K(x, x) K(y, y)).

    Every ReLU layer computes the angle t between two inputs from s = sqrt(q_x q_y - Sigma^2).
    The cosine carries a relative rounding error of at most gamma = m u / (1 - m u) with
    m = fan_in + 10 depth (the input dot products, Higham's bound, plus a handful of flops per
    layer), so q_x q_y - Sigma^2 is off by at most 4 gamma q_x q_y and the angle by at most
    2 sqrt(gamma) -- the square root is what nearly parallel inputs cost. The normalised layer
    maps have slopes at most 1 in t, so each of the ``depth`` layers adds at most 2 sqrt(gamma):
    bound = 2 depth sqrt(gamma). Generic (well-separated) pairs are far more accurate (~u).
    """
    m = fan_in + 10 * depth
    gamma = m * UNIT_ROUNDOFF / (1 - m * UNIT_ROUNDOFF)
    return float(2 * depth * np.sqrt(gamma))


def normalized_error(A, B, diag_x, diag_y) -> np.ndarray:
    """|A - B| / sqrt(K(x,x) K(y,y)) entrywise (Cauchy-Schwarz: |K(x,y)| <= that scale)."""
    return np.abs(A - B) / np.sqrt(np.outer(diag_x, diag_y))


def _fc_inputs(rng, d, n, mnist_rows):
    if d == 784:  # real images: nonnegative pixels in [0, 1], strongly correlated
        X = mnist_rows[rng.choice(len(mnist_rows), size=n, replace=False)]
    else:
        X = rng.standard_normal((n, d))
    k = n // 4
    # generic rows, then nearly parallel (relative perturbation 1e-6), antiparallel and rescaled copies
    Y = np.vstack([rng.standard_normal((n - 3 * k, d)) * X.std() + X.mean(),
                   X[:k] * (1 + 1e-6 * rng.standard_normal((k, d))), -X[k:2 * k], 3.0 * X[2 * k:3 * k]])
    kind = np.array(["generic"] * (n - 3 * k) + ["near-parallel"] * k + ["antiparallel"] * k + ["rescaled"] * k)
    return X, Y, kind


def fc_agreement(rng, dims, depths, settings, n: int = 24, mnist_rows=None, progress: bool = False):
    """neural-tangents (``ntk_kernel``, "fc") vs :func:`kernels.arccos_ntk_fc`, per configuration.

    For each input dimension d (784 uses MNIST rows / 255), depth and (W_std, b_std): the
    symmetric Gram of n rows (its diagonal has angle exactly 0) and the cross Gram against n
    rows mixing generic, nearly parallel (1e-6), antiparallel and rescaled partners. Errors are
    normalised entrywise by sqrt(K(x,x) K(y,y)) from the closed form.
    """
    import pandas as pd

    configs = [(d, L, W, b) for d in dims for L in depths for (W, b) in settings]
    if progress:
        from tqdm.auto import tqdm

        configs = tqdm(configs, desc="fc configurations", leave=False)
    rows = []
    for d, L, W, b in configs:
        X, Y, kind = _fc_inputs(rng, d, n, mnist_rows)
        kw = dict(depth=L, W_std=W, b_std=b)
        cf_xx, cf_yy = kernels.arccos_ntk_fc(X, **kw), kernels.arccos_ntk_fc(Y, **kw)
        dx, dy = np.diag(cf_xx), np.diag(cf_yy)
        e_sym = normalized_error(kernels.ntk_kernel(X, **kw), cf_xx, dx, dx)
        e_x = normalized_error(kernels.ntk_kernel(X, Y, **kw), kernels.arccos_ntk_fc(X, Y, **kw), dx, dy)
        row = {"d": d, "depth": L, "W_std": W, "b_std": b,
               "diagonal": float(np.diag(e_sym).max()),
               "off_diagonal": float(e_sym[~np.eye(n, dtype=bool)].max())}
        for k in ("generic", "near-parallel", "antiparallel", "rescaled"):
            row[k] = float(e_x[:, kind == k].max()) if np.any(kind == k) else np.nan
        row["worst"] = float(max(e_sym.max(), e_x.max()))
        row["bound"] = angle_rounding_bound(L, d)
        row["worst_over_bound"] = row["worst"] / row["bound"]
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the MNIST Gram matrix
def mnist_pair(digits=(3, 5), n_per_class: int = 250, seed: int = 0):
    """Two digits of MNIST-5k, ``n_per_class`` random images of each (pixels / 255 in [0, 1]).

    Returns ``(X, y, index)``: y = +1 for ``digits[0]``, -1 for ``digits[1]``; ``index`` are the
    rows of ``datasets.load("mnist5k")`` used, in the order of X.
    """
    X, labels = datasets.load("mnist5k")
    a, b = (int(v) for v in digits)
    if a == b or not (0 <= a <= 9 and 0 <= b <= 9):
        raise ValueError(f"digits: expected two different digits 0-9, got {digits!r}")
    rng = np.random.default_rng(seed)
    parts = []
    for dgt in (a, b):
        rows = np.flatnonzero(labels == dgt)
        if not 1 <= n_per_class <= rows.size:
            raise ValueError(f"n_per_class: expected 1..{rows.size} (images of digit {dgt}), got {n_per_class}")
        parts.append(np.sort(rng.choice(rows, size=n_per_class, replace=False)))
    index = np.concatenate(parts)
    y = np.where(labels[index] == a, 1.0, -1.0)
    return X[index] / 255.0, y, index


@dataclass
class NTKGram:
    """A cached NTK Gram matrix of a two-digit MNIST-5k problem."""

    K: np.ndarray
    X: np.ndarray
    y: np.ndarray
    index: np.ndarray
    params: dict
    seconds: float = float("nan")  # compute time (NaN when loaded from the cache)
    path: str = ""
    loaded: bool = False
    extra: dict = field(default_factory=dict)


def _cache_path(params: dict):
    from ...book import project_root

    p = params
    name = (f"mnist5k_{p['digits'][0]}v{p['digits'][1]}_n{p['n_per_class']}_seed{p['seed']}_"
            f"conv{p['depth']}_W{p['W_std']:.6g}_b{p['b_std']:.6g}.npz")
    return project_root() / "_build" / "cache" / "ntk" / name


def mnist_ntk_gram(digits=(3, 5), n_per_class: int = 250, seed: int = 0, depth: int = 3,
                   W_std: float = 2 ** 0.5, b_std: float = 0.1, *, recompute: bool = False,
                   block_size: int = 100, progress: bool = False) -> NTKGram:
    """The convolutional NTK Gram matrix of two MNIST-5k digits, from the cache or computed.

    The network is :func:`svmcert.kernels.ntk_network` ``"conv"``: ``depth`` 3x3 convolution
    layers (SAME padding, ReLU), then Flatten and one linear layer (Hanada et al., Sec. 5.2).
    The matrix is stored in ``_build/cache/ntk/`` (not committed) with the parameters and the
    sha256 of MNIST-5k; a cached file is used only if both match. ``recompute=True`` always
    computes (and refreshes the cache).

    Returns
    -------
    NTKGram with ``K`` (n, n), ``X``, ``y`` (+1 for ``digits[0]``), ``index`` into MNIST-5k.
    """
    params = {"digits": [int(v) for v in digits], "n_per_class": int(n_per_class), "seed": int(seed),
              "depth": int(depth), "W_std": float(W_std), "b_std": float(b_std),
              "data_sha256": datasets.checksum("mnist5k")}
    X, y, index = mnist_pair(digits, n_per_class, seed)
    path = _cache_path(params)
    if path.is_file() and not recompute:
        with np.load(path) as f:
            if json.loads(str(f["params"])) == params and np.array_equal(f["index"], index):
                return NTKGram(f["K"], X, y, index, params, path=str(path), loaded=True)
    t0 = time.perf_counter()
    K = kernels.ntk_kernel(X, architecture="conv", depth=depth, W_std=W_std, b_std=b_std,
                           block_size=block_size, progress=progress)
    seconds = time.perf_counter() - t0
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, K=K, y=y, index=index, params=json.dumps(params))
    tmp.replace(path)
    return NTKGram(K, X, y, index, params, seconds=seconds, path=str(path))


def gram_checks(K) -> dict:
    """Asymmetry max|K - K^T| / max diag, smallest and largest eigenvalue, condition number."""
    K = np.asarray(K, float)
    scale = float(np.max(np.diag(K)))
    eig = np.linalg.eigvalsh((K + K.T) / 2)
    return {"asymmetry": float(np.max(np.abs(K - K.T)) / scale), "lambda_min": float(eig[0]),
            "lambda_max": float(eig[-1]), "lambda_min_over_norm": float(eig[0] / eig[-1]),
            "condition": float(eig[-1] / eig[0]) if eig[0] > 0 else float("inf")}


def swapped_block_error(gram: NTKGram, rows: int) -> float:
    """Off-diagonal block computed in the other argument order, against the assembled Gram.

    ``ntk_kernel(X_B, X_A)`` with A the first ``rows`` images and B the next ``rows``, compared
    with the transpose of K[A, B]; normalised by sqrt(K_ii K_jj).
    """
    X, K, p = gram.X, gram.K, gram.params
    rows = min(rows, X.shape[0] // 2)
    A, B = slice(0, rows), slice(rows, 2 * rows)
    KBA = kernels.ntk_kernel(X[B], X[A], depth=p["depth"], W_std=p["W_std"], b_std=p["b_std"],
                             architecture="conv", block_size=rows)
    d = np.diag(K)
    return float(normalized_error(KBA, K[A, B].T, d[B], d[A]).max())


# --------------------------------------------------------------------------- finite width
def empirical_convergence(X, K_inf, widths, seeds, depth: int = 3, W_std: float = 2 ** 0.5,
                          b_std: float = 0.1, progress: bool = False):
    """Relative Frobenius error ||K_width - K_inf||_F / ||K_inf||_F of empirical conv NTKs.

    One row per (width, seed): the empirical NTK of one random network
    (:func:`svmcert.kernels.empirical_ntk_kernel`, float32) on the images ``X`` against the
    infinite-width Gram ``K_inf`` of the same images, with the seconds per network.
    """
    import pandas as pd

    jobs = [(w, s) for w in widths for s in seeds]
    if progress:
        from tqdm.auto import tqdm

        jobs = tqdm(jobs, desc="finite networks", leave=False)
    rows, ref = [], np.linalg.norm(K_inf)
    for w, s in jobs:
        t0 = time.perf_counter()
        Ke = kernels.empirical_ntk_kernel(X, depth=depth, width=int(w), seed=int(s), W_std=W_std,
                                          b_std=b_std, architecture="conv")
        rows.append({"width": int(w), "seed": int(s), "rel_error": float(np.linalg.norm(Ke - K_inf) / ref),
                     "seconds": time.perf_counter() - t0})
    return pd.DataFrame(rows)


def fit_rate(widths, errors) -> dict:
    """Least-squares fit log(error) = c + slope log(width) over all (width, seed) points.

    The log makes the fit insensitive to the heavy right tail of single random networks.
    Returns slope, its standard error (ordinary least squares) and the intercept.
    """
    from scipy import stats

    res = stats.linregress(np.log(np.asarray(widths, float)), np.log(np.asarray(errors, float)))
    return {"slope": float(res.slope), "stderr": float(res.stderr), "intercept": float(res.intercept)}


def float32_fit_drift(widths, errors, float32_error: float, at_width: int) -> dict:
    """How far :func:`fit_rate`'s slope and standard error may move on another machine.

    The finite networks' NTKs are computed in float32, and another machine's BLAS and XLA kernels
    sum in another order, so they round differently. ``float32_error`` is the measured relative
    Frobenius difference between the float32 and the float64 NTK of one network of width
    ``at_width``. Rounding in a sum grows like the square root of its length, and an entry of the
    empirical NTK sums over the network's parameters, whose number grows like width^2; so the
    float32 error at width w is taken as e32(w) = float32_error * max(1, w / at_width). Two machines
    each within e32(w) of the exact kernel differ by at most 2 e32(w) ||K_w||, and
    ||K_w|| <= (1 + e) ||K_inf|| when e is the relative error of K_w; so e moves by at most
    2 e32(w) (1 + e) and log e by at most delta = 2 e32(w) (1 + e) / e (first order).
    The OLS slope is linear in the log errors with weights (x_i - mean x) / Sxx, so it moves by at
    most sum_i |x_i - mean x| delta_i / Sxx. The residuals move by at most ||delta||_2, so the
    standard error sqrt(RSS / ((n - 2) Sxx)) moves by at most ||delta||_2 / sqrt((n - 2) Sxx).

    Returns
    -------
    dict with ``slope`` and ``stderr``: the two bounds.

    Examples
    --------
    >>> d = float32_fit_drift([16, 16, 32, 32], [0.5, 0.4, 0.3, 0.35], 1e-7, 16)
    >>> 0 < d["slope"] < 1e-5 and 0 < d["stderr"] < 1e-5
    True
    """
    w = np.asarray(widths, float)
    e = np.asarray(errors, float)
    x = np.log(w)
    dx = x - x.mean()
    sxx = float(dx @ dx)
    delta = 2.0 * float(float32_error) * np.maximum(1.0, w / float(at_width)) * (1.0 + e) / e
    return {"slope": float(np.abs(dx) @ delta / sxx),
            "stderr": float(np.linalg.norm(delta) / np.sqrt((len(w) - 2) * sxx))}
