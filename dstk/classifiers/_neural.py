"""The evidential neural network classifier of Denoeux (2000)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..core._frame import Frame
from ..core._mass import MassFunction
from ._base import (
    EvidentialClassifierBase,
    aggregated_rows,
    check_distance_scale,
    check_loaded_arrays,
    kmeans_prototypes,
    minimize_lbfgs,
    require_sklearn,
    singleton_mass_function,
    squared_distances,
    unpack_parameters,
    validate_features,
    validate_targets,
)
from ._singleton_support import (
    combine_singleton_supports,
    mass_gradient_to_support,
    pignistic_output_gradient,
)

__all__ = ["EvidentialNeuralNetworkClassifier"]

_LOSSES = ("pignistic", "plausibility")
#: the largest alpha_j (evclass's proDS uses 0.99 / (1 + exp(-xi)) so that no prototype is certain)
_ALPHA_CEILING = 0.99


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class EvidentialNeuralNetworkClassifier(EvidentialClassifierBase):
    """Evidential neural network: prototypes whose evidence is pooled by Dempster's rule (Denoeux 2000).

    Each prototype ``p_j`` has a membership vector ``u_j`` over the classes and gives the sample ``x`` the
    mass function ``m_j({w_q}) = u_jq s_j``, ``m_j(Omega) = 1 - s_j`` with
    ``s_j = alpha_j exp(-gamma_j ||x - p_j||^2)``; the prototypes' mass functions are combined by
    Dempster's rule (in closed form, one product per class).  The parameters
    ``gamma_j = eta_j^2``, ``alpha_j = 0.99 / (1 + exp(-xi_j))``, ``u_jq = beta_jq^2 / sum_r beta_jr^2`` and
    the prototypes are trained by minimising the mean squared error between ``m({w_q}) + nu m(Omega)``
    and the 0/1 class indicators, plus ``regularization * sum_j alpha_j`` (Denoeux 2000, Section III),
    with L-BFGS-B and the analytic gradient.  The prototypes start at the k-means centres of the
    training set and their memberships at the class proportions of their clusters (as evclass's
    ``proDSinit``).

    Parameters
    ----------
    n_prototypes : int, default=10
        Number of prototypes.
    loss : {"pignistic", "plausibility"}, default="pignistic"
        Output compared with the class indicators: ``nu = 1 / M`` (pignistic) or ``nu = 1``.
    regularization : float, default=0.0
        Penalty ``mu`` on ``sum_j alpha_j``.
    max_iter : int, default=500
        Iterations of L-BFGS-B.
    tol : float, default=1e-7
        Relative tolerance on the loss (L-BFGS-B's ``ftol``).
    random_state : int, RandomState or None, default=None
        Seeds k-means (the only randomness).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    prototypes_ : ndarray of shape (n_prototypes, n_features)
    gamma_ : ndarray of shape (n_prototypes,)
    alpha_ : ndarray of shape (n_prototypes,)
    membership_ : ndarray of shape (n_prototypes, n_classes)
        ``u_j``, rows on the simplex.
    loss_ : float
        Final value of the training criterion.
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Notes
    -----
    The prototypes' mass functions have focal sets the singletons and ``Omega``; their commonalities
    multiply, so Dempster's rule gives ``m({w_q}) = (a_q - b) / K``, ``m(Omega) = b / K`` with
    ``a_q = prod_j (1 - s_j (1 - u_jq))`` and ``b = prod_j (1 - s_j)``, evaluated on logarithms.  The
    gradient of the criterion in every parameter is the chain rule through this closed form (checked
    against finite differences in the test suite); L-BFGS-B replaces the adaptive-step gradient descent
    of the paper.  evclass's ``proDS`` uses ``d = ||x - p||^2 / 2``; here ``d = ||x - p||^2``, which only
    rescales ``gamma``.  evclass's criterion halves the squared error (``E = mean / 2 + mu sum_j alpha_j``),
    so its ``mu`` corresponds to ``regularization / 2`` here.

    References
    ----------
    T. Denoeux (2000). A neural network classifier based on Dempster-Shafer theory. IEEE Trans. SMC-A
    30(2), 131-150.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from dstk.classifiers import EvidentialNeuralNetworkClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = EvidentialNeuralNetworkClassifier(n_prototypes=6, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    def __init__(
        self,
        n_prototypes: int = 10,
        *,
        loss: str = "pignistic",
        regularization: float = 0.0,
        max_iter: int = 500,
        tol: float = 1e-7,
        random_state: Any = None,
    ) -> None:
        self.n_prototypes = n_prototypes
        self.loss = loss
        self.regularization = regularization
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _check_params(self, n_samples: int) -> int:
        n = self.n_prototypes
        if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
            raise ValueError(f"`n_prototypes` must be a positive integer; got {n!r}.")
        if self.loss not in _LOSSES:
            raise ValueError(f"`loss` must be one of {_LOSSES}; got {self.loss!r}.")
        if (
            isinstance(self.regularization, (bool, np.bool_))
            or not isinstance(self.regularization, numbers.Real)
            or not 0 <= self.regularization < np.inf
        ):
            raise ValueError(
                f"`regularization` must be a finite non-negative number; got {self.regularization!r}."
            )
        if (
            isinstance(self.max_iter, (bool, np.bool_))
            or not isinstance(self.max_iter, numbers.Integral)
            or self.max_iter < 1
        ):
            raise ValueError(f"`max_iter` must be a positive integer; got {self.max_iter!r}.")
        if (
            isinstance(self.tol, (bool, np.bool_))
            or not isinstance(self.tol, numbers.Real)
            or not 0 < self.tol < np.inf
        ):
            raise ValueError(f"`tol` must be a positive finite number; got {self.tol!r}.")
        return int(min(n, n_samples))

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> EvidentialNeuralNetworkClassifier:
        """Place the prototypes by k-means, then train every parameter by gradient descent.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Class labels.
        sample_weight : array_like of shape (n_samples,), optional
            Weights of the samples in k-means and in the training criterion.

        Returns
        -------
        EvidentialNeuralNetworkClassifier
            ``self``, fitted.
        """
        require_sklearn("EvidentialNeuralNetworkClassifier")
        X = validate_features(self, X, reset=True)
        check_distance_scale(X, "the distances to the prototypes")
        self.classes_, labels = validate_targets(y, X.shape[0])
        n_prototypes = self._check_params(X.shape[0])
        # weights equal repetition: distinct rows, weights summed (sample_weight=0 drops a row)
        X, labels, weights = aggregated_rows(X, labels, sample_weight)
        n_classes = self.classes_.size
        self.n_classes_ = n_classes
        targets = np.eye(n_classes)[labels]

        n_distinct = np.unique(X, axis=0).shape[0]
        if self.n_prototypes > n_distinct:
            warnings.warn(
                f"`n_prototypes`={self.n_prototypes} exceeds the {n_distinct} distinct rows of X; "
                f"{n_distinct} prototypes are fitted (lower n_prototypes to silence this).",
                UserWarning,
                stacklevel=2,
            )
        n_prototypes = min(n_prototypes, n_distinct)
        kmeans = kmeans_prototypes(X, n_prototypes, weights, n_init=3, random_state=self.random_state)
        prototypes = kmeans.cluster_centers_.copy()
        beta = np.full((n_prototypes, n_classes), 1.0 / np.sqrt(n_classes))
        for j in range(n_prototypes):
            members = kmeans.labels_ == j
            if members.any():
                share = np.average(targets[members], axis=0, weights=weights[members])
                beta[j] = np.sqrt(share + 1e-3)
        squared = ((X - prototypes[kmeans.labels_]) ** 2).sum(axis=1)
        spread = float(np.average(squared, weights=weights))
        eta = np.full(n_prototypes, 1.0 / np.sqrt(spread) if spread > 0 else 1.0)
        xi = np.zeros(n_prototypes)
        shapes = [(n_prototypes, X.shape[1]), (n_prototypes,), (n_prototypes, n_classes), (n_prototypes,)]
        frame_share = 1.0 / n_classes if self.loss == "pignistic" else 1.0

        def objective(theta):
            return _network_loss(theta, shapes, X, targets, weights, frame_share, float(self.regularization))

        theta0 = np.concatenate([prototypes.ravel(), eta, beta.ravel(), xi])
        result = minimize_lbfgs(
            objective, theta0, max_iter=self.max_iter, tol=self.tol, name="EvidentialNeuralNetworkClassifier"
        )
        prototypes, eta, beta, xi = unpack_parameters(result.x, shapes)
        self.prototypes_ = prototypes
        self.gamma_ = eta**2
        self.alpha_ = _ALPHA_CEILING * _sigmoid(xi)
        beta2 = beta**2 + 1e-300
        self.membership_ = beta2 / beta2.sum(axis=1, keepdims=True)
        self.loss_ = float(result.fun)
        self.n_iter_ = int(result.nit)
        return self

    def predict_mass(self, X: ArrayLike) -> MassFunction:
        """Combined evidence of the prototypes, one mass function per sample.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)`` on ``Frame(classes_)``; the focal sets are the singletons and the
            frame.
        """
        return singleton_mass_function(*self._singleton_form(X), Frame(self.classes_.tolist()))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or skops-loaded network, refusing arrays no fit produces (shapes, inf, alpha > 1)."""
        super().__setstate__(state)
        k = np.shape(self.alpha_)[0] if np.ndim(getattr(self, "alpha_", 0)) == 1 else -1
        c = int(getattr(self, "n_classes_", -1))
        p = int(getattr(self, "n_features_in_", -1))
        check_loaded_arrays(
            self,
            {"prototypes_": (k, p), "gamma_": (k,), "alpha_": (k,), "membership_": (k, c), "classes_": (c,)},
            at_most_one=("alpha_",),
        )

    def _singleton_form(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        self._check_fitted()
        X = validate_features(self, X, reset=False)
        squared = squared_distances(X, self.prototypes_)
        support = self.alpha_ * np.exp(-self.gamma_ * squared)
        combination = combine_singleton_supports(
            support, membership=self.membership_, n_classes=self.n_classes_
        )
        return combination.singletons, combination.frame


def _network_loss(theta, shapes, X, targets, weights, frame_share, regularization):
    """Training criterion of Denoeux (2000) (weighted mean squared error + penalty) and its gradient."""
    prototypes, eta, beta, xi = unpack_parameters(theta, shapes)
    gamma = eta**2
    sig = _sigmoid(xi)
    alpha = _ALPHA_CEILING * sig
    beta2 = beta**2
    total = beta2.sum(axis=1, keepdims=True) + 1e-300
    membership = beta2 / total
    squared = squared_distances(X, prototypes)
    exponential = np.exp(-gamma * squared)
    support = alpha * exponential
    combination = combine_singleton_supports(support, membership=membership, n_classes=targets.shape[1])
    _, grad_singletons, grad_frame = pignistic_output_gradient(combination, targets, frame_share)
    residual = combination.singletons + frame_share * combination.frame[:, None] - targets
    loss = float(weights @ (residual**2).sum(axis=1)) + regularization * float(alpha.sum())
    grad_singletons = grad_singletons * weights[:, None]
    grad_frame = grad_frame * weights
    grad_support, grad_membership = mass_gradient_to_support(
        combination, grad_singletons, grad_frame, support, membership=membership
    )
    assert grad_membership is not None  # soft memberships give their gradient
    grad_u = grad_membership.sum(axis=0)  # (P, M)
    grad_beta = 2.0 * beta * (grad_u - (grad_u * membership).sum(axis=1, keepdims=True)) / total
    grad_alpha = (grad_support * exponential).sum(axis=0) + regularization
    grad_xi = grad_alpha * _ALPHA_CEILING * sig * (1.0 - sig)
    g_s = grad_support * support  # (n, P)
    grad_gamma = -(g_s * squared).sum(axis=0)
    grad_eta = 2.0 * eta * grad_gamma
    # d squared / d p_j = -2 (x - p_j);  d support / d squared = -gamma s
    grad_prototypes = 2.0 * gamma[:, None] * (g_s.T @ X - g_s.sum(axis=0)[:, None] * prototypes)
    grad = np.concatenate([grad_prototypes.ravel(), grad_eta, grad_beta.ravel(), grad_xi])
    return loss, grad
