"""The Examples sections of the solver modules run and print what they say (doctest)."""

import doctest
import importlib

import pytest

MODULES = ["svmcert.signsvm.solve", "svmcert.signsvm.interior_point", "svmcert.signsvm.bounded_lsq",
           "svmcert.signsvm.coordinate_ascent", "svmcert.signsvm.frank_wolfe", "svmcert._validation",
           "svmcert.screening.weighted_svm", "svmcert.screening.ball_problem"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
