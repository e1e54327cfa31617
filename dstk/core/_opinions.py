"""Subjective-logic opinions: Dirichlet evidence as mass functions on the singletons and the frame."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import as_float_array, broadcast_batch_shapes, check_option
from ._frame import Frame
from ._mass import MassFunction, as_mass_function

__all__ = ["Opinion", "fuse_opinions", "trust_discount", "ACTIVATIONS", "FUSION_OPERATORS"]

#: maps of logits to non-negative evidence (Sensoy et al. 2018, Sec. 3)
ACTIVATIONS = ("identity", "relu", "exp", "softplus")

#: subjective-logic fusion operators of :func:`fuse_opinions` (Josang 2016, Ch. 12)
FUSION_OPERATORS = ("cumulative", "averaging", "weighted", "belief_constraint")


def _evidence_of(evidence, activation):
    check_option(activation, "activation", ACTIVATIONS)
    e = as_float_array(evidence, "evidence")
    if e.ndim == 0 or e.shape[-1] < 2:
        raise ValueError(f"`evidence` must have a last axis of at least 2 classes; got shape {e.shape}.")
    if np.isnan(e).any() or (activation != "exp" and np.isinf(e).any()):
        raise ValueError("`evidence` contains NaN or infinite values.")
    if activation == "relu":
        e = np.maximum(e, 0.0)
    elif activation == "exp":
        with np.errstate(over="ignore"):  # an infinite evidence: see _scaled_shares
            e = np.exp(e)
    elif activation == "softplus":
        e = np.logaddexp(0.0, e)
    elif np.any(e < 0):
        raise ValueError(
            "`evidence` must be non-negative; pass logits with activation='relu', 'exp' or 'softplus'."
        )
    return e


def _scaled_shares(e, w, logits):
    """``b = e / (sum e + W)`` and ``u = W / (sum e + W)`` where the total overflows float64.

    The evidence is divided by its largest value per opinion first (for the
    exp map, the logits are shifted by their largest value: ``exp(z - max z)``),
    so the ratios survive; an infinite evidence (logit ``+inf``) takes the limit,
    the infinite classes sharing the belief equally and ``u = 0``.
    """
    if logits is not None:
        top = logits.max(-1, keepdims=True)
        with np.errstate(invalid="ignore", over="ignore"):
            scaled = np.where(np.isposinf(top), np.isposinf(logits), np.exp(logits - top))
            prior = np.where(np.isposinf(top), 0.0, w * np.exp(-top))
    else:
        top = e.max(-1, keepdims=True)
        safe = np.where(top > 0, top, 1.0)
        with np.errstate(invalid="ignore"):
            scaled = np.where(np.isposinf(top), np.isposinf(e), e / safe)
            prior = np.where(np.isposinf(top), 0.0, w / safe)
    scaled = scaled.astype(np.float64)
    total = scaled.sum(-1, keepdims=True) + prior
    return scaled / total, (prior / total)[..., 0]


def _prior_weight(prior_weight, k):
    if prior_weight is None:
        return float(k)
    w = as_float_array(prior_weight, "prior_weight")
    if w.ndim != 0 or not np.isfinite(w) or w <= 0 or isinstance(prior_weight, (bool, np.bool_)):
        raise ValueError(
            f"`prior_weight` must be a positive number (default: the number of classes); got {prior_weight!r}."
        )
    return float(w)


def _base_rate(base_rate, shape):
    k = shape[-1]
    if base_rate is None:
        return np.full(shape, 1.0 / k)
    a = as_float_array(base_rate, "base_rate")
    if (
        a.shape[-1:] != (k,)
        or not np.all(np.isfinite(a))
        or np.any(a < 0)
        or np.any(np.abs(a.sum(-1) - 1) > 1e-9)
    ):
        raise ValueError(
            f"`base_rate` must be {k} non-negative numbers summing to one (per opinion); got shape {a.shape}."
        )
    broadcast_batch_shapes(
        [a.shape[:-1], shape[:-1]], "`base_rate` and the batch of opinions", into=shape[:-1]
    )
    return np.broadcast_to(a, shape).copy()


class Opinion:
    """Multinomial subjective-logic opinions: belief masses, uncertainty and base rate.

    A batch of opinions on ``K`` classes: ``belief`` of shape ``batch + (K,)``,
    ``uncertainty`` of shape ``batch`` with ``belief.sum(-1) + uncertainty =
    1``, and a base rate (prior probability) of shape ``batch + (K,)``.  As a
    mass function it has focal sets the singletons (``m({k}) = b_k``) and the
    frame (``m(frame) = u``): a vector of ``K + 1`` masses, whatever ``K``.

    Parameters
    ----------
    belief : array_like of shape (..., K)
        Non-negative belief masses.
    uncertainty : array_like of shape (...)
        Uncommitted mass, ``1 - belief.sum(-1)``.
    base_rate : array_like of shape (..., K), optional
        Prior probabilities of the classes; uniform ``1/K`` by default.
    prior_weight : float, optional
        Non-informative prior weight ``W`` that turns uncertainty into
        evidence (``r_k = W b_k / u``); ``K`` by default.

    Raises
    ------
    ValueError
        Negative beliefs, masses that do not sum to one, or an invalid base
        rate.

    Notes
    -----
    Jøsang (2016), Sec. 3.5: an opinion ``(b, u, a)`` has projected
    probability ``P(k) = b_k + a_k u`` and corresponds to the
    Dirichlet distribution of evidence ``r_k = W b_k / u`` and parameters
    ``alpha_k = r_k + a_k W`` (Sec. 3.5.2; Sensoy et al. 2018 use ``a_k W = 1``,
    so ``u = K / S`` with ``S = sum_k alpha_k``).

    References
    ----------
    A. Jøsang (2016). Subjective Logic. Springer.

    M. Sensoy, L. Kaplan, M. Kandemir (2018). Evidential deep learning to
    quantify classification uncertainty. NeurIPS 31.

    Examples
    --------
    >>> o = Opinion.from_dirichlet([3.0, 1.0, 1.0])
    >>> o.belief.tolist(), float(o.uncertainty)
    ([0.4, 0.0, 0.0], 0.6)
    >>> o.projected_probability().round(4).tolist()
    [0.6, 0.2, 0.2]
    """

    def __init__(
        self,
        belief: ArrayLike,
        uncertainty: ArrayLike,
        *,
        base_rate: ArrayLike | None = None,
        prior_weight: float | None = None,
    ) -> None:
        b = as_float_array(belief, "belief")
        u = as_float_array(uncertainty, "uncertainty")
        if b.ndim == 0 or b.shape[-1] < 2 or u.shape != b.shape[:-1]:
            raise ValueError(
                f"`belief` must have shape batch + (K,) with K >= 2 and `uncertainty` the batch shape; got "
                f"{b.shape} and {u.shape}."
            )
        if (
            not (np.all(np.isfinite(b)) and np.all(np.isfinite(u)))
            or np.any(b < -1e-12)
            or np.any(u < -1e-12)
        ):
            raise ValueError("`belief` and `uncertainty` must be finite and non-negative.")
        if np.any(np.abs(b.sum(-1) + u - 1.0) > 1e-9):
            raise ValueError("Each opinion needs belief.sum(-1) + uncertainty = 1.")
        self.belief = np.clip(b, 0.0, None)
        self.uncertainty = np.clip(u, 0.0, None)
        self.base_rate = _base_rate(base_rate, b.shape)
        self.prior_weight = _prior_weight(prior_weight, b.shape[-1])

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled opinion through the checks of the constructor (a tampered file raises)."""
        if not isinstance(state, dict) or not {"belief", "uncertainty", "base_rate", "prior_weight"} <= set(
            state
        ):
            raise ValueError(
                "Not the state of a pickled Opinion: belief, uncertainty, base_rate, prior_weight."
            )
        checked = Opinion(
            state["belief"],
            state["uncertainty"],
            base_rate=state["base_rate"],
            prior_weight=state["prior_weight"],
        )
        self.__dict__.update(checked.__dict__)

    def __repr__(self) -> str:
        with np.printoptions(threshold=60, edgeitems=3):  # a large batch summarised, as numpy does past 1,000
            return f"Opinion(belief={self.belief!r}, uncertainty={self.uncertainty!r}, base_rate={self.base_rate!r})"

    @property
    def n_classes(self) -> int:
        """Number of classes ``K``."""
        return int(self.belief.shape[-1])

    @classmethod
    def from_evidence(
        cls,
        evidence: ArrayLike,
        *,
        activation: str = "identity",
        prior_weight: float | None = None,
        base_rate: ArrayLike | None = None,
    ) -> Opinion:
        """Opinions from non-negative evidence (or logits through an evidence map).

        Parameters
        ----------
        evidence : array_like of shape (..., K)
            Evidence ``e_k >= 0`` per class, or logits with ``activation``.
        activation : {"identity", "relu", "exp", "softplus"}, default "identity"
            The map of logits to evidence (Sensoy et al. 2018, Sec. 3).
        prior_weight : float, optional
            ``W``, by default ``K``.
        base_rate : array_like of shape (..., K), optional
            Uniform by default.

        Returns
        -------
        Opinion
            ``b_k = e_k / S`` and ``u = W / S`` with ``S = sum_k e_k + W``.

        Raises
        ------
        ValueError
            Negative evidence without an activation, NaN, an unknown activation
            or a non-positive prior weight.
        """
        raw = as_float_array(evidence, "evidence") if activation == "exp" else None
        e = _evidence_of(evidence, activation)
        w = _prior_weight(prior_weight, e.shape[-1])
        with np.errstate(over="ignore"):
            total = e.sum(-1) + w
        if np.all(np.isfinite(total)):
            return cls(e / total[..., None], w / total, base_rate=base_rate, prior_weight=w)
        return cls(*_scaled_shares(e, w, raw), base_rate=base_rate, prior_weight=w)

    @classmethod
    def from_dirichlet(
        cls, alpha: ArrayLike, *, prior_weight: float | None = None, base_rate: ArrayLike | None = None
    ) -> Opinion:
        """Opinions from Dirichlet parameters ``alpha_k = e_k + a_k W``.

        Parameters
        ----------
        alpha : array_like of shape (..., K)
            Dirichlet parameters, each at least ``a_k W`` (1 for Sensoy et
            al.'s uniform prior).
        prior_weight : float, optional
            ``W``, by default ``K``.
        base_rate : array_like of shape (..., K), optional
            Uniform by default.

        Returns
        -------
        Opinion
            With evidence ``e_k = alpha_k - a_k W``; for ``a_k W = 1``:
            ``u = K / S``, ``S = sum_k alpha_k``.

        Raises
        ------
        ValueError
            An ``alpha_k`` below its prior part ``a_k W``.
        """
        alpha_array = as_float_array(alpha, "alpha")
        if alpha_array.ndim == 0 or alpha_array.shape[-1] < 2:
            raise ValueError(
                f"`alpha` must have a last axis of at least 2 classes; got shape {alpha_array.shape}."
            )
        k = alpha_array.shape[-1]
        w = _prior_weight(prior_weight, k)
        a = _base_rate(base_rate, alpha_array.shape)
        e = alpha_array - a * w
        if not np.all(np.isfinite(alpha_array)) or np.any(e < -1e-9):
            raise ValueError(
                "`alpha` must be finite with alpha_k >= base_rate_k * prior_weight (>= 1 for the uniform prior of "
                "weight K); pass evidence to Opinion.from_evidence instead."
            )
        return cls.from_evidence(np.clip(e, 0.0, None), prior_weight=w, base_rate=a)

    @classmethod
    def from_mass(
        cls, m: MassFunction, *, base_rate: ArrayLike | None = None, prior_weight: float | None = None
    ) -> Opinion:
        """The opinions of mass functions whose focal sets are singletons and the frame.

        Parameters
        ----------
        m : MassFunction
            Normalised internally; other focal sets raise.
        base_rate : array_like of shape (..., K), optional
            Uniform by default.
        prior_weight : float, optional
            ``W``, by default ``K``.

        Returns
        -------
        Opinion

        Raises
        ------
        ValueError
            A focal set that is neither a singleton nor the frame.
        """
        m = as_mass_function(m, "m")
        n = m.frame.n
        if n < 2:
            raise ValueError(
                f"An opinion needs at least 2 classes; `m` is on a frame of {n} label. Extend its frame "
                "(e.g. with the label of the other outcome)."
            )
        m = m.normalize()
        size = m._storage.cardinalities()
        masses = np.asarray(m._storage.masses)
        other = (size != 1) & (size != n)  # the empty set carries no mass once normalised
        if np.any(masses[..., other] > 1e-12):
            raise ValueError(
                "An opinion has focal sets the singletons and the frame only; `m` has mass on other subsets."
            )
        return cls(
            m._storage.singleton_masses(n),
            masses[..., size == n].sum(-1),
            base_rate=base_rate,
            prior_weight=prior_weight,
        )

    def evidence(self) -> np.ndarray:
        """Evidence ``r_k = W b_k / u`` (infinite for dogmatic opinions, ``u = 0``, with ``b_k > 0``).

        Returns
        -------
        ndarray of shape (..., K)
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            r = self.prior_weight * self.belief / self.uncertainty[..., None]
        return np.where(self.belief == 0, 0.0, r)

    def projected_probability(self) -> np.ndarray:
        """Projected probabilities ``P(k) = b_k + a_k u`` (Jøsang 2016, Sec. 3.5).

        Returns
        -------
        ndarray of shape (..., K)
        """
        return self.belief + self.base_rate * self.uncertainty[..., None]

    def to_mass(self, frame: Frame | Iterable[Any] | None = None) -> MassFunction:
        """The mass function ``m({k}) = b_k``, ``m(frame) = u``.

        Parameters
        ----------
        frame : Frame or iterable of labels, optional
            ``K`` labels; ``0 .. K-1`` by default.

        Returns
        -------
        MassFunction
            Batch shape that of the opinions.
        """
        k = self.n_classes
        frame = (
            Frame(range(k)) if frame is None else frame if isinstance(frame, Frame) else Frame(list(frame))
        )
        if frame.n != k:
            raise ValueError(f"`frame` must have {k} labels, one per class; got {frame.n}.")
        focal = [1 << i for i in range(k)] + [(1 << k) - 1]
        masses = np.concatenate([self.belief, self.uncertainty[..., None]], axis=-1)
        return MassFunction.from_focal_sets(focal, masses, frame, validate=False)


def _pair(x, y, operator):
    bx, by, ux, uy, ax, ay = (
        x.belief,
        y.belief,
        x.uncertainty[..., None],
        y.uncertainty[..., None],
        x.base_rate,
        y.base_rate,
    )
    if operator == "belief_constraint":
        harmony = bx * by + bx * uy + by * ux
        conflict = bx.sum(-1, keepdims=True) * by.sum(-1, keepdims=True) - (bx * by).sum(-1, keepdims=True)
        if np.any(conflict >= 1 - 1e-12):
            from ..exceptions import TotalConflictError

            raise TotalConflictError("Belief-constraint fusion of totally conflicting opinions is undefined.")
        b, u = harmony / (1 - conflict), ux * uy / (1 - conflict)
        with np.errstate(invalid="ignore", divide="ignore"):
            a = (ax * (1 - ux) + ay * (1 - uy)) / (2 - ux - uy)
        a = np.where((ux == 1) & (uy == 1), (ax + ay) / 2, a)
        return b, u[..., 0], a
    dogmatic = (ux == 0) & (uy == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        if operator == "cumulative":
            d = ux + uy - ux * uy
            b, u = (bx * uy + by * ux) / d, ux * uy / d
            a = (ax * uy + ay * ux - (ax + ay) * ux * uy) / (ux + uy - 2 * ux * uy)
            a = np.where(((ux == 1) & (uy == 1)) | dogmatic, (ax + ay) / 2, a)
            b = np.where(dogmatic, (bx + by) / 2, b)  # the limit with equal relative dogmatism
        elif operator == "averaging":
            d = ux + uy
            b, u = (bx * uy + by * ux) / d, 2 * ux * uy / d
            a = (ax + ay) / 2
            b = np.where(dogmatic, (bx + by) / 2, b)
        else:  # weighted
            d = ux + uy - 2 * ux * uy
            b = (bx * (1 - ux) * uy + by * (1 - uy) * ux) / d
            u = (2 - ux - uy) * ux * uy / d
            a = (ax * (1 - ux) + ay * (1 - uy)) / (2 - ux - uy)
            vacuous = (ux == 1) & (uy == 1)
            b = np.where(dogmatic, (bx + by) / 2, np.where(vacuous, 0.0, b))
            u = np.where(vacuous, 1.0, u)
            a = np.where(vacuous, (ax + ay) / 2, a)
        u = np.where(dogmatic, 0.0, u)
    return b, u[..., 0], a


def fuse_opinions(opinions: Sequence[Opinion], *, operator: str = "cumulative") -> Opinion:
    """Fuse opinions on the same classes by a subjective-logic operator.

    Parameters
    ----------
    opinions : sequence of Opinion
        At least one; batches broadcast.
    operator : {"cumulative", "averaging", "weighted", "belief_constraint"}, default "cumulative"
        * ``"cumulative"``: independent evidence adds up (Jøsang 2016,
          Sec. 12.5): the evidence vectors are summed;
        * ``"averaging"``: dependent sources, the evidence is averaged
          (Sec. 12.6);
        * ``"weighted"``: the beliefs are averaged with weights the
          confidences ``1 - u`` (Sec. 12.7);
        * ``"belief_constraint"``: Dempster's rule on the opinions' mass
          functions (Sec. 12.3), the base rates averaged with weights ``1 - u``.

    Returns
    -------
    Opinion

    Raises
    ------
    ValueError
        An unknown operator, no opinions, or opinions of different numbers of
        classes or different prior weights.
    TotalConflictError
        Belief-constraint fusion of totally conflicting opinions.

    Notes
    -----
    Dogmatic opinions (``u = 0`` on both sides) fuse, for the cumulative,
    averaging and weighted operators, to the mean of the beliefs (the limit
    with equal relative dogmatism, Jøsang 2016, Sec. 12.5); with more than
    two opinions, to the mean over the dogmatic ones.  More than two opinions
    are fused at once by the multi-source forms of the operators (the
    evidence vectors summed, averaged, or averaged with weights the
    confidences), which do not depend on the order of the opinions: the
    averaging and weighted operators are not associative, so fusing pairs
    in turn would weigh the last opinion more.  For belief-constraint fusion
    the base rate of several opinions is their mean weighted by ``1 - u``.

    References
    ----------
    A. Jøsang (2016). Subjective Logic. Springer, Ch. 12.

    Examples
    --------
    >>> x = Opinion.from_evidence([2.0, 0.0])
    >>> y = Opinion.from_evidence([1.0, 3.0])
    >>> fuse_opinions([x, y]).evidence().round(12).tolist()
    [3.0, 3.0]
    """
    check_option(operator, "operator", FUSION_OPERATORS)
    items = list(opinions) if not isinstance(opinions, Opinion) else [opinions]
    if not items or not all(isinstance(o, Opinion) for o in items):
        raise ValueError("`opinions` must be a non-empty sequence of Opinion objects.")
    if len({o.n_classes for o in items}) != 1:
        raise ValueError("`opinions` must all have the same number of classes.")
    weights = sorted({o.prior_weight for o in items})
    if len(weights) > 1:
        raise ValueError(
            f"`opinions` must share one prior weight W; got {weights}. The evidence r = W b / u of each is on "
            "the scale of its W, so the fused opinion would depend on their order. Rebuild them with one W: "
            "Opinion(o.belief, o.uncertainty, base_rate=o.base_rate, prior_weight=W)."
        )
    broadcast_batch_shapes([o.uncertainty.shape for o in items], "`opinions`")
    if len(items) > 2 and operator != "belief_constraint":
        b, u, a = _many(items, operator)
        return Opinion(b, u, base_rate=a, prior_weight=items[0].prior_weight)
    fused = items[0]
    for other in items[1:]:
        b, u, a = _pair(fused, other, operator)
        fused = Opinion(b, u, base_rate=a, prior_weight=fused.prior_weight)
    if len(items) > 2:  # Dempster's rule is associative; the base rate weighs each source by 1 - u
        shape = fused.belief.shape
        fused.base_rate = _confidence_weighted(
            [np.broadcast_to(o.base_rate, shape) for o in items],
            [np.broadcast_to(o.uncertainty, shape[:-1])[..., None] for o in items],
        )
    return fused


def _confidence_weighted(values, uncertainties):
    """``sum_A v_A (1 - u_A) / sum_A (1 - u_A)``, the plain mean where every ``u_A = 1``."""
    c = [1.0 - u for u in uncertainties]
    total = sum(c)
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted = sum(ci * v for ci, v in zip(c, values)) / total
    return np.where(total > 0, weighted, sum(values) / len(values))


def _many(items, operator):
    """Multi-source cumulative, averaging and weighted fusion in closed form (Jøsang 2016, Ch. 12).

    In evidence form (all ``u_A > 0``), with ``c_A = 1 - u_A``:

    * cumulative: ``b = sum_A b_A / u_A / (1 + sum_A c_A / u_A)``,
      ``u = 1 / (1 + sum_A c_A / u_A)``, ``a = sum_A a_A c_A / u_A / sum_A c_A / u_A``
      (the evidence vectors summed);
    * averaging: ``b = sum_A b_A / u_A / sum_A 1 / u_A``, ``u = N / sum_A 1 / u_A``,
      ``a = mean_A a_A`` (the evidence vectors averaged);
    * weighted: ``b = sum_A b_A c_A / u_A / sum_A c_A / u_A``,
      ``u = sum_A c_A / sum_A c_A / u_A``, ``a = sum_A a_A c_A / sum_A c_A``.

    Numerators and denominators are multiplied by the smallest ``u_A``, so each
    ``1 / u_A`` becomes a ratio in ``[0, 1]``; a zero smallest ``u_A`` gives
    the dogmatic limit with equal relative dogmatism (the mean over the
    dogmatic sources, ``u = 0``).  Symmetric in the sources; for two sources
    these are the formulas of :func:`_pair`.
    """
    n = len(items)
    shape = np.broadcast_shapes(*(o.belief.shape for o in items))
    b = [np.broadcast_to(o.belief, shape) for o in items]
    a = [np.broadcast_to(o.base_rate, shape) for o in items]
    u = [np.broadcast_to(o.uncertainty, shape[:-1])[..., None] for o in items]
    low = np.minimum.reduce(u)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = [np.where(ui == low, 1.0, low / ui) for ui in u]  # u_min / u_A
    if operator == "averaging":
        total = sum(ratio)
        return sum(r * bi for r, bi in zip(ratio, b)) / total, (n * low / total)[..., 0], sum(a) / n
    c = [1.0 - ui for ui in u]
    v = [ci * r for ci, r in zip(c, ratio)]  # u_min c_A / u_A
    weight = sum(v)
    if operator == "cumulative":  # u_min > 0, or a dogmatic source with v_A = 1: the total is positive
        total = low + weight
        with np.errstate(invalid="ignore", divide="ignore"):
            base = np.where(weight > 0, sum(vi * ai for vi, ai in zip(v, a)) / weight, sum(a) / n)
        return sum(r * bi for r, bi in zip(ratio, b)) / total, (low / total)[..., 0], base
    vacuous = weight == 0  # weighted: every source vacuous
    with np.errstate(invalid="ignore", divide="ignore"):
        belief = np.where(vacuous, 0.0, sum(vi * bi for vi, bi in zip(v, b)) / weight)
        uncertainty = np.where(vacuous, 1.0, low * sum(c) / weight)
    return belief, uncertainty[..., 0], _confidence_weighted(a, u)


def trust_discount(opinion: Opinion, trust: ArrayLike) -> Opinion:
    """Trust discounting: an advisor's opinion weighed by the trust in the advisor.

    Parameters
    ----------
    opinion : Opinion
        The advisor's opinion.
    trust : float or array_like
        The projected probability ``p`` of the trust in the advisor, in
        [0, 1], broadcasting against the batch.

    Returns
    -------
    Opinion
        ``b_k' = p b_k`` and ``u' = 1 - p sum_k b_k`` (Jøsang 2016, Sec. 14.3),
        the base rate unchanged: Shafer's discounting with rate ``1 - p``.

    Raises
    ------
    ValueError
        ``trust`` outside [0, 1] or NaN.

    References
    ----------
    A. Jøsang (2016). Subjective Logic. Springer, Sec. 14.3.

    Examples
    --------
    >>> advice = Opinion([0.6, 0.2], 0.2)
    >>> discounted = trust_discount(advice, 0.5)
    >>> discounted.belief.tolist(), round(float(discounted.uncertainty), 12)
    ([0.3, 0.1], 0.6)
    """
    if not isinstance(opinion, Opinion):
        raise ValueError(f"`opinion` must be an Opinion; got {type(opinion).__name__}.")
    p = as_float_array(trust, "trust")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("`trust` must lie in [0, 1] (the projected probability of the trust opinion).")
    broadcast_batch_shapes([p.shape, opinion.uncertainty.shape], "`trust` and the batch of `opinion`")
    b = p[..., None] * opinion.belief
    return Opinion(b, 1.0 - b.sum(-1), base_rate=opinion.base_rate, prior_weight=opinion.prior_weight)


def mass_from_dirichlet(cls, alpha, *, prior_weight=None, frame=None):
    """MassFunction.from_dirichlet (through the registry)."""
    return Opinion.from_dirichlet(alpha, prior_weight=prior_weight).to_mass(frame)


def mass_from_evidence(cls, evidence, *, activation="identity", prior_weight=None, frame=None):
    """MassFunction.from_evidence (through the registry)."""
    return Opinion.from_evidence(evidence, activation=activation, prior_weight=prior_weight).to_mass(frame)
