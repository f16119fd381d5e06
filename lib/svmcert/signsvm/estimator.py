"""``SignConstrainedSVC``: the sign-constrained linear SVM as a scikit-learn classifier."""

from __future__ import annotations

import contextlib
import numbers
import re

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_iterations, check_positive, check_sign, reject_sparse
from .solve import SOLVERS, solve

__all__ = ["SignConstrainedSVC"]


class SignConstrainedSVC(ClassifierMixin, BaseEstimator):
    """Linear SVM (hinge loss, no intercept) whose weights keep given signs (Tajima et al., eq. 4).

    Minimises lam/2 ||w||^2 + (1/n) sum_i max(0, 1 - y_i <x_i, w>) subject to sign_h w_h >= 0.

    Parameters
    ----------
    sign_constraints : array-like of shape (n_features,) with entries in {-1, 0, +1}, optional
        +1 forces w_h >= 0, -1 forces w_h <= 0, 0 leaves w_h free. Default: all free, which is the
        standard SVM (``LinearSVC(loss="hinge", fit_intercept=False, C=1/(lam n))``).
    lam : float > 0, optional
        The paper's lambda. If None, ``lam = 1 / (C * n_samples)``.
    C : float > 0, default 1.0
        Used only when ``lam`` is None (scikit-learn's convention).
    fit_intercept : bool, default False
        If True, an unconstrained, regularised bias is learnt as the weight of a constant feature
        equal to ``intercept_scaling`` (as in LIBLINEAR); the paper's model has no intercept.
    intercept_scaling : float > 0, default 1.0
    solver : {"auto", "dual-coordinate", "interior-point", "frank-wolfe"}, default "auto"
        See :func:`svmcert.signsvm.solve`.
    tol : float, default 1e-6
        Relative duality gap at which the solver stops.
    max_iter : int, default 1000
        Epochs (dual coordinate ascent), Newton iterations (interior point) or iterations
        (Frank-Wolfe); with ``"auto"``, the cap of whichever method runs.
    random_state : int, default 0
        Order of coordinate updates.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class.
    result_ : SolverResult
        The last fit's solver result (duality gap, iterations, history).
    n_iter_ : int

    Notes
    -----
    ``score(X, y)`` is scikit-learn's mean accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> from svmcert.signsvm import SignConstrainedSVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3)); y = np.where(X[:, 0] - X[:, 1] > 0, "yes", "no")
    >>> clf = SignConstrainedSVC(sign_constraints=[1, -1, 0], C=10.0).fit(X, y)
    >>> bool(clf.coef_[0, 0] >= 0 and clf.coef_[0, 1] <= 0), clf.classes_.tolist()
    (True, ['no', 'yes'])
    >>> bool(clf.result_.gap <= 1e-6 * clf.result_.primal), clf.score(X, y) > 0.9
    (True, True)
    """

    def __init__(self, sign_constraints=None, lam=None, C=1.0, fit_intercept=False, intercept_scaling=1.0,
                 solver="auto", tol=1e-6, max_iter=1000, random_state=0):
        self.sign_constraints = sign_constraints
        self.lam = lam
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _lam(self, n):
        if self.lam is not None:
            return check_positive(self.lam, "lam")
        return 1.0 / (check_positive(self.C, "C") * n)

    def fit(self, X, y):
        """Fit on X (n_samples, n_features) and binary labels y.

        As in scikit-learn, the labels may be any two values of one kind (numbers, strings,
        booleans): they are classes, mapped to -1 and +1 in the order of ``classes_``, and never
        parsed (the strings "1" and "2" are two classes, not the numbers 1 and 2).

        Raises
        ------
        ValueError
            Naming ``X`` or ``y``: sparse or non-numeric X, complex labels, labels of mixed
            kinds (strings and numbers), not exactly two classes, or any of scikit-learn's
            input checks.
        """
        reject_sparse(X, "X")
        _check_label_kind(y)
        with _naming_the_argument():
            X, y = validate_data(self, X, y, dtype=np.float64)
        with _naming_the_argument("y"):
            check_classification_targets(y)
        kind = type_of_target(y, input_name="y")
        self.classes_ = np.unique(y)
        if kind not in ("binary", "unknown") and self.classes_.size > 2:
            raise ValueError(f"y: Only binary classification is supported. The type of the target is {kind}.")
        if self.classes_.size != 2:
            raise ValueError(f"y: expected two classes, got {self.classes_.size} class "
                             f"({self.classes_[:5].tolist()})")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver: expected one of {SOLVERS}, got {self.solver!r}")
        ypm = np.where(y == self.classes_[1], 1.0, -1.0)
        sign = check_sign(self.sign_constraints, X.shape[1], "sign_constraints")
        lam = self._lam(X.shape[0])
        tol = check_positive(self.tol, "tol")
        max_iter = check_iterations(self.max_iter, "max_iter")
        if self.fit_intercept:
            scaling = check_positive(self.intercept_scaling, "intercept_scaling")
            X = np.hstack([X, np.full((X.shape[0], 1), scaling)])
            sign = np.append(sign, 0.0)
        key = "max_epochs" if self.solver == "dual-coordinate" else "max_iter"
        options = {key: max_iter}
        if self.solver in ("auto", "dual-coordinate"):
            options["seed"] = int(self.random_state)
        res = solve(X, ypm, lam, sign, solver=self.solver, tol=tol, **options)
        w = res.w
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[:-1][None, :], np.array([w[-1] * float(self.intercept_scaling)])
        else:
            self.coef_, self.intercept_ = w[None, :], np.zeros(1)
        self.result_ = res
        self.n_iter_ = res.n_iter
        return self

    def decision_function(self, X):
        """Signed distance-like score <w, x> (+ intercept); positive means ``classes_[1]``."""
        check_is_fitted(self)
        reject_sparse(X, "X")
        with _naming_the_argument():
            X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Class labels from the sign of :meth:`decision_function`."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]



def _check_label_kind(y) -> None:
    """Reject complex labels and labels mixing strings with numbers, naming ``y``.

    scikit-learn's combined X, y validation reports a complex y without naming it (it would be
    blamed on X here), and a mix of kinds fails in sorting with a TypeError.
    """
    try:
        arr = np.asarray(y)
    except Exception:            # ragged or exotic input: left to scikit-learn's checks
        return
    if np.iscomplexobj(arr):
        # scikit-learn's wording (check_estimator matches on it), prefixed with the argument
        raise ValueError(f"y: Complex data not supported (complex labels, dtype {arr.dtype})")
    if arr.dtype == object and arr.size:
        kinds = {"string" if isinstance(v, str) else "number" if isinstance(v, numbers.Number) else
                 type(v).__name__ for v in arr.ravel()}
        if len(kinds) > 1:
            raise ValueError(f"y: expected labels of one kind, got a mix of {sorted(kinds)}")
        if "number" in kinds and any(isinstance(v, complex) for v in arr.ravel()):
            raise ValueError("y: Complex data not supported (complex labels)")


@contextlib.contextmanager
def _naming_the_argument(default: str = "X"):
    """Make scikit-learn's input-validation errors name the argument (DESIGN.md, bad input).

    Messages that already name X or y pass unchanged; the others get a ``default:`` prefix
    (``y:`` for a length mismatch). The text after the prefix is scikit-learn's, so anything that
    matches on it (``check_estimator``) still matches.
    """
    try:
        yield
    except ValueError as exc:
        msg = str(exc)
        if re.search(r"(^|\W)[Xy](\W|$)", msg):
            raise
        name = "y" if "inconsistent numbers of samples" in msg else default
        raise ValueError(f"{name}: {msg}") from exc
