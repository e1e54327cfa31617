"""The evidential k-nearest-neighbour classifier (Denoeux 1995; Zouhal & Denoeux 1998; Denoeux et al. 2019)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from .._estimator import check_loaded_state
from .._validation import check_random_state
from ..core._dense import check_dense_size, m_to, to_m
from ..core._frame import Frame
from ..core._mass import MassFunction
from ..core._structured import WeightStorage
from ..core._transforms import contextual_discount
from ..exceptions import ConvergenceWarning, FrameTooLargeError
from ._base import (
    EvidentialClassifierBase,
    check_distance_scale,
    check_loaded_arrays,
    require_sklearn,
    singleton_mass_function,
    validate_features,
    validate_targets,
)
from ._singleton_support import (
    combine_singleton_supports,
    mass_gradient_to_support,
    pignistic_output_gradient,
)

__all__ = ["EvidentialKNNClassifier"]

_DISCOUNTINGS = ("simple", "contextual")
_LOSSES = ("pignistic", "plausibility")
#: rows of (neighbour x subset) values formed at once on the dense paths
_DENSE_BLOCK = 2**22
#: at most this many points of a class enter the mean within-class distance of the initial gamma
_INIT_SAMPLE = 1000


def _subset_membership(n_classes: int) -> np.ndarray:
    """``(2**M, M)`` 0/1 matrix: does subset A (bitmask) contain class k."""
    masks = np.arange(2**n_classes)
    return ((masks[:, None] >> np.arange(n_classes)) & 1).astype(np.float64)


class EvidentialKNNClassifier(EvidentialClassifierBase):
    """Evidential k-nearest-neighbour classifier: the neighbours' evidence pooled by Dempster's rule.

    Each of the ``k`` nearest training points ``x_i`` (of class ``w_q``) of a sample is a piece of
    evidence ``m_i({w_q}) = alpha exp(-gamma_q d_i^2)``, ``m_i(Omega) = 1 - m_i({w_q})``, with ``d_i`` the
    distance to the sample; the ``k`` mass functions are combined by Dempster's rule (Denoeux 1995).  The
    combination is computed in closed form, one product per class, for the whole batch (no fold over the
    neighbours).  With ``gamma=None`` the scales ``gamma_q`` are learned by minimising the leave-one-out
    squared error between the combined output and the 0/1 class indicators on the training set, with the
    analytic gradient of Zouhal & Denoeux (1998).

    Training labels may be mass functions (partially supervised learning, Denoeux 1995, Section IV; Denoeux,
    Kanjanatarakul & Sriboonchitta 2019): pass ``y`` as a batched :class:`~dstk.MassFunction`.  With
    ``discounting="contextual"`` each neighbour's label is contextually discounted with rate
    ``1 - alpha exp(-gamma_k d_i^2)`` in the context of class ``k`` (Mercier, Quost & Denoeux 2008) and the
    combined contour function is the product ``pl(w_k) = prod_i (1 - alpha exp(-gamma_k d_i^2) (1 -
    pl_i(w_k)))`` of the neighbours' contours, the model of Denoeux, Kanjanatarakul & Sriboonchitta (2019),
    whose ``gamma_k`` are learned on the normalised contour.

    Parameters
    ----------
    n_neighbors : int, default=10
        Number of neighbours ``k``.
    alpha : float, default=0.95
        Maximal support a neighbour gives, in (0, 1).
    gamma : None, float or array_like of shape (n_classes,), default=None
        Scale ``gamma_q`` of the squared distances (per class, or one for all).  ``None`` learns it.
    discounting : {"simple", "contextual"}, default="simple"
        ``"simple"``: Denoeux (1995), each neighbour's label discounted with one rate.  ``"contextual"``:
        Denoeux, Kanjanatarakul & Sriboonchitta (2019), one discount rate per class.
    loss : {"pignistic", "plausibility"}, default="pignistic"
        For ``discounting="simple"``: the output compared with the class indicators when ``gamma`` is
        learned, ``m({w_q}) + m(Omega) / M`` or ``m({w_q}) + m(Omega)`` (Zouhal & Denoeux 1998).  The
        contextual model is always trained on its normalised contour function.
    metric : str or callable, default="euclidean"
        Any metric of :class:`sklearn.neighbors.NearestNeighbors`.
    metric_params : dict, optional
        Extra arguments of the metric.
    algorithm : {"auto", "ball_tree", "kd_tree", "brute"}, default="auto"
        Neighbour search algorithm of :class:`sklearn.neighbors.NearestNeighbors`.
    max_iter : int, default=300
        Iterations of L-BFGS-B when ``gamma`` is learned.
    n_jobs : int, optional
        Parallel jobs of the neighbour search.
    random_state : int, RandomState or None, default=None
        Draws the (at most 1,000) points per class whose mean pairwise distance sets the initial ``gamma``
        (as in evclass's ``EkNNinit``); only classes larger than that use randomness.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    gamma_ : ndarray of shape (n_classes,)
        The scales used for prediction (learned or given).
    loss_ : float or None
        Mean leave-one-out training loss at ``gamma_`` (None when ``gamma`` is given).
    n_iter_ : int
        Iterations of the optimiser; 1 when ``gamma`` is given (the one pass
        that indexes the samples: scikit-learn's ``n_iter_ >= 1`` for
        estimators with ``max_iter``).
    nearest_neighbors_ : sklearn.neighbors.NearestNeighbors
        The fitted neighbour index.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Notes
    -----
    With ``s_i = alpha exp(-gamma_{c_i} d_i^2)`` and ``I_q`` the neighbours of class ``q``, Dempster's rule
    gives ``m({w_q}) = (1 - prod_{I_q} (1 - s_i)) prod_{r != q} prod_{I_r} (1 - s_i) / K`` and
    ``m(Omega) = prod_i (1 - s_i) / K`` (the pooling of Denoeux 1995 written per class); dstk evaluates it on
    logarithms for the whole batch.  The initial ``gamma_q`` is the inverse of the mean distance between
    the training points of class ``q`` (evclass's ``EkNNinit``, in the scale of Zouhal & Denoeux 1998); the
    learned ``gamma_q`` minimise the leave-one-out criterion by L-BFGS-B on ``log gamma_q``.  With labels
    given as mass functions and simple discounting, one ``gamma`` is learned by bounded Brent search on the
    same criterion with the labels' pignistic probabilities (or contours) as targets.

    References
    ----------
    T. Denoeux (1995). A k-nearest neighbor classification rule based on Dempster-Shafer theory. IEEE
    Trans. SMC 25(5), 804-813.
    L. M. Zouhal & T. Denoeux (1998). An evidence-theoretic k-NN rule with parameter optimization. IEEE
    Trans. SMC-C 28(2), 263-271.
    T. Denoeux, O. Kanjanatarakul & S. Sriboonchitta (2019). A new evidential K-nearest neighbor rule based
    on contextual discounting with partially supervised learning. IJAR 113, 287-302.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from dstk.classifiers import EvidentialKNNClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = EvidentialKNNClassifier(n_neighbors=5).fit(X, y)
    >>> m = clf.predict_mass(X[:2])
    >>> m.frame.labels
    (0, 1, 2)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    def __init__(
        self,
        n_neighbors: int = 10,
        *,
        alpha: float = 0.95,
        gamma: Any = None,
        discounting: str = "simple",
        loss: str = "pignistic",
        metric: Any = "euclidean",
        metric_params: dict | None = None,
        algorithm: str = "auto",
        max_iter: int = 300,
        n_jobs: int | None = None,
        random_state: Any = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.gamma = gamma
        self.discounting = discounting
        self.loss = loss
        self.metric = metric
        self.metric_params = metric_params
        self.algorithm = algorithm
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> None:
        if (
            not isinstance(self.n_neighbors, numbers.Integral)
            or isinstance(self.n_neighbors, bool)
            or self.n_neighbors < 1
        ):
            raise ValueError(f"`n_neighbors` must be a positive integer; got {self.n_neighbors!r}.")
        try:  # a string or a bool would pass float() and then break (or bend) the formulas
            if isinstance(self.alpha, (str, bytes, bool, np.bool_)):
                raise TypeError
            alpha = float(self.alpha)
        except (TypeError, ValueError):
            raise ValueError(
                f"`alpha` must be a number in (0, 1); got {self.alpha!r}. The usual value is 0.95."
            ) from None
        if not 0.0 < alpha < 1.0:
            raise ValueError(
                f"`alpha` must lie in (0, 1) (a neighbour at distance 0 must not be certain evidence); "
                f"got {self.alpha!r}. The usual value is 0.95."
            )
        if self.discounting not in _DISCOUNTINGS:
            raise ValueError(f"`discounting` must be one of {_DISCOUNTINGS}; got {self.discounting!r}.")
        if self.loss not in _LOSSES:
            raise ValueError(f"`loss` must be one of {_LOSSES}; got {self.loss!r}.")
        if (
            not isinstance(self.max_iter, numbers.Integral)
            or isinstance(self.max_iter, bool)
            or self.max_iter < 1
        ):
            raise ValueError(f"`max_iter` must be a positive integer; got {self.max_iter!r}.")

    def _check_gamma(self, n_classes: int, mass_labels: bool) -> np.ndarray | None:
        if self.gamma is None:
            return None
        try:
            gamma = np.asarray(self.gamma, dtype=np.float64) if not isinstance(self.gamma, str) else None
        except (TypeError, ValueError):
            gamma = None
        if gamma is None or gamma.ndim > 1 or (gamma.ndim == 1 and gamma.size != n_classes):
            raise ValueError(
                f"`gamma` must be None, a positive number or an array of one positive number per class "
                f"({n_classes} classes); got {self.gamma!r}."
            )
        if not np.all(np.isfinite(gamma)) or np.any(gamma <= 0):
            raise ValueError(f"`gamma` must be positive and finite; got {self.gamma!r}.")
        if mass_labels and self.discounting == "simple" and gamma.ndim == 1 and np.ptp(gamma) > 0:
            raise ValueError(
                "With labels given as mass functions and discounting='simple', a neighbour has no single "
                "class, so one `gamma` serves all classes; pass a float, or use discounting='contextual' "
                "for one gamma per class."
            )
        return np.broadcast_to(gamma, (n_classes,)).astype(np.float64)

    # --------------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: Any) -> EvidentialKNNClassifier:
        """Index the training set and set (or learn) the scales ``gamma_q``.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Training features.
        y : array_like of shape (n_samples,) or MassFunction of batch shape (n_samples,)
            Class labels, or labels as mass functions on the frame of the classes (partially supervised
            learning: uncertain or set-valued labels).

        Returns
        -------
        EvidentialKNNClassifier
            ``self``, fitted.
        """
        require_sklearn("EvidentialKNNClassifier")
        from sklearn.neighbors import NearestNeighbors

        self._check_params()
        X = validate_features(self, X, reset=True)
        if isinstance(y, MassFunction):
            if y.batch_shape != (X.shape[0],):
                raise ValueError(
                    f"Labels given as a MassFunction must have batch shape (n_samples,) = ({X.shape[0]},); "
                    f"got {y.batch_shape}."
                )
            frame = y.frame
            if frame.n < 2:
                raise ValueError(
                    f"Labels given as a MassFunction must be on a frame of at least two classes; got "
                    f"{frame!r}, and one class is not enough to classify. Add the other classes to the frame."
                )
            check_dense_size(frame.n, X.shape[0], "the training labels")
            self.classes_ = np.array(frame.labels)
            label_masses = y.to_array("m").copy()
            label_masses[:, 0] = 0.0  # labels are normalised: a label never says 'no class'
            total = label_masses.sum(axis=1, keepdims=True)
            if np.any(total <= 0):
                raise ValueError("A training label gives all its mass to the empty set; give it a class set.")
            self._label_masses = label_masses / total
            self._labels = None
        else:
            self.classes_, self._labels = validate_targets(y, X.shape[0])
            self._label_masses = None
        n_classes = self.classes_.size
        self.n_classes_ = n_classes
        self.nearest_neighbors_ = NearestNeighbors(
            metric=self.metric, metric_params=self.metric_params, algorithm=self.algorithm, n_jobs=self.n_jobs
        ).fit(X)
        self._fit_X = X
        gamma = self._check_gamma(n_classes, self._label_masses is not None)
        self.loss_ = None
        self.n_iter_ = 1
        if gamma is None:
            check_distance_scale(X, "the neighbour distances that learn gamma")
            gamma = self._initial_gamma(X)
            k = min(self.n_neighbors, X.shape[0] - 1)
            if k >= 1:
                from threadpoolctl import threadpool_limits

                distances, indices = self.nearest_neighbors_.kneighbors(n_neighbors=k)  # leave-one-out
                # small array operations per iteration: BLAS threads only add synchronisation
                with threadpool_limits(limits=1, user_api="blas"):
                    gamma, self.loss_, self.n_iter_ = self._learn_gamma(distances**2, indices, gamma)
        self.gamma_ = gamma
        return self

    def _initial_gamma(self, X: np.ndarray) -> np.ndarray:
        """``1 / mean distance between points of the class`` (evclass's EkNNinit, in Zouhal's scale)."""
        from sklearn.metrics import pairwise_distances

        rng = check_random_state(self.random_state)
        if self._labels is not None:
            groups = [np.flatnonzero(self._labels == q) for q in range(self.n_classes_)]
        else:  # each class's points: labels whose pignistic probability is largest on it
            betp = self._label_pignistic()
            main = np.argmax(betp, axis=1)
            groups = [np.flatnonzero(main == q) for q in range(self.n_classes_)]
        everything = np.arange(X.shape[0])
        means = []
        for group in groups + [everything]:
            if group.size > _INIT_SAMPLE:
                group = rng.choice(group, _INIT_SAMPLE, replace=False)
            if group.size < 2:
                means.append(np.nan)
                continue
            if isinstance(self.metric, str) and self.metric == "precomputed":  # X holds the distances
                distances = X[np.ix_(group, group)]
            else:
                distances = pairwise_distances(X[group], metric=self.metric, **(self.metric_params or {}))
            upper = distances[np.triu_indices(group.size, 1)]
            means.append(float(upper.mean()))
        mean_distance = np.array(means)
        fallback = mean_distance[-1] if np.isfinite(mean_distance[-1]) and mean_distance[-1] > 0 else 1.0
        per_class = np.where(
            np.isfinite(mean_distance[:-1]) & (mean_distance[:-1] > 0), mean_distance[:-1], fallback
        )
        gamma = 1.0 / per_class
        if self._label_masses is not None and self.discounting == "simple":
            gamma = np.full(self.n_classes_, 1.0 / fallback)
        return gamma

    def _label_pignistic(self) -> np.ndarray:
        return MassFunction._dense(self._label_masses, Frame(self.classes_.tolist())).pignistic()

    def _label_contour(self) -> np.ndarray:
        if self._labels is not None:
            return np.eye(self.n_classes_)[self._labels]
        membership = _subset_membership(self.n_classes_)
        return self._label_masses @ membership

    # ------------------------------------------------------------ learning
    def _learn_gamma(
        self, squared: np.ndarray, indices: np.ndarray, gamma0: np.ndarray
    ) -> tuple[np.ndarray, float, int]:
        n = squared.shape[0]
        if self.discounting == "contextual":
            targets_contour = self._label_contour()
            targets = targets_contour / targets_contour.sum(axis=1, keepdims=True)
            neighbour_contour = targets_contour[indices]  # (n, k, M)

            def objective(theta):
                loss, grad = _contextual_loss(np.exp(theta), self.alpha, squared, neighbour_contour, targets)
                return loss / n, grad * np.exp(theta) / n

        elif self._labels is not None:
            targets = np.eye(self.n_classes_)[self._labels]
            neighbour_labels = self._labels[indices]
            share = 1.0 / self.n_classes_ if self.loss == "pignistic" else 1.0

            def objective(theta):
                gamma = np.exp(theta)
                loss, grad = _simple_loss(gamma, self.alpha, squared, neighbour_labels, targets, share)
                return loss / n, grad * gamma / n

        else:  # mass labels, simple discounting: one gamma, Brent's method on log(gamma)
            return self._learn_shared_gamma(squared, indices, gamma0)
        theta0 = np.log(gamma0)
        result = optimize.minimize(
            objective,
            theta0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(t - 25.0, t + 25.0) for t in theta0],
            options={"maxiter": self.max_iter},
        )
        if not result.success and result.nit >= self.max_iter:
            import warnings

            warnings.warn(
                f"Learning gamma stopped after max_iter={self.max_iter} iterations before convergence; "
                "increase `max_iter`.",
                ConvergenceWarning,
                stacklevel=3,
            )
        return np.exp(result.x), float(result.fun), int(result.nit)

    def _learn_shared_gamma(self, squared, indices, gamma0):
        frame_share = 1.0 / self.n_classes_ if self.loss == "pignistic" else 1.0
        frame = Frame(self.classes_.tolist())
        label_masses = self._label_masses
        targets_mass = MassFunction._dense(label_masses, frame)
        targets = targets_mass.pignistic() if self.loss == "pignistic" else self._label_contour()
        del frame_share

        def objective(theta):
            support = self.alpha * np.exp(-np.exp(theta) * squared)
            m = _combine_mass_labels(support, label_masses, indices)
            output = (
                MassFunction._dense(m, frame).pignistic()
                if self.loss == "pignistic"
                else m @ _subset_membership(self.n_classes_)
            )
            return float(((output - targets) ** 2).sum()) / squared.shape[0]

        center = float(np.log(gamma0[0]))
        result = optimize.minimize_scalar(objective, bounds=(center - 12.0, center + 12.0), method="bounded")
        return np.full(self.n_classes_, float(np.exp(result.x))), float(result.fun), int(result.nfev)

    # ------------------------------------------------------------- persistence
    def __getstate__(self) -> dict[str, Any]:
        """State without the neighbour index (rebuilt from the training points on load).

        Pickle and skops then store only numpy arrays and dstk's own types: scikit-learn's tree classes
        are not on skops's trusted list.
        """
        state = dict(self.__dict__)
        if "nearest_neighbors_" in state:
            state["nearest_neighbors_"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        check_loaded_state(self)
        c = int(getattr(self, "n_classes_", -1))
        check_loaded_arrays(
            self,
            {"gamma_": (c,), "classes_": (c,), "_fit_X": (-1, int(getattr(self, "n_features_in_", -1)))},
            positive=("gamma_",),
        )
        self._check_loaded_options_and_labels(c)
        if "nearest_neighbors_" in state and state["nearest_neighbors_"] is None:
            from sklearn.neighbors import NearestNeighbors

            self.nearest_neighbors_ = NearestNeighbors(
                metric=self.metric,
                metric_params=self.metric_params,
                algorithm=self.algorithm,
                n_jobs=self.n_jobs,
            ).fit(self._fit_X)

    def _check_loaded_options_and_labels(self, n_classes: int) -> None:
        """Refuse options and training labels no fit accepts or produces (a tampered file)."""
        from ..exceptions import InvalidStateError

        def refuse(problem: str) -> None:
            raise InvalidStateError(
                f"The loaded {type(self).__name__} is not a fitted state: {problem}. The file was modified or "
                "corrupted after saving; fit the estimator again or load a file you trust."
            )

        if "_fit_X" not in vars(self):  # unfitted: fit checks the options
            return
        try:
            self._check_params()
        except ValueError as error:
            refuse(str(error).rstrip("."))
        n_samples = np.shape(self._fit_X)[0]
        labels = getattr(self, "_labels", None)
        masses = getattr(self, "_label_masses", None)
        if labels is not None:
            labels = np.asarray(labels)
            if (
                labels.shape != (n_samples,)
                or labels.dtype.kind not in "iu"
                or (labels.size and (labels.min() < 0 or labels.max() >= n_classes))
            ):
                refuse(f"its training labels are not {n_samples} class indices in [0, {n_classes})")
        elif masses is not None:
            masses = np.asarray(masses)
            if (
                masses.shape != (n_samples, 2**n_classes)
                or masses.dtype.kind != "f"
                or not np.all(np.isfinite(masses))
                or masses.min() < 0
                or np.abs(masses.sum(axis=1) - 1.0).max() > 1e-9
                or masses[:, 0].max() > 0
            ):
                refuse(
                    f"its training labels are not {n_samples} normalised mass functions on {n_classes} classes"
                )
        else:
            refuse("it holds no training labels")

    # ------------------------------------------------------------- predict
    def _neighbours(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        self._check_fitted()
        X = validate_features(self, X, reset=False)
        k = min(self.n_neighbors, self._fit_X.shape[0])
        distances, indices = self.nearest_neighbors_.kneighbors(X, n_neighbors=k)
        return distances**2, indices

    def predict_mass(self, X: ArrayLike) -> MassFunction:
        """Combined evidence of the ``k`` nearest neighbours, one mass function per sample.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        MassFunction
            Batch shape ``(n_samples,)``, on ``Frame(classes_)``.  With crisp labels and simple discounting
            the focal sets are the singletons and the frame.  With crisp labels and contextual discounting,
            when the ``2**n_classes`` masses of the batch pass the memory limit, the mass function is held
            by its weights of evidence against each class, ``-log pl(w_k)`` (the random set keeping each
            class independently with probability ``pl(w_k)``; Denoeux, Kanjanatarakul & Sriboonchitta
            2019), which give the pignistic probabilities, beliefs and plausibilities exactly.
        """
        form = self._singleton_form(X)
        if form is not None:  # crisp labels, simple discounting: the singletons and the frame
            return singleton_mass_function(*form, Frame(self.classes_.tolist()))
        squared, indices = self._neighbours(X)
        frame = Frame(self.classes_.tolist())
        try:
            check_dense_size(self.n_classes_, squared.shape[0], "the evidential k-NN output")
        except FrameTooLargeError:
            if self._labels is None:
                raise
            # crisp labels, contextual discounting: the random set keeping class k with probability
            # pl_k, held by its weights of evidence against each class (-log pl_k), not by 2**M masses
            log_contour = _contextual_log_contour(
                self.gamma_, self.alpha, squared, np.eye(self.n_classes_)[self._labels][indices]
            )
            storage = WeightStorage.from_weights(np.zeros_like(log_contour), -log_contour, normalized=True)
            return MassFunction._from_storage(storage, frame)
        if self.discounting == "simple":
            support = self.alpha * np.exp(-self.gamma_[0] * squared)
            m = _combine_mass_labels(support, self._label_masses, indices)
        elif self._labels is not None:
            log_contour = _contextual_log_contour(
                self.gamma_, self.alpha, squared, np.eye(self.n_classes_)[self._labels][indices]
            )
            m = _product_form_mass(log_contour)
        else:
            m = _combine_contextual_mass_labels(self.gamma_, self.alpha, squared, self._label_masses, indices)
        return MassFunction._dense(m, frame)

    def _singleton_form(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray] | None:
        self._check_fitted()
        if self.discounting != "simple" or self._labels is None:
            return None
        squared, indices = self._neighbours(X)
        support = self.alpha * np.exp(-self.gamma_[self._labels[indices]] * squared)
        combination = combine_singleton_supports(
            support, labels=self._labels[indices], n_classes=self.n_classes_
        )
        return combination.singletons, combination.frame

    def predict_contour(self, X: ArrayLike) -> np.ndarray:
        """Normalised contour (plausibility of each class) of the combined evidence.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``pl({w_k}) / sum_l pl({w_l})``: the output the contextual model is trained on (Denoeux,
            Kanjanatarakul & Sriboonchitta 2019).
        """
        if self.discounting == "contextual":
            squared, indices = self._neighbours(X)
            contour = self._label_contour()[indices]
            log_contour = _contextual_log_contour(self.gamma_, self.alpha, squared, contour)
            log_contour -= log_contour.max(axis=1, keepdims=True)
            pl = np.exp(log_contour)
            return pl / pl.sum(axis=1, keepdims=True)
        return self.predict_mass(X).plausibility_transform()


# ----------------------------------------------------------------------- the models' formulas
def _simple_loss(gamma, alpha, squared, neighbour_labels, targets, frame_share):
    """Squared error of Zouhal & Denoeux (1998) and its gradient in ``gamma``."""
    support = alpha * np.exp(-gamma[neighbour_labels] * squared)
    combination = combine_singleton_supports(support, labels=neighbour_labels, n_classes=gamma.size)
    loss, grad_singletons, grad_frame = pignistic_output_gradient(combination, targets, frame_share)
    grad_support, _ = mass_gradient_to_support(
        combination, grad_singletons, grad_frame, support, labels=neighbour_labels
    )
    per_neighbour = grad_support * (-squared * support)  # dE/dgamma of each neighbour's own class
    grad = np.bincount(neighbour_labels.ravel(), weights=per_neighbour.ravel(), minlength=gamma.size)
    return loss, grad


def _contextual_log_contour(gamma, alpha, squared, neighbour_contour):
    """``log pl(w_k) = sum_i log(1 - beta_ik (1 - pl_i(w_k)))``, ``beta_ik = alpha exp(-gamma_k d_i^2)``."""
    beta = alpha * np.exp(-squared[..., None] * gamma)  # (n, k, M)
    return np.log1p(-beta * (1.0 - neighbour_contour)).sum(axis=1)


def _contextual_loss(gamma, alpha, squared, neighbour_contour, targets):
    """Squared error between the normalised contour and the targets, and its gradient in ``gamma``."""
    beta = alpha * np.exp(-squared[..., None] * gamma)  # (n, k, M)
    doubt = 1.0 - neighbour_contour
    log_contour = np.log1p(-beta * doubt).sum(axis=1)
    log_contour -= log_contour.max(axis=1, keepdims=True)
    pl = np.exp(log_contour)
    p = pl / pl.sum(axis=1, keepdims=True)
    residual = p - targets
    loss = float((residual**2).sum())
    g = 2.0 * residual
    grad_log = p * (g - (g * p).sum(axis=1, keepdims=True))  # dE / d log pl_k
    # d log pl_k / d gamma_k = sum_i beta_ik doubt_ik d_i^2 / (1 - beta_ik doubt_ik)
    dlog = (beta * doubt * squared[..., None] / (1.0 - beta * doubt)).sum(axis=1)
    return loss, (grad_log * dlog).sum(axis=0)


def _product_form_mass(log_contour):
    """Normalised mass of the random set containing each class k independently with probability pl_k.

    Crisp labels contextually discounted and combined conjunctively have the commonality
    ``q(A) = prod_{k in A} pl(w_k)``; its masses are ``prod_{k in A} pl_k prod_{k not in A} (1 - pl_k)``,
    normalised by Dempster's rule.
    """
    n_classes = log_contour.shape[1]
    contour = np.exp(log_contour)
    inside = _subset_membership(n_classes).astype(bool)  # (2**M, M)
    out = np.empty((contour.shape[0], inside.shape[0]))
    for rows in _blocks(contour.shape[0], inside.size):
        pl = contour[rows][:, None, :]
        m = np.where(inside, pl, 1.0 - pl).prod(axis=2)
        m[:, 0] = 0.0
        out[rows] = m / m.sum(axis=1, keepdims=True)
    return out


def _blocks(n_rows, per_row):
    step = max(1, _DENSE_BLOCK // max(1, per_row))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def _combine_mass_labels(support, label_masses, indices):
    """Dempster combination of the labels discounted by ``1 - s_i`` (Denoeux 1995, Section IV).

    The discounted label ``s_i m_i + (1 - s_i) m_Omega`` has commonality ``1 - s_i + s_i q_i(A)``; the
    combination multiplies them, and Dempster's rule removes the empty set.
    """
    label_q = m_to(label_masses, "q")
    out = np.empty((support.shape[0], label_masses.shape[1]))
    for rows in _blocks(support.shape[0], support.shape[1] * label_masses.shape[1]):
        s = support[rows][..., None]
        q = np.prod(1.0 - s + s * label_q[indices[rows]], axis=1)
        m = to_m(q, "q")
        m[:, 0] = 0.0
        m = np.maximum(m, 0.0)
        out[rows] = m / m.sum(axis=1, keepdims=True)
    return out


def _combine_contextual_mass_labels(gamma, alpha, squared, label_masses, indices):
    """Dempster combination of the contextually discounted labels (Denoeux et al. 2019, general labels)."""
    n_classes = gamma.size
    frame = Frame(list(range(n_classes)))
    out = np.empty((squared.shape[0], label_masses.shape[1]))
    for rows in _blocks(squared.shape[0], squared.shape[1] * label_masses.shape[1]):
        beta = alpha * np.exp(-squared[rows][..., None] * gamma)  # (b, k, M)
        discounted = contextual_discount(MassFunction._dense(label_masses[indices[rows]], frame), 1.0 - beta)
        q = np.prod(discounted.to_array("q"), axis=1)
        m = to_m(q, "q")
        m[:, 0] = 0.0
        m = np.maximum(m, 0.0)
        out[rows] = m / m.sum(axis=1, keepdims=True)
    return out
