"""Calibration diagnostics: binned calibration errors, the CORP decomposition, reliability bands.

* :func:`expected_calibration_error`: binned L1 / L2 / max calibration error of
  binary, top-label and class-wise probabilities, with the debiased estimators
  of Kumar, Liang & Ma (2019).
* :func:`corp_decomposition`: miscalibration, discrimination and uncertainty
  of the Brier or logarithmic score from the pool-adjacent-violators (PAV)
  recalibration (Dimitriadis, Gneiting & Jordan 2021).
* :func:`reliability_bands`: per bin the mean prediction, the observed
  frequency and ``[Bel, Pl]`` of the positive class from the bin's counts by a
  counts -> mass model of :mod:`dstk.evidence` (the CORP bins by default).

Conventions as in :mod:`dstk.metrics`: ``y_true`` holds class indices
``0 .. K-1``; ``probabilities`` is an ``(N, K)`` matrix whose rows sum to one,
or a 1-D array read as the probability of class 1.  Bins are closed on the
right, ``(e_{j-1}, e_j]`` (the first one also holds 0), as in scikit-learn's
``calibration_curve`` and Kumar et al.'s code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import isotonic_regression
from scipy.special import ndtr

from .._metric_checks import check_labels_and_probabilities
from .._validation import as_float_array, check_level

__all__ = [
    "expected_calibration_error",
    "corp_decomposition",
    "CorpDecomposition",
    "reliability_bands",
    "ReliabilityBands",
    "BINNING_STRATEGIES",
    "CALIBRATION_NORMS",
    "CORP_SCORES",
    "MULTICLASS_REDUCTIONS",
]

BINNING_STRATEGIES = ("uniform", "quantile")
CALIBRATION_NORMS = ("l1", "l2", "max")
CORP_SCORES = ("brier", "log")
MULTICLASS_REDUCTIONS = ("top_label", "class_wise")


# ---------------------------------------------------------------------------
# validation and binning
# ---------------------------------------------------------------------------


def _check_choice(value, name, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"`{name}` must be one of {allowed}; got {value!r}.")
    return value


def _check_bins(bins, name="bins"):
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"`{name}` must be a positive integer number of bins; got {bins!r}.")
    return int(bins)


def _binary_problems(y_true, probabilities, multiclass):
    """List of (name, predicted probability, 0/1 outcome) binary problems.

    1-D input: one problem (probability of class 1).  2-D input: the top-label
    problem (confidence, correctness) or one problem per class (class-wise).
    """
    _check_choice(multiclass, "multiclass", MULTICLASS_REDUCTIONS)
    probabilities = as_float_array(probabilities, "probabilities")
    if np.ndim(probabilities) == 1:
        y, P = check_labels_and_probabilities(y_true, probabilities)
        return [(1, P[:, 1], y.astype(np.float64))]
    y, P = check_labels_and_probabilities(y_true, probabilities)
    if multiclass == "top_label":
        top = np.argmax(P, axis=1)
        return [("top label", P[np.arange(P.shape[0]), top], (top == y).astype(np.float64))]
    return [(k, P[:, k], (y == k).astype(np.float64)) for k in range(P.shape[1])]


def _bin_edges(p, bins, strategy, occupied_only=False):
    """Inner bin edges (the last edge, 1, is implicit).

    ``occupied_only``: for callers that only need which samples share a bin,
    uniform edges are reduced to those that separate the samples: the last
    edge below each prediction, at most one per sample, so memory stays
    ``O(N)`` for any ``bins`` (the same grouping as all ``bins - 1`` edges).
    """
    if strategy == "uniform":
        if not occupied_only or bins <= p.size + 1:
            return np.arange(1, bins) / bins
        # k(p) = #{j in 1 .. bins-1 : j / bins < p}, from floor(p * bins) corrected
        # by exact comparisons with the edges j / bins computed as arange does
        k = np.clip(np.floor(p * bins), 0, bins - 1)
        k = np.where((k >= 1) & (k / bins >= p), k - 1, k)
        k = np.where((k + 1 <= bins - 1) & ((k + 1) / bins < p), k + 1, k)
        used = np.unique(k[k >= 1])
        return used / bins
    # uniform-mass bins of Kumar et al. (2019), Sec. 4: split the sorted
    # predictions into `bins` groups of (almost) equal size and cut halfway
    # between neighbouring groups.
    ordered = np.sort(p)
    bins = min(bins, ordered.size)
    starts = np.array([len(a) for a in np.array_split(np.empty(ordered.size), bins)]).cumsum()[:-1]
    edges = (ordered[starts - 1] + ordered[starts]) / 2.0
    return np.unique(edges)


def _bin_index(p, edges):
    return np.searchsorted(edges, p, side="left")


def _bin_statistics(p, outcome, edges):
    index = _bin_index(p, edges)
    n_bins = edges.size + 1
    count = np.bincount(index, minlength=n_bins).astype(np.float64)
    sum_p = np.bincount(index, weights=p, minlength=n_bins)
    sum_y = np.bincount(index, weights=outcome, minlength=n_bins)
    return count, sum_p, sum_y


def _folded_normal_mean(mu, sigma):
    """E|X| for X ~ N(mu, sigma**2) (|mu| when sigma = 0)."""
    out = np.abs(mu).astype(np.float64)
    positive = sigma > 0
    m, s = mu[positive], sigma[positive]
    out[positive] = s * np.sqrt(2.0 / np.pi) * np.exp(-(m**2) / (2.0 * s**2)) + m * (1.0 - 2.0 * ndtr(-m / s))
    return out


def _binary_calibration_error(p, outcome, bins, strategy, norm, debias):
    edges = _bin_edges(p, bins, strategy, occupied_only=True)
    count, sum_p, sum_y = _bin_statistics(p, outcome, edges)
    used = count > 0
    count, sum_p, sum_y = count[used], sum_p[used], sum_y[used]
    weight = count / count.sum()
    confidence = sum_p / count
    frequency = sum_y / count
    gap = confidence - frequency
    if norm == "max":
        return float(np.max(np.abs(gap)))
    if norm == "l1":
        plugin = float(weight @ np.abs(gap))
        if not debias:
            return plugin
        # Kumar et al. (2019), Sec. 5: 2 * plug-in - E[plug-in under the normal
        # approximation of the bins' frequencies], the expectation in closed form.
        sigma = np.sqrt(frequency * (1.0 - frequency) / count)
        return float(2.0 * plugin - weight @ _folded_normal_mean(gap, sigma))
    squared = gap**2
    if debias:
        # Kumar et al. (2019), Sec. 5 and Lemma 5.3: subtract the variance of
        # each bin's frequency; bins with one sample contribute nothing.
        many = count >= 2
        squared = np.where(many, squared - frequency * (1.0 - frequency) / np.maximum(count - 1.0, 1.0), 0.0)
        return float(np.sqrt(max(float(weight @ squared), 0.0)))
    return float(np.sqrt(weight @ squared))


def expected_calibration_error(
    y_true: ArrayLike,
    probabilities: ArrayLike,
    *,
    bins: int = 15,
    strategy: str = "uniform",
    norm: str = "l1",
    debias: bool = False,
    multiclass: str = "top_label",
) -> float:
    """Binned calibration error of binary, top-label or class-wise probabilities (lower is better).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices (0/1 for a 1-D ``probabilities``).
    probabilities : array_like of shape (N,) or (N, K)
        1-D: the probability of class 1.  2-D: class probabilities (rows sum
        to one).
    bins : int, default=15
        Number of bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        ``"uniform"``: equal-width bins ``(j/B, (j+1)/B]``.  ``"quantile"``:
        uniform-mass bins, the sorted predictions split into groups of (almost)
        equal size, cut halfway between neighbouring groups (Kumar et al. 2019,
        Sec. 4).
    norm : {"l1", "l2", "max"}, default="l1"
        ``"l1"``: the ECE ``sum_b (n_b/N) |conf_b - acc_b|`` (Naeini et al.
        2015; Guo et al. 2017, Eq. 3); ``"l2"``: ``sqrt(sum_b (n_b/N)
        (conf_b - acc_b)**2)`` (Kumar et al. 2019, Definition 2.2 with
        p = 2); ``"max"``: the maximum calibration error ``max_b |conf_b - acc_b|``
        over non-empty bins (Naeini et al. 2015).
    debias : bool, default=False
        Correct the plug-in estimate's upward bias (Kumar et al. 2019,
        Sec. 5): for ``"l2"`` the unbiased estimate of the squared error,
        ``sum_b (n_b/N) [(conf_b - acc_b)**2 - acc_b (1 - acc_b)/(n_b - 1)]``,
        clipped at zero before the root (bins of one sample contribute 0);
        for ``"l1"`` ``2 * plugin - E[plugin]`` with each bin's frequency
        replaced by ``N(acc_b, acc_b (1 - acc_b)/n_b)``, the expectation taken
        in closed form (the folded normal mean) instead of Kumar et al.'s
        Monte Carlo.  Not defined for ``"max"``.
    multiclass : {"top_label", "class_wise"}, default="top_label"
        For a 2-D input: the error of the top-label confidence against
        correctness (Guo et al. 2017), or the class-wise (marginal) error
        ``(mean_k CE_k**p)**(1/p)`` over the one-vs-rest problems of every
        class (Kumar et al. 2019, Definition 2.3; Kull et al. 2019), the
        maximum over classes for ``"max"``.  Ignored for 1-D input.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        On invalid labels or probabilities, mismatched lengths, a bad
        ``bins``, ``strategy``, ``norm`` or ``multiclass``, or ``debias`` with
        ``norm="max"``.

    Notes
    -----
    ``conf_b`` is the mean prediction and ``acc_b`` the observed frequency of
    the outcome in bin ``b``; empty bins are skipped.  The plug-in binned
    estimate is biased upwards, by about ``sqrt(B / N)`` for a calibrated
    model (Kumar et al. 2019, Sec. 5), which the debiased estimators remove.

    References
    ----------
    A. Kumar, P. Liang, T. Ma, Verified uncertainty calibration, *NeurIPS*
    2019.
    M. P. Naeini, G. Cooper, M. Hauskrecht, Obtaining well calibrated
    probabilities using Bayesian binning, *AAAI* 2015.
    C. Guo, G. Pleiss, Y. Sun, K. Q. Weinberger, On calibration of modern
    neural networks, *ICML* 2017.
    M. Kull et al., Beyond temperature scaling: obtaining well-calibrated
    multiclass probabilities with Dirichlet calibration, *NeurIPS* 2019.

    Examples
    --------
    >>> expected_calibration_error([0, 1, 1, 1], [0.5, 0.5, 1.0, 1.0], bins=2)
    0.0
    >>> round(expected_calibration_error([0, 1, 1, 1], [0.2, 0.6, 0.7, 0.9], bins=2, norm="max"), 4)
    0.2667
    """
    bins = _check_bins(bins)
    _check_choice(strategy, "strategy", BINNING_STRATEGIES)
    _check_choice(norm, "norm", CALIBRATION_NORMS)
    if not isinstance(debias, (bool, np.bool_)):
        raise ValueError(f"`debias` must be True or False; got {debias!r}.")
    if debias and norm == "max":
        raise ValueError(
            "`debias=True` is defined for norm='l1' and norm='l2' (Kumar et al. 2019); "
            "use debias=False with norm='max'."
        )
    problems = _binary_problems(y_true, probabilities, multiclass)
    errors = np.array(
        [
            _binary_calibration_error(p, outcome, bins, strategy, norm, bool(debias))
            for _, p, outcome in problems
        ]
    )
    if errors.size == 1:
        return float(errors[0])
    if norm == "max":
        return float(errors.max())
    power = 1.0 if norm == "l1" else 2.0
    return float(np.mean(errors**power) ** (1.0 / power))


# ---------------------------------------------------------------------------
# CORP
# ---------------------------------------------------------------------------


class CorpDecomposition(NamedTuple):
    """``score = miscalibration - discrimination + uncertainty`` (Dimitriadis et al. 2021, Eq. 4).

    Attributes
    ----------
    miscalibration, discrimination, uncertainty, score : float
        MCB, DSC, UNC and the mean score; see :func:`corp_decomposition`.

    Notes
    -----
    The CORP score decomposition of Dimitriadis, Gneiting & Jordan (2021),
    Eq. (4), with the PAV recalibration as the calibrated forecast.

    References
    ----------
    T. Dimitriadis, T. Gneiting, A. I. Jordan, Stable reliability diagrams for
    probabilistic classifiers, *PNAS* 118 (2021) e2016191118.

    Examples
    --------
    >>> d = corp_decomposition([0, 1, 1], [0.2, 0.7, 0.9])
    >>> abs(d.miscalibration - d.discrimination + d.uncertainty - d.score) < 1e-12
    True
    """

    miscalibration: float
    discrimination: float
    uncertainty: float
    score: float


def _pav_blocks(p, outcome):
    """Sorted unique predictions, their counts, positives and PAV (CORP) recalibrated values."""
    values, inverse, count = np.unique(p, return_inverse=True, return_counts=True)
    positives = np.bincount(inverse, weights=outcome, minlength=values.size)
    fit = isotonic_regression(positives / count, weights=count.astype(np.float64))
    return values, inverse, count.astype(np.float64), positives, np.clip(fit.x, 0.0, 1.0)


def _corp_binary_inputs(y_true, probabilities):
    probabilities = as_float_array(probabilities, "probabilities")
    if np.ndim(probabilities) == 2 and np.shape(probabilities)[1] != 2:
        raise ValueError(
            "corp_decomposition is defined for binary forecasts: pass the probability of class 1 "
            f"(1-D) or an (N, 2) matrix; got shape {np.shape(probabilities)}. For K classes, decompose "
            "each one-vs-rest problem: corp_decomposition(y == k, P[:, k])."
        )
    y, P = check_labels_and_probabilities(y_true, probabilities)
    return P[:, 1], y.astype(np.float64)


def corp_decomposition(
    y_true: ArrayLike, probabilities: ArrayLike, *, score: str = "brier"
) -> CorpDecomposition:
    """CORP decomposition of the Brier or logarithmic score into MCB, DSC and UNC.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Binary outcomes 0/1.
    probabilities : array_like of shape (N,) or (N, 2)
        Forecast probabilities of class 1 (or the two-column matrix).
    score : {"brier", "log"}, default="brier"
        The mean Brier score ``(x - y)**2`` or logarithmic score
        ``-y log x - (1 - y) log(1 - x)`` (natural logarithm).

    Returns
    -------
    CorpDecomposition
        Named tuple ``(miscalibration, discrimination, uncertainty, score)``
        with ``score = miscalibration - discrimination + uncertainty`` and the
        first two non-negative.

    Raises
    ------
    ValueError
        On invalid labels or probabilities, forecasts of more than two
        classes, an unknown ``score``, or (``score="log"``) a forecast of 0 or
        1 contradicted by its outcome, whose score is infinite.

    Notes
    -----
    Dimitriadis, Gneiting & Jordan (2021), Eq. (4): with ``S_X`` the mean
    score of the forecasts, ``S_C`` that of their PAV recalibration (the
    isotonic regression of the outcomes on the forecasts, tied forecasts
    pooled: the "consistent, optimally binned, reproducible" CORP
    reliability curve) and ``S_R`` that of the constant forecast ``mean(y)``,

    ``MCB = S_X - S_C``,  ``DSC = S_R - S_C``,  ``UNC = S_R``.

    The PAV fit is optimal among isotonic recalibrations for every proper
    score at once, so ``MCB >= 0``; the constant is isotonic, so ``DSC >= 0``.
    The isotonic regression is :func:`scipy.optimize.isotonic_regression`.

    References
    ----------
    T. Dimitriadis, T. Gneiting, A. I. Jordan, Stable reliability diagrams for
    probabilistic classifiers, *PNAS* 118 (2021) e2016191118.

    Examples
    --------
    >>> d = corp_decomposition([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9])  # PAV: (0, 0.5, 0.5, 1)
    >>> [round(v, 4) for v in d]
    [0.06, 0.125, 0.25, 0.185]
    """
    _check_choice(score, "score", CORP_SCORES)
    p, outcome = _corp_binary_inputs(y_true, probabilities)
    values, _, count, positives, recalibrated = _pav_blocks(p, outcome)
    if score == "log":
        wrong = ((values == 0.0) & (positives > 0)) | ((values == 1.0) & (positives < count))
        if wrong.any():
            raise ValueError(
                f"The logarithmic score is infinite: some forecast of {values[wrong][0]:g} is contradicted "
                "by its outcome. Use score='brier', or clip the probabilities away from 0 and 1."
            )
    # pooled per unique forecast: the outcome enters through the counts of 1s
    score_x = _pooled_score(values, count, positives, score)
    score_c = _pooled_score(recalibrated, count, positives, score)
    base_rate = outcome.mean()
    score_r = _pooled_score(
        np.array([base_rate]), np.array([float(outcome.size)]), np.array([outcome.sum()]), score
    )
    miscalibration = max(score_x - score_c, 0.0)
    discrimination = max(score_r - score_c, 0.0)
    return CorpDecomposition(miscalibration, discrimination, score_r, score_x)


def _pooled_score(forecast, count, positives, score):
    """Mean score of `forecast` over groups with `count` samples of which `positives` are 1."""
    negatives = count - positives
    if score == "brier":
        total = positives * (1.0 - forecast) ** 2 + negatives * forecast**2
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            log_p = np.where(positives > 0, positives * np.log(np.where(positives > 0, forecast, 1.0)), 0.0)
            log_q = np.where(
                negatives > 0, negatives * np.log1p(-np.where(negatives > 0, forecast, 0.0)), 0.0
            )
        total = -(log_p + log_q)
    return float(total.sum() / count.sum())


# ---------------------------------------------------------------------------
# reliability bands
# ---------------------------------------------------------------------------


class ReliabilityBands(NamedTuple):
    """Per-bin reliability statistics with the [Bel, Pl] band of the positive outcome.

    Attributes
    ----------
    lower, upper : ndarray of shape (B,)
        Smallest and largest prediction in each bin.
    counts : ndarray of shape (B,)
        Samples per bin.
    positives : ndarray of shape (B,)
        Positive outcomes per bin.
    mean_predicted : ndarray of shape (B,)
        Mean prediction per bin.
    frequency : ndarray of shape (B,)
        Observed frequency of the positive outcome, ``positives / count``.
    belief, plausibility : ndarray of shape (B,)
        Bel and Pl of "positive" from the bin's counts by the counts -> mass
        ``model``.
    predictions : ndarray of shape (N,)
        The predictions that were binned (for histograms).
    label : object
        What "positive" means: the class (class-wise, or 1 for binary input)
        or ``"top label"`` (the top-label prediction is correct).
    model : str
        The counts -> mass model.
    binning : str
        ``"corp"``, ``"uniform"`` or ``"quantile"``.

    Notes
    -----
    Built by :func:`reliability_bands` from the counts of each bin with a
    counts -> mass model of Xu et al. (2016), Eqs. 24-32; drawn by
    :func:`dstk.plot.reliability_diagram`.

    References
    ----------
    P. Xu, F. Davoine, H. Zha, T. Denoeux, Evidential calibration of binary
    SVM classifiers, *IJAR* 72 (2016) 55-70.

    Examples
    --------
    >>> bands = reliability_bands([0, 1, 1, 1], [0.2, 0.4, 0.8, 0.9], bins=2)
    >>> bands.counts.tolist(), bands.binning
    ([2.0, 2.0], 'uniform')
    """

    lower: np.ndarray
    upper: np.ndarray
    counts: np.ndarray
    positives: np.ndarray
    mean_predicted: np.ndarray
    frequency: np.ndarray
    belief: np.ndarray
    plausibility: np.ndarray
    predictions: np.ndarray
    label: object
    model: str
    binning: str


def _corp_bins(p, outcome):
    _, inverse, _, _, recalibrated = _pav_blocks(p, outcome)
    # one bin per constant piece of the PAV fit (equal neighbouring blocks merged)
    new_piece = np.concatenate([[True], np.diff(recalibrated) > 1e-12 * np.maximum(1.0, recalibrated[1:])])
    piece_of_value = np.cumsum(new_piece) - 1
    return piece_of_value[inverse]


def reliability_bands(
    y_true: ArrayLike,
    probabilities: ArrayLike,
    *,
    bins: int | str = "corp",
    strategy: str = "uniform",
    model: str = "likelihood",
    level: float = 0.95,
    multiclass: str = "top_label",
) -> ReliabilityBands | list[ReliabilityBands]:
    """Reliability-diagram bins with the belief-plausibility band of the observed frequency.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        True class indices (0/1 for a 1-D ``probabilities``).
    probabilities : array_like of shape (N,) or (N, K)
        Probability of class 1, or class probabilities.
    bins : "corp" or int, default="corp"
        ``"corp"``: the bins of the CORP reliability diagram, one per constant
        piece of the PAV recalibration (Dimitriadis et al. 2021); an int: that
        many bins by ``strategy``.
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning for an integer ``bins`` (as :func:`expected_calibration_error`).
    model : str, default="likelihood"
        A counts -> mass model of ``dstk.evidence.COUNT_MODELS``; it turns
        each bin's counts ``[n_negative, n_positive]`` into a mass function
        on ``{negative, positive}`` (:func:`dstk.evidence.from_counts`).
    level : float, default=0.95
        Confidence level of ``model="confidence_interval"`` (ignored otherwise).
    multiclass : {"top_label", "class_wise"}, default="top_label"
        For a 2-D input: one band set for the top-label problem, or a list
        with one per class.

    Returns
    -------
    ReliabilityBands or list of ReliabilityBands
        A list (one per class) for ``multiclass="class_wise"`` and 2-D input.

    Raises
    ------
    ValueError
        On invalid labels or probabilities, a bad ``bins``, ``strategy``,
        ``model``, ``level`` or ``multiclass``.

    Notes
    -----
    In bin ``b`` with ``n_b`` samples of which ``k_b`` are positive, the
    band is ``[Bel({positive}), Pl({positive})]`` of the mass function the
    counts model assigns to ``(k_b, n_b)`` (Xu et al. 2016, Eqs. 24-32 for
    the likelihood-based and other models).  A bin whose mean prediction lies
    outside its band is miscalibrated beyond what its sample size explains;
    bins with few samples get wide bands.  With CORP bins the observed
    frequency is the PAV-recalibrated probability.

    References
    ----------
    T. Dimitriadis, T. Gneiting, A. I. Jordan, Stable reliability diagrams for
    probabilistic classifiers, *PNAS* 118 (2021) e2016191118.
    P. Xu, F. Davoine, H. Zha, T. Denoeux, Evidential calibration of binary
    SVM classifiers, *IJAR* 72 (2016) 55-70.

    Examples
    --------
    >>> bands = reliability_bands([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.6, 0.7, 0.8])
    >>> bands.counts.tolist(), bands.frequency.round(3).tolist()
    ([2.0, 2.0, 2.0], [0.0, 0.5, 1.0])
    >>> bool(all(bands.belief <= bands.frequency)) and bool(all(bands.frequency <= bands.plausibility))
    True
    """
    from ..evidence._counts import COUNT_MODELS, from_counts

    _check_choice(model, "model", COUNT_MODELS)
    if isinstance(bins, str):
        if bins != "corp":
            raise ValueError(f"`bins` must be 'corp' or a positive integer; got {bins!r}.")
    else:
        bins = _check_bins(bins)
    _check_choice(strategy, "strategy", BINNING_STRATEGIES)
    level = check_level(level)
    problems = _binary_problems(y_true, probabilities, multiclass)
    out = []
    for label, p, outcome in problems:
        if bins == "corp":
            index = _corp_bins(p, outcome)
        else:
            index = _bin_index(p, _bin_edges(p, bins, strategy, occupied_only=True))
        # renumber the occupied bins 0 .. B-1 (linear time: no sort)
        per_bin = np.bincount(index)
        renumber = np.cumsum(per_bin > 0) - 1
        index = renumber[index]
        n_bins = int(renumber[-1]) + 1
        count = np.bincount(index, minlength=n_bins).astype(np.float64)
        positives = np.bincount(index, weights=outcome, minlength=n_bins)
        mean_predicted = np.bincount(index, weights=p, minlength=n_bins) / count
        lower = np.full(n_bins, np.inf)
        upper = np.full(n_bins, -np.inf)
        np.minimum.at(lower, index, p)
        np.maximum.at(upper, index, p)
        counts = np.column_stack([count - positives, positives])  # [n_negative, n_positive]
        if model == "confidence_interval":
            masses = from_counts(np.round(counts), model=model, level=float(level)).to_array()
        else:
            masses = from_counts(np.round(counts), model=model).to_array()
        belief = masses[..., 2]  # m({1})
        plausibility = 1.0 - masses[..., 1]  # 1 - m({0})
        out.append(
            ReliabilityBands(
                lower,
                upper,
                count,
                positives,
                mean_predicted,
                positives / count,
                belief,
                plausibility,
                p,
                label,
                model,
                "corp" if bins == "corp" else strategy,
            )
        )
    probabilities = as_float_array(probabilities, "probabilities")
    if np.ndim(probabilities) == 2 and multiclass == "class_wise":
        return out
    return out[0]
