"""The Examples sections of the library's docstrings run and print what they say (doctest), and
every function and estimator of the library contract has one."""

import doctest
import importlib
import inspect

import pytest

from api_contract import CONTRACT, RESULT_TYPES

MODULES = ["svmcert.signsvm.solve", "svmcert.signsvm.plan", "svmcert.signsvm.shrinking_rounds", "svmcert.signsvm.interior_point", "svmcert.signsvm.bounded_lsq",
           "svmcert.signsvm.coordinate_ascent", "svmcert.signsvm.frank_wolfe", "svmcert._validation",
           "svmcert.screening.weighted_svm", "svmcert.screening.ball_problem", "svmcert.signsvm.estimator",
           "svmcert.signsvm.problem", "svmcert.signsvm.working_set", "svmcert.signsvm.sparse_ipm_cost",
           # the rest of the library contract (tests/api_contract.py)
           "svmcert.signsvm.objectives", "svmcert.signsvm.lp_step", "svmcert.signsvm.line_search",
           "svmcert.signsvm.projected_gradient", "svmcert.signsvm.bounds",
           "svmcert.screening.gap_safe", "svmcert.screening.quadratic_ball", "svmcert.screening.drsss",
           "svmcert.screening.weighted_problem", "svmcert.screening.secular",
           "svmcert.featelim.qp1", "svmcert.featelim.radius", "svmcert.featelim.elimination",
           "svmcert.kernels", "svmcert._distances", "svmcert.datasets", "svmcert.reference.lp",
           "svmcert.reference.signsvm"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def _contract_objects():
    for module, names in CONTRACT.items():
        for name in names:
            if name not in RESULT_TYPES:
                yield f"{module}.{name}", getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("qualname,obj", list(_contract_objects()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_contract_function_has_an_example_that_runs(qualname, obj):
    doc = inspect.getdoc(obj) or ""
    assert "\nExamples\n--------\n" in doc and ">>> " in doc.split("\nExamples\n--------\n", 1)[1], \
        f"{qualname}: no numpydoc Examples section with doctest lines"
    assert obj.__module__ in MODULES, f"{qualname}: its module {obj.__module__} is not in MODULES, so its examples never run"
