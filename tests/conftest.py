import os

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def pytest_collection_modifyitems(config, items):
    """Run the tests marked ``notebooks`` first (the quick book from a bare copy takes about three
    and a half minutes on two cores, far longer than any other test): with ``make test``'s work
    stealing (``--dist worksteal``) the other worker takes the rest of the suite meanwhile, instead
    of the longest test starting last and running alone. The sort is stable: the rest keep their
    order."""
    items.sort(key=lambda item: item.get_closest_marker("notebooks") is None)
