import os

import numpy as np
import pytest
from hypothesis import settings

os.environ.setdefault("MPLBACKEND", "Agg")

# Under CI the property tests draw their examples from a seed fixed per test (derandomize), so
# that a run on a clean clone is a function of the commit; at a desk they keep exploring afresh
# (and hypothesis's example database replays what they found). Either way a failure prints the
# example and the @reproduce_failure blob.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


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
