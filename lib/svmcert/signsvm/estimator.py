"""``SignConstrainedSVC``: the sign-constrained linear SVM as a scikit-learn classifier."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_positive, check_sign, check_squares
from ..exceptions import ConvergenceWarning
from ._estimator_input import (check_flag, check_label_kind, check_max_iter, check_seed, class_weights,
                               naming_the_argument, problem_weights, regularisation, sample_weights)
from .problem import SignSVMProblem, canonical_csr, is_sparse
from .solve import SOLVERS, solve_problem

__all__ = ["SignConstrainedSVC"]


class SignConstrainedSVC(LinearClassifierMixin, SparseCoefMixin, BaseEstimator):
    """Linear SVM (hinge loss) whose weights keep given signs (Tajima et al., problem 4), with
    ``LinearSVC``'s interface.

    For two classes it minimises

        lam/2 ||w||^2 + (1/n) sum_i s_i max(0, 1 - y_i <x_i, w>)   subject to sign_h w_h >= 0,

    with y_i = +1 for ``classes_[1]`` and -1 for ``classes_[0]``, and s_i = ``sample_weight[i]``
    times the weight of sample i's class (all 1 by default: the paper's problem, eq. 4). With
    ``lam = 1/(C n)`` this is ``LinearSVC(loss="hinge", dual=True)``'s problem
    1/2 ||w||^2 + C sum_i s_i max(0, 1 - y_i <x_i, w>), divided by C n, plus the sign
    constraints. Every fit is certified: the solver stops when the relative duality gap
    (P(w) - D(alpha)) / P(w) of eq. (10), computed for the weighted problem, is below ``tol``, and
    ``result_`` holds that certificate. More than two classes are fitted one-vs-rest, as
    ``LinearSVC`` does.

    Parameters
    ----------
    sign_constraints : array-like of shape (n_features,) with entries in {-1, 0, +1}, default None
        +1 forces w_h >= 0, -1 forces w_h <= 0, 0 leaves w_h free; the same constraints hold in
        every one-vs-rest problem. None: all free, the standard SVM.
    lam : float > 0, default None
        The paper's lambda. None: ``lam = 1 / (C * n_samples)``.
    C : float > 0, default 1.0
        scikit-learn's inverse regularisation, used only when ``lam`` is None. With ``C``, the
        problem does not depend on n except through the data (an integer ``sample_weight`` equals
        repeating the rows); with ``lam``, the losses are averaged over the n rows.
    fit_intercept : bool, default False
        If True, an unconstrained bias is learnt as the weight of a constant feature equal to
        ``intercept_scaling``, regularised like the other weights (LIBLINEAR's and ``LinearSVC``'s
        meaning; ``intercept_ = intercept_scaling * that weight``). The default is the paper's
        model, which has no intercept (``LinearSVC``'s default is True).
    intercept_scaling : float > 0, default 1.0
        The value of the constant feature; a larger value regularises the intercept less.
    class_weight : dict, "balanced" or None, default None
        Multiplies each sample's weight by its class's weight: a dict ``{class: weight}`` (classes
        left out weigh 1; a key that is not a class of ``y`` is an error), or ``"balanced"``:
        ``n_samples / (n_classes * count of the class)``, the counts weighted by ``sample_weight``.
        In a one-vs-rest problem for class k, the samples of class k get k's weight and the rest
        weight 1 (``LinearSVC``'s rule, from LIBLINEAR).
    solver : {"auto", "dual-coordinate", "interior-point", "frank-wolfe"}, default "auto"
        See :func:`svmcert.signsvm.solve`. Sparse X is read without densifying by every solver;
        ``"auto"`` keeps the interior-point method to sparse problems with min(n, d) <= 4000.
    tol : float > 0, default 1e-6
        Relative duality gap at which the solver stops (the default of :func:`~svmcert.signsvm.solve`).
    max_iter : int >= 1 or None, default None
        None: each solver's own budget, the one :func:`~svmcert.signsvm.solve` uses (``"auto"``:
        its plan, at most 200 interior-point iterations; ``"dual-coordinate"``: 10 000 passes;
        ``"interior-point"``: 200 iterations; ``"frank-wolfe"``: 10 000 iterations). An integer caps
        the passes (coordinate ascent), Newton iterations (interior point) or iterations
        (Frank-Wolfe) of whichever method runs. Stopping at the cap emits
        :class:`svmcert.exceptions.ConvergenceWarning` (a subclass of scikit-learn's).
    warm_start : bool, default False
        If True and the previous fit had the same classes and number of samples, start each
        problem from its previous dual point (clipped to the new box): used by coordinate ascent
        (also the first stage of ``"auto"``) and Frank-Wolfe; the interior-point method always
        starts from its own interior point.
    random_state : int >= 0, default 0
        Seeds the order of the coordinate updates (coordinate ascent); the fit is deterministic.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) for two classes, (n_classes, n_features) otherwise
    intercept_ : ndarray of shape (1,) or (n_classes,); zeros when ``fit_intercept`` is False
    classes_ : ndarray of shape (n_classes,); for two classes ``classes_[1]`` is the positive one
    results_ : list of :class:`~svmcert.signsvm.SolverResult`, one per binary problem (one for
        two classes, one per class for one-vs-rest): w, alpha, primal, dual, gap, iterations.
    result_ : :class:`~svmcert.signsvm.SolverResult`: the only problem's for two classes; for
        one-vs-rest, the problem with the largest relative duality gap (the fit's weakest
        certificate).
    n_iter_ : int, the largest number of iterations over the binary problems (``LinearSVC``'s
        convention; per problem: ``results_[k].n_iter``)
    converged_ : bool, whether every binary problem reached ``tol``
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray
        Names of the features, when X has column names.

    See Also
    --------
    svmcert.signsvm.solve : the solver behind ``fit``, on arrays with labels +-1 (scikit-learn's
        ``LinearSVC`` solves the unconstrained problem, ``sign_constraints=None``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from svmcert.signsvm import SignConstrainedSVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 3))
    >>> y = np.where(X[:, 0] - X[:, 2] + 0.3 * rng.standard_normal(200) > 0, "yes", "no")
    >>> clf = SignConstrainedSVC(sign_constraints=[1, 1, -1], C=1.0).fit(X, y)
    >>> clf.classes_.tolist(), clf.coef_.shape, bool(clf.converged_)
    (['no', 'yes'], (1, 3), True)
    >>> bool(np.all(clf.coef_[0] * [1, 1, -1] >= 0))
    True
    >>> bool(clf.result_.gap <= 1e-6 * clf.result_.primal)       # the certificate of eq. (10)
    True
    >>> weights = np.where(y == "yes", 2.0, 1.0)                  # sample_weight, through a Pipeline
    >>> pipe = make_pipeline(StandardScaler(), SignConstrainedSVC(sign_constraints=[1, 1, -1]))
    >>> pipe.fit(X, y, signconstrainedsvc__sample_weight=weights).score(X, y) > 0.9
    True
    """

    def __init__(self, sign_constraints=None, lam=None, C=1.0, fit_intercept=False, intercept_scaling=1.0,
                 solver="auto", tol=1e-6, max_iter=None, random_state=0, class_weight=None, warm_start=False):
        self.sign_constraints = sign_constraints
        self.lam = lam
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True        # CSR rows are read directly; other formats converted
        # scikit-learn's tag for a model that cannot reach its "reasonable" test score: without an
        # intercept (the paper's model, our default) the decision boundary passes through the
        # origin, and check_class_weight_classifiers asks for one class on 87% of raw, off-centre
        # blobs, which no such boundary gives (LinearSVC(fit_intercept=False) scores 0.52 and 0.6
        # there, as we do). With fit_intercept=True every score assertion applies.
        tags.classifier_tags.poor_score = not bool(self.fit_intercept)
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features), dense or sparse, and class labels y.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Sparse input is converted to CSR (if it is not) and never densified.
        y : array-like of shape (n_samples,)
            Class labels: any values of one kind (numbers, strings, booleans), at least two
            classes. They are classes, never parsed (the strings "1" and "2" are two classes,
            not the numbers 1 and 2).
        sample_weight : array-like of shape (n_samples,) or float, default None
            Weights s_i >= 0 multiplying each sample's hinge loss (in the dual, the box
            0 <= alpha_i <= s_i); 0 removes the sample. None: all 1.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Naming the argument: X (non-numeric, NaN/inf, empty, complex), y (complex, mixed
            kinds, continuous, fewer than two classes, wrong length), sample_weight (wrong
            shape, negative, NaN/inf, all zero, or leaving fewer than two classes with positive
            weight), class_weight (not None/"balanced"/dict, keys that are not classes, negative
            weights), sign_constraints (entries outside {-1, 0, 1}, length != n_features), lam,
            C, tol, max_iter, intercept_scaling, fit_intercept, warm_start, solver.
        """
        check_label_kind(y)
        with naming_the_argument():
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        with naming_the_argument("y"):
            check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"y: expected at least two classes, got 1 class ({classes.tolist()!r})")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver: expected one of {SOLVERS}, got {self.solver!r}")
        n, d = X.shape
        sign = check_sign(self.sign_constraints, d, "sign_constraints")
        lam = regularisation(self.lam, self.C, n)
        tol = check_positive(self.tol, "tol")
        max_iter = check_max_iter(self.max_iter)
        fit_intercept = check_flag(self.fit_intercept, "fit_intercept")
        warm = check_flag(self.warm_start, "warm_start") and self._can_warm_start(classes, n)
        sw = sample_weights(sample_weight, n)
        cw = class_weights(self.class_weight, classes, y, sw)
        self._check_two_weighted_classes(classes, codes, sw, cw)
        X = check_squares(self._design(X, fit_intercept), "X, intercept_scaling" if fit_intercept else "X")
        if fit_intercept:
            sign = np.append(sign, 0.0)

        binary = classes.size == 2
        problems = [(codes == 1, None)] if binary else [(codes == k, k) for k in range(classes.size)]
        options = {} if max_iter is None else {"max_epochs" if self.solver == "dual-coordinate" else "max_iter": max_iter}
        if self.solver in ("auto", "dual-coordinate"):
            options["seed"] = check_seed(self.random_state)
        results = []
        for j, (positive, k) in enumerate(problems):
            ypm = np.where(positive, 1.0, -1.0)
            start = self.results_[j].alpha if warm else None
            # X, y, sign and the weights are checked above, once: the solver takes the problem as it is
            p = SignSVMProblem(X, ypm, lam, sign, problem_weights(codes, k, sw, cw))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)     # one warning per fit, below
                results.append(solve_problem(p, solver=self.solver, tol=tol, start=start, **options))
        self._store(classes, results, fit_intercept)
        self._warn_if_not_converged(tol)
        return self

    def decision_function(self, X):
        """Scores <w, x> + intercept: shape (n_samples,) for two classes (positive means
        ``classes_[1]``), (n_samples, n_classes) for one-vs-rest. X may be sparse."""
        check_is_fitted(self)
        with naming_the_argument():
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    # predict (LinearClassifierMixin): classes_[score > 0] for two classes, the argmax otherwise

    # ------------------------------------------------------------------ behind the door

    def _can_warm_start(self, classes, n) -> bool:
        previous = getattr(self, "results_", None)
        return (previous is not None and np.array_equal(getattr(self, "classes_", None), classes)
                and all(r.alpha is not None and r.alpha.shape == (n,) for r in previous))

    def _check_two_weighted_classes(self, classes, codes, sw, cw) -> None:
        if sw is None and cw is None:
            return
        s = np.ones(codes.size) if sw is None else sw
        s = s if cw is None else s * cw[codes]
        kept = [c for k, c in enumerate(classes.tolist()) if np.any(s[codes == k] > 0)]
        if len(kept) < 2:
            name = "class_weight" if sw is None else "sample_weight" if cw is None else "sample_weight and class_weight"
            raise ValueError(f"{name}: only the class {kept!r} keeps a positive weight; a classifier needs two "
                             f"classes")

    def _design(self, X, fit_intercept):
        """X as the solvers read it: canonical CSR when sparse, with the constant feature appended."""
        if fit_intercept:
            scaling = check_positive(self.intercept_scaling, "intercept_scaling")
            if is_sparse(X):
                from scipy import sparse

                X = sparse.hstack([X, np.full((X.shape[0], 1), scaling)], format="csr")
            else:
                X = np.hstack([X, np.full((X.shape[0], 1), scaling)])
        return canonical_csr(X) if is_sparse(X) else X

    def _store(self, classes, results, fit_intercept) -> None:
        W = np.array([r.w for r in results])
        if fit_intercept:
            self.coef_, self.intercept_ = W[:, :-1], W[:, -1] * float(self.intercept_scaling)
        else:
            self.coef_, self.intercept_ = W, np.zeros(W.shape[0])
        self.classes_ = classes
        self.results_ = results
        rel = [r.gap / max(r.primal, np.finfo(float).tiny) for r in results]
        self.result_ = results[int(np.argmax(rel))]
        self.n_iter_ = int(max(r.n_iter for r in results))
        self.converged_ = bool(all(r.converged for r in results))

    def _warn_if_not_converged(self, tol) -> None:
        labels = self.classes_.tolist()
        stopped = [(c, r) for c, r in zip(labels[1:] if len(self.results_) == 1 else labels, self.results_)
                   if not r.converged]
        if stopped:
            where = ", ".join(f"{c!r}: relative gap {r.gap / max(r.primal, np.finfo(float).tiny):.3g} after "
                              f"{r.n_iter} iterations" for c, r in stopped)
            warnings.warn(f"SignConstrainedSVC: the solver stopped before the relative duality gap reached "
                          f"tol={tol:g} (class {where}); increase max_iter or use solver='auto'",
                          ConvergenceWarning, stacklevel=3)
