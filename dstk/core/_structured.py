"""Structured storage forms: mass functions with up to 2**n focal sets, held by their parameters.

Two families of mass functions met by classifiers have a focal set for
almost every subset of the frame, yet a few numbers per label determine
them, and so do their belief, plausibility and commonality of any given
set, their contour function and pignistic transform:

* :class:`WeightStorage`: the conjunctive combination of simple mass
  functions focused on the singletons ``{w_k}`` (weights of evidence
  ``w_k^+``) and on their complements (``w_k^-``), the latent mass function
  of a logistic model (Denoeux 2019);
* :class:`DiscountedBayesStorage`: the conjunctive combination of ``S``
  Bayesian sources, each contextually discounted with one rate per label
  (Mercier, Quost and Denoeux 2008), the output of a fusion of classifiers.

Both hold an unnormalised mass function ``m_u`` (the conjunctive
combination) and a log scale ``s`` per batch member: the stored mass
function is ``m(A) = e^s m_u(A)`` for ``A != empty`` and ``m(empty) =
1 - e^s pl_u(frame)``.  ``s = 0`` is the conjunctive combination itself,
``s = -log pl_u(frame)`` its normalisation (Dempster's rule).  Dempster's
or the conjunctive combination of two such mass functions of one family is
again of that family (the weights add; the sources are pooled), so
:func:`dstk.combine` with these rules stays exact and cheap.

Conditioning stays in each family (an infinite weight against each label
outside the event; one more source, the event itself), and so does the
contextual discounting of a single discounted Bayesian source (its rates
grow).  Operations that need the focal sets listed (the masses as an array,
the focal-set dictionary, classical discounting, other combination rules,
the uncertainty measures) raise :class:`~dstk.exceptions.FrameTooLargeError`
saying what to use instead: they would enumerate up to ``2**n`` subsets.

References
----------
T. Denoeux (2019). Logistic regression, neural networks and Dempster-Shafer
theory: a new perspective. Knowledge-Based Systems 176, 54-67 (Section 3).
D. Mercier, B. Quost, T. Denoeux (2008). Refined modeling of sensor
reliability in the belief function framework using contextual discounting.
Information Fusion 9(2), 246-258.
P. Smets, R. Kennes (1994). The transferable belief model. Artificial
Intelligence 66(2), 191-234 (the pignistic transform, eq. 3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..exceptions import FrameTooLargeError, InvalidMassError, TotalConflictError
from . import _dense, _wide
from ._storage import Storage

__all__ = ["StructuredStorage", "WeightStorage", "DiscountedBayesStorage", "members"]

#: Values of a working array (rows x nodes x labels) of the pignistic transform.
_BLOCK_VALUES = 1 << 22


def members(mask: int, n: int) -> np.ndarray:
    """bool (n,): the labels of the subset with Python int bitmask ``mask``."""
    return _wide.membership(_wide.from_ints([int(mask)], n), n)[0]


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """``log(1 - e^x)`` for ``x <= 0`` (``-inf`` at 0, 0 at ``-inf``)."""
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(x))


def _logexpm1(w: np.ndarray) -> np.ndarray:
    """``log(e^w - 1)`` for ``w >= 0`` (``-inf`` at 0), without overflow."""
    return w + _log1mexp(-w)


def _sum_finite(x: np.ndarray, select: np.ndarray | None = None) -> np.ndarray:
    """Sum over the last axis of ``x`` (entries finite or ``-inf``) of the selected entries."""
    if select is not None:
        x = x[..., select]
    return np.sum(x, axis=-1) if x.shape[-1] else np.zeros(x.shape[:-1])


def _sum_except(x: np.ndarray) -> np.ndarray:
    """``sum_{l != k} x_l`` for each k (last axis), entries finite or ``-inf``."""
    finite = np.isfinite(x)
    values = np.where(finite, x, 0.0)
    total = values.sum(axis=-1, keepdims=True)
    infinite = (~finite).sum(axis=-1, keepdims=True) - (~finite)
    return np.where(infinite > 0, -np.inf, total - values)


class StructuredStorage(Storage):
    """A mass function held by parameters: the interface of :class:`~dstk.core._storage.Storage`.

    Subclasses keep their parameter arrays in ``arrays`` (each of shape
    ``batch_shape + trailing``, trailing axes given by ``TRAILING``), a
    log scale ``log_scale`` (``batch_shape``) and the number of labels ``n``;
    they define the unnormalised logarithms ``_log_pl``, ``_log_q``,
    ``_log_mass``, ``_log_contour``, ``_log_singletons`` and
    ``_log_pignistic`` and the pooling of sources ``_pooled``.
    """

    __slots__ = ("arrays", "log_scale", "n")
    is_dense = False
    is_wide = True
    is_structured = True
    #: The name of the form (a key of :data:`FORMS`), and of its parameters.
    FORM = ""
    NAMES: tuple[str, ...] = ()
    #: Number of trailing (non-batch) axes of each parameter array.
    TRAILING: tuple[int, ...] = ()

    def __init__(self, arrays: tuple[np.ndarray, ...], log_scale: np.ndarray, n: int) -> None:
        self.arrays = tuple(arrays)
        self.log_scale = np.asarray(log_scale, dtype=np.float64)
        self.n = int(n)

    # -- layout ------------------------------------------------------------------------
    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.log_scale.shape)

    def _refuse(self, what: str) -> FrameTooLargeError:
        return FrameTooLargeError(
            f"{what} needs the focal sets of this mass function listed, and it has up to 2**{self.n} of them "
            f"on its frame of {self.n} labels (it is held in the {self.describe()}). Query it with "
            "mass/bel/pl/q of given sets, contour, pignistic, plausibility_transform or decide, or combine it "
            "with others of its kind by the 'dempster' or 'conjunctive' rule; for its focal sets, build it "
            "on a frame of fewer labels."
        )

    @property
    def masses(self) -> np.ndarray:  # type: ignore[override]
        raise self._refuse("An array of its masses")

    @property
    def columns(self) -> np.ndarray:
        raise self._refuse("Listing its focal sets")

    @property
    def n_focal(self) -> int:
        raise self._refuse("Counting its focal sets")

    @property
    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in self.arrays) + self.log_scale.nbytes)

    def _like(self, arrays: Sequence[np.ndarray], log_scale: np.ndarray) -> StructuredStorage:
        return type(self)(tuple(arrays), log_scale, self.n)

    def with_masses(self, masses: np.ndarray) -> Storage:
        raise self._refuse("Replacing its masses")

    # -- batch handling ------------------------------------------------------------------
    def index(self, index: tuple[Any, ...]) -> StructuredStorage:
        rest = [(slice(None),) * t for t in self.TRAILING]
        arrays = [a[index + tail] for a, tail in zip(self.arrays, rest)]
        return self._like(arrays, self.log_scale[index])

    def reshape(self, batch_shape: tuple[Any, ...]) -> StructuredStorage:
        log_scale = self.log_scale.reshape(batch_shape)
        shape = log_scale.shape
        arrays = [a.reshape(shape + a.shape[a.ndim - t :]) for a, t in zip(self.arrays, self.TRAILING)]
        return self._like(arrays, log_scale)

    def broadcast_to(self, batch_shape: tuple[int, ...]) -> StructuredStorage:
        shape = tuple(batch_shape)
        for a, t in zip(self.arrays, self.TRAILING):
            _dense.check_array_bytes(shape + a.shape[a.ndim - t :], "the broadcast batch")
        arrays = [
            np.broadcast_to(a, shape + a.shape[a.ndim - t :]) for a, t in zip(self.arrays, self.TRAILING)
        ]
        return self._like(arrays, np.broadcast_to(self.log_scale, shape))

    # -- conversions and comparisons -----------------------------------------------------
    def to_dense(self, n: int, what: str) -> np.ndarray:
        _dense.check_dense_size(n, _dense.batch_size(self.batch_shape), what=what)
        raise self._refuse(what[:1].upper() + what[1:])

    def like_dense(self, masses: np.ndarray) -> Storage:
        raise self._refuse("A dense result")

    def focal_form(self) -> tuple[np.ndarray, np.ndarray]:
        raise self._refuse("This operation")

    def used_columns(self) -> tuple[np.ndarray, np.ndarray]:
        raise self._refuse("Listing its focal sets")

    def sum_over(self, selector: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        raise self._refuse("A sum over selected focal sets")

    def state(self) -> dict[str, Any]:
        """``m`` None, ``focal`` the form's name, ``fm`` a dict of the parameter arrays."""
        # np.array, not np.ascontiguousarray: that makes an unbatched (0-d) scale 1-d
        params = dict(zip(self.NAMES, (np.array(a, order="C") for a in self.arrays)))
        params["log_scale"] = np.array(self.log_scale, order="C")
        return {"m": None, "focal": self.FORM, "fm": params}

    def describe(self) -> str:
        raise NotImplementedError

    def _same_form(self, other: Storage) -> StructuredStorage:
        if type(other) is not type(self) or other.n != self.n:  # type: ignore[attr-defined]
            raise self._refuse("Comparing it with a mass function of another form")
        return other  # type: ignore[return-value]

    def equal(self, other: Storage) -> bool:
        """Equal parameters (a sufficient condition for equal masses)."""
        other = self._same_form(other)
        return all(np.array_equal(a, b) for a, b in zip(self.arrays, other.arrays)) and bool(
            np.array_equal(self.log_scale, other.log_scale)
        )

    def allclose(self, other: Storage, atol: float) -> bool:
        """Parameters within ``atol`` of each other."""
        other = self._same_form(other)
        return all(np.allclose(a, b, atol=atol, rtol=0) for a, b in zip(self.arrays, other.arrays)) and bool(
            np.allclose(self.log_scale, other.log_scale, atol=atol, rtol=0)
        )

    # -- the unnormalised quantities (subclasses) --------------------------------------------
    def _log_pl(self, inside: np.ndarray) -> np.ndarray:
        """``log pl_u(A)`` for the membership ``inside`` (bool (n,)) of A: ``batch_shape``."""
        raise NotImplementedError

    def _log_q(self, inside: np.ndarray) -> np.ndarray:
        """``log q_u(A)`` for a non-empty A: ``batch_shape``."""
        raise NotImplementedError

    def _log_mass(self, inside: np.ndarray) -> np.ndarray:
        """``log m_u(A)`` for a non-empty A: ``batch_shape``."""
        raise NotImplementedError

    def _log_contour(self) -> np.ndarray:
        """``log pl_u({w_k})``: ``batch_shape + (n,)``."""
        raise NotImplementedError

    def _log_singletons(self) -> np.ndarray:
        """``log m_u({w_k})``: ``batch_shape + (n,)``."""
        raise NotImplementedError

    def _log_pignistic(self) -> np.ndarray:
        """``log sum_{A contains w_k} m_u(A) / |A|``: ``batch_shape + (n,)``."""
        raise NotImplementedError

    def _pooled(self, axis: int) -> StructuredStorage:
        """The conjunctive combination of the sources on batch axis ``axis`` (scales multiplied)."""
        raise NotImplementedError

    # -- queries -----------------------------------------------------------------------------
    def _log_nonempty(self) -> np.ndarray:
        """``log (1 - m(empty)) = s + log pl_u(frame)``: ``batch_shape``."""
        return self.log_scale + self._log_pl(np.ones(self.n, dtype=bool))

    def empty_mass(self) -> np.ndarray:
        return -np.expm1(self._log_nonempty())

    def mass_of(self, mask: int) -> np.ndarray:
        if int(mask) == 0:
            return self.empty_mass()
        return np.exp(self.log_scale + self._log_mass(members(mask, self.n)))

    def pl(self, mask: int) -> np.ndarray:
        if int(mask) == 0:
            return np.zeros(self.batch_shape)
        return np.exp(self.log_scale + self._log_pl(members(mask, self.n)))

    def q(self, mask: int) -> np.ndarray:
        if int(mask) == 0:
            return np.ones(self.batch_shape)
        return np.exp(self.log_scale + self._log_q(members(mask, self.n)))

    def bel(self, mask: int) -> np.ndarray:
        """``bel(A) = pl(frame) - pl(not A)`` (each non-empty B is within A or meets its complement)."""
        inside = members(mask, self.n)
        count = int(inside.sum())
        if count == 0:
            return np.zeros(self.batch_shape)
        if count == 1:
            return self.mass_of(mask)
        full = self._log_pl(np.ones(self.n, dtype=bool))
        outside = self._log_pl(~inside)
        with np.errstate(invalid="ignore"):
            out = np.exp(self.log_scale + full) * -np.expm1(outside - full)
        return np.where(np.isfinite(full), out, 0.0)

    def b(self, mask: int) -> np.ndarray:
        return self.bel(mask) + self.empty_mass()

    def singleton_masses(self, n: int) -> np.ndarray:
        return np.exp(self.log_scale[..., None] + self._log_singletons())

    def contour(self, n: int) -> np.ndarray:
        _dense.check_array_bytes(self.batch_shape + (n,), "The contour function of this batch")
        return np.exp(self.log_scale[..., None] + self._log_contour())

    def pignistic(self, n: int) -> tuple[np.ndarray | None, np.ndarray]:
        log_raw = self._log_pignistic()
        top = np.max(log_raw, axis=-1, keepdims=True)
        ok = np.isfinite(top[..., 0])
        denom_ok = np.atleast_1d(ok).ravel()
        if not np.all(denom_ok):
            return None, denom_ok
        raw = np.exp(log_raw - top)
        return raw / raw.sum(axis=-1, keepdims=True), denom_ok

    def nonzero(self, tolerance: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        raise self._refuse("Listing its focal sets")

    def cardinality_weighted(self, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        raise self._refuse("A sum over the cardinalities of its focal sets")

    def cardinalities(self) -> np.ndarray:
        raise self._refuse("The cardinalities of its focal sets")

    def nonempty_focal(self) -> tuple[np.ndarray, np.ndarray]:
        raise self._refuse("This operation")

    def nonempty_members(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        raise self._refuse("This operation")

    # -- operations ----------------------------------------------------------------------------
    def discount(self, rate: np.ndarray, full: int) -> Storage:
        raise self._refuse("Discounting")

    def condition(self, mask: int) -> Storage:
        raise self._refuse("Conditioning")

    def contextual(self, rates: np.ndarray) -> Storage:
        """Contextual discounting by ``rates`` (checked, ``(..., n)``, broadcasting against the batch)."""
        raise self._refuse("Contextual discounting")

    def with_column(self, mask: int) -> tuple[Storage, int]:
        raise self._refuse("Setting the mass of a subset")

    def normalize(self) -> StructuredStorage:
        """Dempster's normalisation: ``s = -log pl_u(frame)``."""
        log_full = self._log_pl(np.ones(self.n, dtype=bool))
        if not np.all(np.isfinite(log_full)):
            raise TotalConflictError("Cannot normalise: all the mass is on the empty set (total conflict).")
        return self._like(self.arrays, -log_full)

    def combine_along(self, axis: int, rule: str, weights: Any) -> tuple[StructuredStorage, np.ndarray, Any]:
        """The conjunctive or Dempster's combination of the sources on batch axis ``axis``.

        Returns (result, conflict ``m_conj(empty)``, total-conflict flags or None).
        """
        if rule not in ("conjunctive", "dempster"):
            raise FrameTooLargeError(
                f"The {rule} rule needs the focal sets of these mass functions listed, up to 2**{self.n} of "
                f"them (they are held in the {self.describe()}); combine them by the 'dempster' or "
                "'conjunctive' rule, which keep this form."
            )
        pooled = self._pooled(axis)
        log_nonempty = pooled._log_nonempty()
        kappa = np.clip(-np.expm1(log_nonempty), 0.0, 1.0)
        if rule == "conjunctive":
            return pooled, kappa, None
        total = ~np.isfinite(log_nonempty)
        if np.any(total):
            raise TotalConflictError(
                "The mass functions are in total conflict (all the combined mass is on the empty set): "
                "Dempster's rule is undefined. Use the unnormalised conjunctive rule, or discount the sources."
            )
        return pooled.normalize(), kappa, None


def stack(storages: Sequence[Storage], batch_shape: tuple[int, ...], axis: int) -> StructuredStorage:
    """Stack structured storages of one form along a new batch axis ``axis`` (batch shapes broadcast)."""
    first = storages[0]
    assert isinstance(first, StructuredStorage)
    for other in storages[1:]:
        first._same_form(other)
    return type(first).stacked(storages, batch_shape, axis)  # type: ignore[attr-defined]


class WeightStorage(StructuredStorage):
    """Simple mass functions on the singletons and their complements, combined: the logistic form.

    ``positive`` and ``negative`` (``batch_shape + (n,)``, non-negative) are
    the weights of evidence ``w_k^+`` for ``{w_k}`` and ``w_k^-`` against it;
    ``m_u`` is the conjunctive combination of the simple mass functions
    ``{w_k}^{w_k^+}`` and ``(not w_k)^{w_k^-}``.  With ``m+`` the
    combination of the first kind (``m+(frame) = e^{-W}``, ``W = sum w^+``,
    ``m+({w_k}) = e^{-W} (e^{w_k^+} - 1)``) and ``c_k = e^{-w_k^-}``,
    ``d_k = 1 - c_k``, the combined random set is ``X+ & X-`` with ``X-``
    keeping each label independently with probability ``c_k`` (Denoeux 2019,
    Section 3), so that

    * ``q_u(A) = e^{-W} prod_{A} c_k`` for ``|A| >= 2``,
      ``q_u({w_k}) = (e^{-W} + m+({w_k})) c_k``;
    * ``pl_u(A) = e^{-W} (1 - prod_{A} d_k) + sum_{k in A} m+({w_k}) c_k``;
    * ``m_u(A) = e^{-W} prod_{A} c_k prod_{not A} d_k`` for ``|A| >= 2``,
      ``m_u({w_k}) = m+({w_k}) c_k + e^{-W} c_k prod_{l != k} d_l``;
    * ``sum_{A contains w_k} m_u(A) / |A| = m+({w_k}) c_k + e^{-W} c_k
      int_0^1 prod_{l != k} (d_l + c_l t) dt`` (the expectation of
      ``1 / (1 + N)`` for a sum ``N`` of independent Bernoulli variables),
      integrated exactly by Gauss-Legendre quadrature of ``n // 2 + 1``
      nodes (the integrand is a polynomial of degree ``n - 1``).

    Dempster's or the conjunctive combination adds the weights.
    """

    __slots__ = ()
    FORM = "weights"
    NAMES = ("positive", "negative")
    TRAILING = (1, 1)

    @classmethod
    def from_weights(
        cls, positive: np.ndarray, negative: np.ndarray, *, normalized: bool
    ) -> StructuredStorage:
        positive = np.asarray(positive, dtype=np.float64)
        negative = np.asarray(negative, dtype=np.float64)
        out = cls((positive, negative), np.zeros(positive.shape[:-1]), positive.shape[-1])
        return out.normalize() if normalized else out

    def describe(self) -> str:
        return "weight-of-evidence form (simple mass functions on the singletons and their complements)"

    def _logs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(log e^{-W} (batch), log m+({w_k}), log c_k, log d_k (batch + (n,)))."""
        positive, negative = self.arrays
        log_frame = -positive.sum(axis=-1)
        log_single = log_frame[..., None] + _logexpm1(positive)
        return log_frame, log_single, -negative, _log1mexp(-negative)

    def _log_pl(self, inside: np.ndarray) -> np.ndarray:
        from scipy.special import logsumexp  # (scipy.special: 0.2 s of `import dstk` if imported there)

        log_frame, log_single, log_c, log_d = self._logs()
        first = log_frame + _log1mexp(_sum_finite(log_d, inside))
        return np.logaddexp(first, logsumexp((log_single + log_c)[..., inside], axis=-1))

    def _log_q(self, inside: np.ndarray) -> np.ndarray:
        log_frame, log_single, log_c, _ = self._logs()
        if int(inside.sum()) == 1:
            k = int(np.flatnonzero(inside)[0])
            return np.logaddexp(log_frame, log_single[..., k]) + log_c[..., k]
        return log_frame + _sum_finite(log_c, inside)

    def _log_mass(self, inside: np.ndarray) -> np.ndarray:
        if int(inside.sum()) == 1:
            return self._log_singletons()[..., int(np.flatnonzero(inside)[0])]
        log_frame, _, log_c, log_d = self._logs()
        return log_frame + _sum_finite(log_c, inside) + _sum_finite(log_d, ~inside)

    def _log_singletons(self) -> np.ndarray:
        log_frame, log_single, log_c, log_d = self._logs()
        return np.logaddexp(log_single + log_c, log_frame[..., None] + log_c + _sum_except(log_d))

    def _log_contour(self) -> np.ndarray:
        log_frame, log_single, log_c, _ = self._logs()
        return np.logaddexp(log_frame[..., None], log_single) + log_c

    def _log_pignistic(self) -> np.ndarray:
        from scipy.special import logsumexp, roots_legendre

        log_frame, log_single, log_c, _ = self._logs()
        n = self.n
        x, w = roots_legendre(n // 2 + 1)
        t, log_v = (x + 1.0) / 2.0, np.log(w / 2.0)
        c = np.exp(log_c).reshape(-1, n)
        rows = c.shape[0]
        log_integral = np.empty((rows, n))
        block = max(1, _BLOCK_VALUES // (t.size * n))
        for start in range(0, rows, block):
            stop = min(rows, start + block)
            # log (d_l + c_l t_j) = log(1 - c_l (1 - t_j)), finite for 0 < t_j < 1
            terms = np.log1p(-c[start:stop, None, :] * (1.0 - t)[None, :, None])  # (rows, nodes, n)
            total = terms.sum(axis=2, keepdims=True)
            log_integral[start:stop] = logsumexp(log_v[None, :, None] + total - terms, axis=1)
        log_integral = log_integral.reshape(log_c.shape)
        return np.logaddexp(log_single + log_c, log_frame[..., None] + log_c + log_integral)

    def condition(self, mask: int) -> Storage:
        """Unnormalised conditioning on A, in closed form: infinite weight against each label outside A.

        ``m & A`` is the distribution of ``X+ & X- & A``; ``X- & A`` keeps each
        label of A with probability ``c_k`` and none outside it (``c_k = 0``).
        The masses of the non-empty sets keep their scale.
        """
        inside = members(mask, self.n)
        positive, negative = self.arrays
        negative = np.where(inside, negative, np.inf)
        return self._like((positive, negative), self.log_scale)

    def _pooled(self, axis: int) -> WeightStorage:
        positive, negative = self.arrays
        return WeightStorage(
            (positive.sum(axis=axis), negative.sum(axis=axis)), self.log_scale.sum(axis=axis), self.n
        )

    @classmethod
    def stacked(cls, storages: Sequence[Storage], batch_shape: tuple[int, ...], axis: int) -> WeightStorage:
        n = storages[0].n  # type: ignore[attr-defined]
        parts: list[list[np.ndarray]] = [[], [], []]
        for s in storages:
            assert isinstance(s, WeightStorage)
            parts[0].append(np.broadcast_to(s.arrays[0], tuple(batch_shape) + (n,)))
            parts[1].append(np.broadcast_to(s.arrays[1], tuple(batch_shape) + (n,)))
            parts[2].append(np.broadcast_to(s.log_scale, tuple(batch_shape)))
        return cls(
            (np.stack(parts[0], axis=axis), np.stack(parts[1], axis=axis)), np.stack(parts[2], axis=axis), n
        )

    @classmethod
    def restored(cls, params: dict[str, Any], n: int) -> WeightStorage:
        positive, negative, log_scale = (
            _saved(params, name) for name in ("positive", "negative", "log_scale")
        )
        if positive.shape != negative.shape or positive.shape != log_scale.shape + (n,):
            raise InvalidMassError(
                f"A saved MassFunction holds weights of shapes {positive.shape} and {negative.shape} and a "
                f"scale of shape {log_scale.shape}; a frame of {n} labels needs batch_shape + ({n},)."
            )
        if not (np.all(positive >= 0) and np.all(negative >= 0)):
            raise InvalidMassError("A saved MassFunction holds negative or NaN weights of evidence.")
        if not np.all(log_scale <= _scale_bound(cls((positive, negative), np.zeros(log_scale.shape), n))):
            raise InvalidMassError("A saved MassFunction holds a scale that makes its masses exceed one.")
        return cls((positive, negative), log_scale, n)


class _Subsets:
    """The subsets of ``S`` sources as bitmasks, and the pairs of disjoint subsets (``3**S`` of them)."""

    def __init__(self, sources: int) -> None:
        size = 1 << sources
        self.size, self.full = size, size - 1
        every = np.arange(size)
        self.member = ((every[:, None] >> np.arange(sources)[None, :]) & 1).astype(bool)  # (2**S, S)
        u, t = np.meshgrid(every, every, indexing="ij")
        disjoint = (u & t) == 0
        self.u, self.t = u[disjoint], t[disjoint]
        self.v = self.u | self.t
        self.scatter = np.zeros((self.u.size, size))
        self.scatter[np.arange(self.u.size), self.v] = 1.0
        self.start = np.zeros(size)
        self.start[0] = 1.0

    def step(self, state: np.ndarray, factor: np.ndarray) -> np.ndarray:
        """``new[V] = sum_{U | T = V, U & T = 0} state[U] factor[T]`` (last axes of length 2**S)."""
        return (state[..., self.u] * factor[..., self.t]) @ self.scatter

    def close(self, before: np.ndarray, factor: np.ndarray, after: np.ndarray) -> np.ndarray:
        """``sum over partitions (U, T, V) of the sources of before[U] factor[T] after[V]``."""
        return np.sum(before[..., self.u] * factor[..., self.t] * after[..., self.full ^ self.v], axis=-1)


class DiscountedBayesStorage(StructuredStorage):
    """Contextually discounted Bayesian sources, combined by the conjunctive rule: the fusion form.

    ``probabilities`` (``batch_shape + (S, n)``, rows summing to one) are
    the Bayesian mass functions ``p_s`` of ``S`` sources, ``rates`` (same
    shape, in [0, 1]) their contextual discount rates ``alpha_sk``
    (Mercier, Quost and Denoeux 2008).  Source ``s`` is the random set
    ``X_s = {w_s} | B_s``, ``w_s`` drawn from ``p_s`` and each other label
    ``k`` in ``B_s`` independently with probability ``alpha_sk``; ``m_u``
    is the distribution of ``X = X_1 & ... & X_S`` (independent sources).
    Given the choices ``(w_1, ..., w_S)`` the labels are in ``X``
    independently, label ``k`` with probability ``prod_{s: w_s != k}
    alpha_sk``; summing over which sources chose each label (a dynamic
    programme over the subsets of the sources, ``3**S`` pairs a label):

    * ``pl_u(A) = 1 - P(X & A = empty)``, ``m_u(A) = P(X = A)``, in
      ``O(n 3**S)``;
    * ``q_u(A) = prod_s sum_w p_sw prod_{k in A, k != w} alpha_sk``;
    * ``pl_u({w_k}) = prod_s (p_sk + alpha_sk (1 - p_sk))``;
    * ``sum_{A contains w_k} m_u(A) / |A| = int_0^1 E[1(k in X) t**(|X| - 1)] dt``,
      the integrand a polynomial of degree ``n - 1`` in ``t`` integrated
      exactly by Gauss-Legendre quadrature (``n // 2 + 1`` nodes), each
      node a programme over the labels before and after ``k``.

    The conjunctive combination pools the sources.
    """

    __slots__ = ("_cache",)
    FORM = "discounted_bayes"
    NAMES = ("probabilities", "rates")
    TRAILING = (2, 2)

    def __init__(self, arrays: tuple[np.ndarray, ...], log_scale: np.ndarray, n: int) -> None:
        super().__init__(arrays, log_scale, n)
        self._cache: dict[str, np.ndarray] = {}

    @classmethod
    def from_sources(
        cls, probabilities: np.ndarray, rates: np.ndarray, *, normalized: bool
    ) -> StructuredStorage:
        probabilities = np.asarray(probabilities, dtype=np.float64)
        rates = np.broadcast_to(np.asarray(rates, dtype=np.float64), probabilities.shape)
        out = cls((probabilities, rates), np.zeros(probabilities.shape[:-2]), probabilities.shape[-1])
        return out.normalize() if normalized else out

    def describe(self) -> str:
        return f"form of {self.arrays[0].shape[-2]} contextually discounted Bayesian sources"

    @property
    def sources(self) -> int:
        return int(self.arrays[0].shape[-2])

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities, rates) as (rows, S, n)."""
        shape = (-1, self.sources, self.n)
        return self.arrays[0].reshape(shape), self.arrays[1].reshape(shape)

    def _factors(
        self, subsets: _Subsets, p: np.ndarray, alpha: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(pick, keep) of label ``k``, (rows, 2**S): ``prod_{s in T} p_sk`` and ``prod_{s not in T} alpha_sk``."""
        member = subsets.member[None, :, :]
        pick = np.where(member, p[:, None, :, k], 1.0).prod(axis=-1)
        keep = np.where(member, 1.0, alpha[:, None, :, k]).prod(axis=-1)
        return pick, keep

    def _batch(self, values: np.ndarray) -> np.ndarray:
        return values.reshape(self.batch_shape + values.shape[1:])

    def _log_pl(self, inside: np.ndarray) -> np.ndarray:
        p, alpha = self._rows()
        subsets = _Subsets(self.sources)
        state = np.broadcast_to(subsets.start, (p.shape[0], subsets.size))
        for k in np.flatnonzero(inside):
            pick, keep = self._factors(subsets, p, alpha, int(k))
            state = subsets.step(state, (1.0 - keep) * pick)
        # the sources that chose no label of A chose one outside it
        outside = np.clip(1.0 - p[:, :, inside].sum(axis=-1), 0.0, 1.0)  # (rows, S)
        rest = np.where(subsets.member[None, :, :], 1.0, outside[:, None, :]).prod(axis=-1)
        miss = np.clip(np.sum(state * rest, axis=-1), 0.0, 1.0)
        with np.errstate(divide="ignore"):
            return self._batch(np.log1p(-miss))

    def _log_mass(self, inside: np.ndarray) -> np.ndarray:
        if int(inside.sum()) == 1:  # all the singletons in one pass, kept
            return self._log_singletons()[..., int(np.flatnonzero(inside)[0])]
        p, alpha = self._rows()
        subsets = _Subsets(self.sources)
        state = np.broadcast_to(subsets.start, (p.shape[0], subsets.size))
        for k in range(self.n):
            pick, keep = self._factors(subsets, p, alpha, k)
            state = subsets.step(state, (keep if inside[k] else 1.0 - keep) * pick)
        with np.errstate(divide="ignore"):
            return self._batch(np.log(np.maximum(state[:, subsets.full], 0.0)))

    def _log_q(self, inside: np.ndarray) -> np.ndarray:
        from scipy.special import logsumexp

        p, alpha = self._rows()
        with np.errstate(divide="ignore"):
            log_alpha, log_p = np.log(alpha[..., inside]), np.log(p[..., inside])
            outside = np.log(np.clip(1.0 - p[..., inside].sum(axis=-1), 0.0, 1.0))
        # w outside A: every label of A from B_s; w in A: the others
        chosen = logsumexp(log_p + _sum_except(log_alpha), axis=-1)
        per_source = np.logaddexp(outside + _sum_finite(log_alpha), chosen)  # (rows, S)
        return self._batch(per_source.sum(axis=-1))

    def _log_contour(self) -> np.ndarray:
        p, alpha = self.arrays
        with np.errstate(divide="ignore"):
            return np.log(p + alpha * (1.0 - p)).sum(axis=-2)

    def _passes(
        self, factor_of: Callable[[int], tuple[np.ndarray, np.ndarray]], shape: tuple[int, ...]
    ) -> np.ndarray:
        """``sum over partitions of before * own * after`` for each label: (..., n).

        ``factor_of(k)`` gives (the factor of label k when it is not the one
        singled out, its factor when it is), each ``shape + (2**S,)``.
        """
        subsets = _Subsets(self.sources)
        n = self.n
        _dense.check_array_bytes(shape + (n, subsets.size), "The prefix states of the pignistic transform")
        before = np.empty(shape + (n, subsets.size))
        state = np.broadcast_to(subsets.start, shape + (subsets.size,))
        for k in range(n):
            before[..., k, :] = state
            state = subsets.step(state, factor_of(k)[0])
        out = np.empty(shape + (n,))
        after = np.broadcast_to(subsets.start, shape + (subsets.size,))
        for k in range(n - 1, -1, -1):
            other, own = factor_of(k)
            out[..., k] = subsets.close(before[..., k, :], own, after)
            after = subsets.step(after, other)
        return out

    def _log_singletons(self) -> np.ndarray:
        if "singletons" not in self._cache:
            p, alpha = self._rows()
            subsets = _Subsets(self.sources)

            def factor_of(k: int) -> tuple[np.ndarray, np.ndarray]:
                pick, keep = self._factors(subsets, p, alpha, k)
                return (1.0 - keep) * pick, keep * pick

            singles = self._passes(factor_of, (p.shape[0],))
            with np.errstate(divide="ignore"):
                self._cache["singletons"] = self._batch(np.log(np.maximum(singles, 0.0)))
        return self._cache["singletons"]

    def _log_pignistic(self) -> np.ndarray:
        from scipy.special import roots_legendre

        p, alpha = self._rows()
        subsets = _Subsets(self.sources)
        x, w = roots_legendre(self.n // 2 + 1)
        t, v = (x + 1.0) / 2.0, w / 2.0
        rows = p.shape[0]
        out = np.empty((rows, self.n))
        block = max(1, _BLOCK_VALUES // (t.size * self.n * subsets.size))
        for start in range(0, rows, block):
            stop = min(rows, start + block)
            pb, ab = p[start:stop], alpha[start:stop]

            def factor_of(k: int, pb: np.ndarray = pb, ab: np.ndarray = ab) -> tuple[np.ndarray, np.ndarray]:
                pick, keep = self._factors(subsets, pb, ab, k)  # (rows, 2**S)
                # label k out of X, or in it with weight t: 1 - keep (1 - t); the label singled out: keep
                other = (1.0 - keep[:, None, :] * (1.0 - t)[None, :, None]) * pick[:, None, :]
                return other, np.broadcast_to((keep * pick)[:, None, :], other.shape)

            values = self._passes(factor_of, (stop - start, t.size))  # (rows, nodes, n)
            out[start:stop] = np.einsum("j,rjk->rk", v, values)
        with np.errstate(divide="ignore"):
            return self._batch(np.log(np.maximum(out, 0.0)))

    def condition(self, mask: int) -> Storage:
        """Unnormalised conditioning on A, in closed form: one more source, ``X_{S+1} = A``.

        The categorical mass function on A is a source of this family: ``w``
        drawn in A (uniformly) and rates 1 on A, 0 outside it, so ``{w} | B = A``.
        """
        inside = members(mask, self.n)
        if not np.any(inside):
            return DiscountedBayesStorage(
                self.arrays, np.full(self.batch_shape, -np.inf), self.n
            )  # all the mass on the empty set
        p, alpha = self.arrays
        shape = self.batch_shape + (1, self.n)
        extra_p = np.broadcast_to(inside / inside.sum(), shape)
        extra_alpha = np.broadcast_to(inside.astype(np.float64), shape)
        arrays = (np.concatenate([p, extra_p], axis=-2), np.concatenate([alpha, extra_alpha], axis=-2))
        return DiscountedBayesStorage(arrays, self.log_scale, self.n)

    def _is_one_source(self) -> bool:
        return self.sources == 1 and bool(np.all(self.log_scale == 0.0))

    def contextual(self, rates: np.ndarray) -> Storage:
        """Contextual discounting of one source stays in the family: ``B`` grows by the new rates.

        ``X = {w} | B`` discounted with rates ``beta`` is ``{w} | B | B'`` with ``B'``
        independent, each label with probability ``beta_k``: rates ``1 - (1 - a_k)(1 - beta_k)``.
        A combination of several sources is not of that form (the new set ``B'`` would be
        shared by the sources): refused.
        """
        if not self._is_one_source():
            raise self._refuse(f"Contextual discounting of a combination of {self.sources} sources")
        p, alpha = self.arrays
        batch = np.broadcast_shapes(self.batch_shape, rates.shape[:-1])
        new = 1.0 - (1.0 - alpha) * (1.0 - rates[..., None, :])
        shape = batch + (1, self.n)
        return DiscountedBayesStorage(
            (np.broadcast_to(p, shape).copy(), np.broadcast_to(new, shape).copy()), np.zeros(batch), self.n
        )

    def _pooled(self, axis: int) -> DiscountedBayesStorage:
        ndim = len(self.batch_shape)
        axis = axis % ndim

        def pool(a: np.ndarray) -> np.ndarray:
            moved = np.moveaxis(a, axis, -3)  # (..., K, S, n)
            return moved.reshape(moved.shape[:-3] + (-1, self.n))

        arrays = (pool(self.arrays[0]), pool(self.arrays[1]))
        return DiscountedBayesStorage(arrays, self.log_scale.sum(axis=axis), self.n)

    @classmethod
    def stacked(
        cls, storages: Sequence[Storage], batch_shape: tuple[int, ...], axis: int
    ) -> DiscountedBayesStorage:
        n = storages[0].n  # type: ignore[attr-defined]
        sources = max(s.sources for s in storages)  # type: ignore[attr-defined]
        probabilities, rates, scales = [], [], []
        for s in storages:
            assert isinstance(s, DiscountedBayesStorage)
            shape = tuple(batch_shape) + (sources, n)
            p = np.full(shape, 1.0 / n)  # missing sources: vacuous (every rate 1)
            a = np.ones(shape)
            p[..., : s.sources, :] = np.broadcast_to(s.arrays[0], tuple(batch_shape) + (s.sources, n))
            a[..., : s.sources, :] = np.broadcast_to(s.arrays[1], tuple(batch_shape) + (s.sources, n))
            probabilities.append(p)
            rates.append(a)
            scales.append(np.broadcast_to(s.log_scale, tuple(batch_shape)))
        arrays = (np.stack(probabilities, axis=axis), np.stack(rates, axis=axis))
        return cls(arrays, np.stack(scales, axis=axis), n)

    @classmethod
    def restored(cls, params: dict[str, Any], n: int) -> DiscountedBayesStorage:
        p, alpha, log_scale = (_saved(params, name) for name in ("probabilities", "rates", "log_scale"))
        if p.shape != alpha.shape or p.ndim < 2 or p.shape[:-2] != log_scale.shape or p.shape[-1] != n:
            raise InvalidMassError(
                f"A saved MassFunction holds probabilities of shape {p.shape}, rates of shape {alpha.shape} "
                f"and a scale of shape {log_scale.shape}; a frame of {n} labels needs batch_shape + (S, {n})."
            )
        if not (np.all(p >= 0) and np.all(np.abs(p.sum(axis=-1) - 1.0) <= _dense.MASS_TOLERANCE)):
            raise InvalidMassError("A saved MassFunction holds source probabilities that do not sum to one.")
        if not (np.all(alpha >= 0) and np.all(alpha <= 1)):
            raise InvalidMassError("A saved MassFunction holds discount rates outside [0, 1].")
        if not np.all(log_scale <= _scale_bound(cls((p, alpha), np.zeros(log_scale.shape), n))):
            raise InvalidMassError("A saved MassFunction holds a scale that makes its masses exceed one.")
        return cls((p, alpha), log_scale, n)


def _saved(params: dict[str, Any], name: str) -> np.ndarray:
    value = params.get(name) if isinstance(params, dict) else None
    if not isinstance(value, np.ndarray) or value.dtype != np.float64:
        raise InvalidMassError(f"A saved MassFunction lacks its float64 array {name!r}.")
    return value


def _scale_bound(unscaled: StructuredStorage) -> np.ndarray:
    """The largest log scale of a mass function (``-log pl_u(frame)``, with a rounding margin)."""
    log_full = unscaled._log_pl(np.ones(unscaled.n, dtype=bool))
    return -log_full + 1e-9


#: The structured forms by name (the ``focal`` entry of a saved state).
FORMS: dict[str, type[StructuredStorage]] = {
    "weights": WeightStorage,
    "discounted_bayes": DiscountedBayesStorage,
}


def restore(form: str, params: Any, n: int) -> StructuredStorage:
    """Rebuild a saved structured storage (checked: raises InvalidMassError for a bad state)."""
    if form not in FORMS or not isinstance(params, dict):
        raise InvalidMassError(f"A saved MassFunction holds an unknown form {form!r}.")
    return FORMS[form].restored(params, n)  # type: ignore[attr-defined]
