"""Kernel (Gram) matrices for the kernelised SVMs of Part II (Hanada et al., Sec. 5 and App. E).

Every function takes samples as rows, ``X`` of shape (n, d) and optionally ``Y`` of shape (m, d),
and returns the (n, m) matrix of k(x_i, y_j); ``Y=None`` means ``Y = X`` (the symmetric Gram).

The neural tangent kernel (NTK) functions import JAX and neural-tangents only when first called,
so ``import svmcert`` stays fast. :func:`ntk_kernel` computes in float64 inside
``jax.experimental.enable_x64()``, a context manager: the process-wide JAX setting is left as it
was (float32 by default) for any other code that uses JAX. :func:`empirical_ntk_kernel` (finite
networks) defaults to float32, for speed; see its docstring. :func:`arccos_ntk_fc` is plain numpy.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ._optional import require
from ._distances import squared_distances_in_units
from ._validation import check_matrix, check_positive

__all__ = [
    "linear_kernel",
    "rbf_kernel",
    "rbf_gamma_scale",
    "ntk_network",
    "ntk_kernel",
    "empirical_ntk_kernel",
    "arccos_ntk_fc",
]

ARCHITECTURES = ("fc", "conv")


# --------------------------------------------------------------------------- validation
def _pair(X, Y):
    X = check_matrix(X, "X")
    if Y is None:
        return X, None
    Y = check_matrix(Y, "Y")
    if Y.shape[1] != X.shape[1]:
        raise ValueError(f"Y: expected {X.shape[1]} features (columns) like X, got {Y.shape[1]}")
    return X, Y


def _nonnegative(value, name: str) -> float:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name}: expected a finite number >= 0, got {value!r}")
    return float(value)


def _depth(depth) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth: expected an integer >= 1 (number of hidden layers), got {depth!r}")
    return int(depth)


# --------------------------------------------------------------------------- classical kernels
def linear_kernel(X, Y=None) -> np.ndarray:
    """Linear kernel k(x, y) = <x, y>.

    Parameters
    ----------
    X : array of shape (n, d)
    Y : array of shape (m, d), optional
        Default: ``X``.

    Returns
    -------
    K : ndarray of shape (n, m)
        ``X @ Y.T``; exactly symmetric when ``Y`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.kernels import linear_kernel
    >>> linear_kernel(np.array([[1.0, 2.0], [0.0, 1.0]]))
    array([[5., 2.],
           [2., 1.]])
    """
    X, Y = _pair(X, Y)
    if Y is None:
        K = X @ X.T
        return 0.5 * K + 0.5 * K.T  # BLAS may round the two triangles differently; halves first so
        #                             that entries near the float64 limit do not overflow (same bits)
    return X @ Y.T


def rbf_gamma_scale(X) -> float:
    """Default RBF width: gamma = 1 / (d * Var(X)), scikit-learn's ``gamma="scale"``.

    Var is the variance of all entries of ``X`` together (not per feature). Hanada et al.
    (App. E.2) set their width zeta = d' * V(Z) "as suggested in sklearn.svm.SVC", i.e. this
    gamma = 1 / zeta. As in scikit-learn, a constant ``X`` (variance 0) gives gamma = 1.
    """
    X = check_matrix(X, "X")
    var = float(X.var())
    return 1.0 / (X.shape[1] * var) if var > 0 else 1.0


def rbf_kernel(X, Y=None, gamma=None) -> np.ndarray:
    """Gaussian (RBF) kernel k(x, y) = exp(-gamma ||x - y||^2).

    Parameters
    ----------
    X : array of shape (n, d)
    Y : array of shape (m, d), optional
        Default: ``X``.
    gamma : float > 0, optional
        Default :func:`rbf_gamma_scale` of ``X`` (the training rows), the paper's choice
        (App. E.2). Note that Sec. 5.1 of the paper prints the exponent as
        -||x - y||_2 / zeta, without the square; scikit-learn, which App. E.2 says it follows,
        squares the distance, and so do we.

    Returns
    -------
    K : ndarray of shape (n, m)
        Entries in (0, 1]; the diagonal is exactly 1 when ``Y`` is None.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.kernels import rbf_kernel
    >>> K = rbf_kernel(np.array([[0.0, 0.0], [1.0, 0.0]]), gamma=np.log(2))   # exp(-gamma * 1)
    >>> K.round(12)
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    X, Y = _pair(X, Y)
    gamma = None if gamma is None else check_positive(gamma, "gamma")
    # distances in units of s, a power of two near the largest entry (exact scalings); gamma s^2 is
    # the width in those units, the default 1 / (d Var(X / s)) exactly (a constant X: gamma = 1)
    sq, var, s = squared_distances_in_units(X, Y)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        gamma_s = (1.0 / (X.shape[1] * var) if var > 0 else s * s) if gamma is None else gamma * s * s
        return np.exp(-np.where(sq == 0.0, 0.0, gamma_s * sq))      # a zero distance is 1 whatever gamma


# --------------------------------------------------------------------------- neural tangent kernel
def _image_shape(d: int, image_shape):
    if image_shape is None:
        side = int(round(np.sqrt(d)))
        if side * side != d:
            raise ValueError(f"image_shape: X has {d} features, not a square number; give (height, width, channels)")
        return (side, side, 1)
    shape = tuple(int(s) for s in image_shape)
    if len(shape) != 3 or min(shape) < 1 or int(np.prod(shape)) != d:
        raise ValueError(f"image_shape: expected (height, width, channels) with product {d} (the number of "
                         f"features), got {image_shape!r}")
    return shape


def ntk_network(architecture: str = "fc", depth: int = 3, width: int = 512, W_std: float = 2 ** 0.5,
                b_std: float = 0.1, filter_shape=(3, 3)):
    """The ReLU network whose NTK :func:`ntk_kernel` computes, as a neural-tangents ``stax`` triple.

    Parameters
    ----------
    architecture : {"fc", "conv"}
        ``"fc"``: ``depth`` times [Dense(width), Relu], then Dense(1). ``"conv"``: ``depth`` times [Conv(width, filter_shape, padding SAME), Relu], then Flatten
        and Dense(1): convolutions followed by one linear fully connected layer, the network of
        Hanada et al., Sec. 5.2 (three 3x3 convolution layers by default).
    depth : int >= 1
        Number of hidden (nonlinear) layers.
    width : int >= 1
        Hidden units / channels of a finite network (``init_fn``/``apply_fn``); the
        infinite-width ``kernel_fn`` ignores it.
    W_std, b_std : float
        Weight and bias standard deviations in the NTK parameterisation
        (``stax.Dense``/``stax.Conv`` with ``parameterization="ntk"``): a layer computes
        z = W_std / sqrt(fan_in) * W x + b_std * b with W, b standard normal. ``b_std = 0``: no bias.
    filter_shape : tuple of int
        Convolution window (``"conv"`` only).

    Returns
    -------
    tuple
        ``(init_fn, apply_fn, kernel_fn)`` of ``neural_tangents.stax.serial``; inputs of the
        ``"conv"`` network are NHWC images.
    """
    architecture, depth, W_std, b_std, filter_shape = _network_args(architecture, depth, W_std, b_std, filter_shape)
    b = b_std or None
    stax = require("neural_tangents.stax", "ntk")

    layers = []
    for _ in range(depth):
        if architecture == "fc":
            layers.append(stax.Dense(int(width), W_std=W_std, b_std=b))
        else:
            layers.append(stax.Conv(int(width), filter_shape, padding="SAME", W_std=W_std, b_std=b))
        layers.append(stax.Relu())
    if architecture == "conv":
        layers.append(stax.Flatten())
    layers.append(stax.Dense(1, W_std=W_std, b_std=b))
    return stax.serial(*layers)


def _network_args(architecture, depth, W_std, b_std, filter_shape):
    """Validated, hashable network settings (the cache key of :func:`_jitted`)."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"architecture: expected one of {ARCHITECTURES}, got {architecture!r}")
    fs = tuple(int(f) for f in np.atleast_1d(filter_shape))
    if len(fs) != 2 or min(fs) < 1:
        raise ValueError(f"filter_shape: expected two positive integers, got {filter_shape!r}")
    return (architecture, _depth(depth), check_positive(W_std, "W_std"), _nonnegative(b_std, "b_std"), fs)


def _to_network_input(A, architecture, shape):
    return A if architecture == "fc" else A.reshape((A.shape[0],) + shape)


@functools.lru_cache(maxsize=32)
def _jitted(kind: str, architecture: str, depth: int, width: int, W_std: float, b_std: float, filter_shape):
    """Compiled kernel functions, one per network (repeated calls reuse the compilation)."""
    jax = require("jax", "ntk")

    init_fn, apply_fn, kernel_fn = ntk_network(architecture, depth, width, W_std, b_std, filter_shape)
    if kind == "infinite":
        return jax.jit(kernel_fn, static_argnames="get")
    nt = require("neural_tangents", "ntk")

    fn = nt.empirical_ntk_fn(apply_fn, vmap_axes=0, implementation=nt.NtkImplementation.JACOBIAN_CONTRACTION)
    return init_fn, jax.jit(fn)


def ntk_kernel(X, Y=None, architecture: str = "fc", depth: int = 3, W_std: float = 2 ** 0.5,
               b_std: float = 0.1, image_shape=None, filter_shape=(3, 3), block_size: int = 100,
               progress: bool = False) -> np.ndarray:
    """Infinite-width neural tangent kernel of a ReLU network, computed by neural-tangents.

    Parameters
    ----------
    X : array of shape (n, d)
        For ``"conv"`` each row is an image flattened in (height, width, channels) order (NHWC),
        e.g. MNIST's 784 pixels.
    Y : array of shape (m, d), optional
        Default: ``X``.
    architecture, depth, W_std, b_std, filter_shape
        The network, see :func:`ntk_network`.
    image_shape : tuple of int, optional
        (height, width, channels) for ``"conv"``; default a square one-channel image.
    block_size : int
        Rows and columns per call of the kernel function. Memory grows like
        block_size^2 * (pixels) floats; the last block is zero-padded so the function is compiled
        once. With ``Y`` None only blocks on or above the diagonal are computed and mirrored.
    progress : bool
        Show a tqdm bar over blocks.

    Returns
    -------
    K : float64 ndarray of shape (n, m)
        The NTK Theta(x_i, y_j) of the network's scalar output.

    Examples
    --------
    The fully connected kernel agrees with its closed form, :func:`arccos_ntk_fc` (the first
    call imports neural-tangents and JAX, which takes seconds):

    >>> import numpy as np
    >>> from svmcert.kernels import arccos_ntk_fc, ntk_kernel
    >>> X = np.random.default_rng(0).standard_normal((5, 3))
    >>> K = ntk_kernel(X, depth=2)
    >>> K.shape, bool(np.allclose(K, arccos_ntk_fc(X, depth=2), rtol=1e-6))
    ((5, 5), True)
    """
    X, Y = _pair(X, Y)
    args = _network_args(architecture, depth, W_std, b_std, filter_shape)
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size: expected an integer >= 1, got {block_size!r}")
    shape = _image_shape(X.shape[1], image_shape) if architecture == "conv" else None
    jnp = require("jax.numpy", "ntk")
    enable_x64 = require("jax.experimental", "ntk").enable_x64

    Z = X if Y is None else Y
    n, m, B = X.shape[0], Z.shape[0], int(min(block_size, max(X.shape[0], Z.shape[0])))
    pairs = [(i, j) for i in range(0, n, B) for j in range(0, m, B) if Y is not None or j >= i]
    K = np.empty((n, m))
    with enable_x64():
        fn = _jitted("infinite", args[0], args[1], 1, *args[2:])

        def block(A, start):
            part = A[start:start + B]
            padded = np.zeros((B, A.shape[1]))
            padded[:len(part)] = part
            return jnp.asarray(_to_network_input(padded, architecture, shape), dtype=jnp.float64), len(part)

        iterator = pairs
        if progress:
            from tqdm.auto import tqdm

            iterator = tqdm(pairs, desc="NTK blocks", leave=False)
        for i, j in iterator:
            a, na = block(X, i)
            if Y is None and i == j:
                K[i:i + na, i:i + na] = np.asarray(fn(a, None, "ntk"))[:na, :na]
                continue
            b, nb = block(Z, j)
            K[i:i + na, j:j + nb] = np.asarray(fn(a, b, "ntk"))[:na, :nb]
            if Y is None:
                K[j:j + nb, i:i + na] = K[i:i + na, j:j + nb].T
    return K


def empirical_ntk_kernel(X, Y=None, architecture: str = "fc", depth: int = 3, width: int = 512,
                         seed: int = 0, W_std: float = 2 ** 0.5, b_std: float = 0.1, image_shape=None,
                         filter_shape=(3, 3), dtype: str = "float32") -> np.ndarray:
    """NTK of one finite, randomly initialised network: J(x) J(y)^T with J = d f / d parameters.

    Same network as :func:`ntk_kernel` at finite ``width``, parameters drawn with
    ``jax.random.PRNGKey(seed)`` (always in float32, so a seed gives the same network for either
    ``dtype``); computed by ``neural_tangents.empirical_ntk_fn`` (Jacobian contraction). As width -> infinity it converges to :func:`ntk_kernel`, with
    fluctuations of order width^(-1/2) (Jacot et al., 2018).

    Parameters
    ----------
    dtype : {"float32", "float64"}
        XLA's CPU convolutions and their gradients are many times slower in float64; float32
        rounding (relative ~1e-6) is far below the finite-width fluctuations this kernel is used
        to measure (the NTK chapter measures them at each width it runs).
    width : int >= 1
        The hidden units / channels.
    seed : int
        The network's random initialisation.
    X, Y, architecture, depth, W_std, b_std, image_shape, filter_shape
        As in :func:`ntk_kernel`.

    Returns
    -------
    K : float64 ndarray of shape (n, m)
    """
    X, Y = _pair(X, Y)
    args = _network_args(architecture, depth, W_std, b_std, filter_shape)
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or width < 1:
        raise ValueError(f"width: expected an integer >= 1, got {width!r}")
    if dtype not in ("float32", "float64"):
        raise ValueError(f"dtype: expected 'float32' or 'float64', got {dtype!r}")
    shape = _image_shape(X.shape[1], image_shape) if architecture == "conv" else None
    import contextlib

    jax = require("jax", "ntk")
    jnp = require("jax.numpy", "ntk")
    experimental = require("jax.experimental", "ntk")
    disable_x64, enable_x64 = experimental.disable_x64, experimental.enable_x64

    init_fn, fn = _jitted("empirical", args[0], args[1], int(width), *args[2:])
    in_shape = (X.shape[0],) + (shape if shape else (X.shape[1],))
    with disable_x64():  # draw in float32 whatever the global setting: a seed is one network for both dtypes
        _, params = init_fn(jax.random.PRNGKey(int(seed)), in_shape)
    with enable_x64() if dtype == "float64" else contextlib.nullcontext():
        params = jax.tree_util.tree_map(lambda p: jnp.asarray(p, dtype=dtype), params)
        a = jnp.asarray(_to_network_input(X, architecture, shape), dtype=dtype)
        b = None if Y is None else jnp.asarray(_to_network_input(Y, architecture, shape), dtype=dtype)
        return np.asarray(fn(a, b, params), dtype=np.float64)


def arccos_ntk_fc(X, Y=None, depth: int = 3, W_std: float = 2 ** 0.5, b_std: float = 0.1) -> np.ndarray:
    """Closed-form NTK of the fully connected ReLU network, in numpy (no neural-tangents).

    The arc-cosine recursion (Cho & Saul 2009; Jacot et al. 2018; Arora et al. 2019) in the
    parameterisation of :func:`ntk_network` (``"fc"``). With Sigma the covariance of a layer's
    pre-activations and Theta the NTK, start from Sigma = <x, y> / d, Theta = 0; each of the
    ``depth`` hidden layers applies

    * Dense: Sigma <- W_std^2 Sigma + b_std^2, Theta <- Sigma + W_std^2 Theta;
    * ReLU: with q_x = Sigma(x, x), q_y = Sigma(y, y), s = sqrt(q_x q_y - Sigma^2) and
      angle t = atan2(s, Sigma) in [0, pi]:
      Sigma <- (s + (pi - t) Sigma) / (2 pi), Theta <- Theta (pi - t) / (2 pi), q <- q / 2;

    and the readout Dense(1) applies the Dense step once more; the result is Theta.

    Parameters
    ----------
    X : array of shape (n, d)
    Y : array of shape (m, d), optional
        Default ``X``.
    depth : int >= 1
        Number of hidden layers.
    W_std : float > 0
    b_std : float >= 0
        0 means no bias.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    X, Y = _pair(X, Y)
    depth = _depth(depth)
    w2 = check_positive(W_std, "W_std") ** 2
    b2 = _nonnegative(b_std, "b_std") ** 2
    Z = X if Y is None else Y
    d = X.shape[1]
    sigma = (X @ Z.T) / d
    qx = np.einsum("ij,ij->i", X, X) / d
    qy = qx if Y is None else np.einsum("ij,ij->i", Z, Z) / d
    if Y is None:  # the diagonal of sigma and q must be the same numbers (angle exactly 0)
        sigma = (sigma + sigma.T) / 2
        np.fill_diagonal(sigma, qx)
    theta = np.zeros_like(sigma)
    for _ in range(depth):
        sigma, qx, qy = w2 * sigma + b2, w2 * qx + b2, w2 * qy + b2
        theta = sigma + w2 * theta
        s = np.sqrt(np.maximum(np.outer(qx, qy) - sigma ** 2, 0.0))
        t = np.where((s == 0) & (sigma == 0), np.pi / 2, np.arctan2(s, sigma))
        sigma = (s + (np.pi - t) * sigma) / (2 * np.pi)
        theta = theta * (np.pi - t) / (2 * np.pi)
        # q <- q / 2 written as the sigma update at angle 0, so a diagonal entry of sigma stays
        # bit-for-bit equal to its q and its angle exactly 0 in the next layer
        qx, qy = (np.pi * qx) / (2 * np.pi), (np.pi * qy) / (2 * np.pi)
    sigma = w2 * sigma + b2
    return sigma + w2 * theta
