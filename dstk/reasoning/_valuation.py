"""Valuations: (batched) mass functions over several variables on their product frame.

A valuation stores its focal sets as boolean arrays over the configurations of
its variables, shape ``(n_focal, d1, ..., dk)``, shared by the batch, and the
masses as an array of shape ``batch_shape + (n_focal,)``.  Projection is
``any`` over the eliminated axes, vacuous extension is broadcasting to the new
variable order, and conjunctive combination is the pairwise intersection of
focal sets (Shafer 1976, ch. 3; Kohlas & Shenoy 2000, sec. 3).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import broadcast_batch_shapes
from ..core import RULES, Frame, MassFunction, combine
from ..core._dense import DENSE_MAX_LABELS, MASS_TOLERANCE, MAX_DENSE_BYTES
from ..exceptions import (
    DataTypeError,
    FrameError,
    FrameMismatchError,
    FrameTooLargeError,
    InvalidMassError,
    TotalConflictError,
)

__all__ = ["Variable", "Valuation"]

#: Largest frame whose batched mass functions are read through ``to_array`` (2**n masses a sample):
#: the dense storage; larger frames keep only their focal sets, read sample by sample.
_DENSE_ARRAY_MAX_LABELS = DENSE_MAX_LABELS


class Variable:
    """A named variable with a finite set of labels.

    Parameters
    ----------
    name : str
        The variable's name; two variables are equal when their names and
        labels are equal.
    labels : iterable of hashable
        Its possible values, distinct, at least one.

    Raises
    ------
    DataTypeError
        If ``name`` is not a non-empty string or ``labels`` not an iterable of hashables.
    FrameError
        If ``labels`` is empty, repeats a label or holds a NaN.

    Examples
    --------
    >>> from dstk.reasoning import Variable
    >>> Variable("rain", ["yes", "no"])
    Variable('rain', ('yes', 'no'))
    """

    __slots__ = ("name", "labels", "_index")

    def __init__(self, name: str, labels: Iterable[Any]) -> None:
        if not isinstance(name, str) or not name:
            raise DataTypeError(f"`name` must be a non-empty string; got {name!r}.")
        if isinstance(labels, str):
            raise DataTypeError(f"`labels` must be an iterable of labels, not the string {labels!r}.")
        try:
            labs = tuple(labels)
        except TypeError:
            raise DataTypeError(f"`labels` must be an iterable of hashable labels; got {labels!r}.") from None
        if not labs:
            raise FrameError(f"Variable {name!r} needs at least one label in `labels`.")
        for i, lab in enumerate(labs):
            if isinstance(lab, (float, np.floating)) and lab != lab:
                raise FrameError(
                    f"`labels` of variable {name!r} must not be NaN (label {i}): NaN != NaN, so it could "
                    "never be looked up. Give missing values a label of their own (e.g. 'missing')."
                )
        try:
            index = {lab: i for i, lab in enumerate(labs)}
        except TypeError:
            raise DataTypeError(f"`labels` of variable {name!r} must be hashable; got {labs!r}.") from None
        if len(index) != len(labs):
            raise FrameError(f"`labels` of variable {name!r} repeat a label: {labs!r}.")
        self.name = name
        self.labels = labs
        self._index = index

    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.labels!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variable) and other.name == self.name and other.labels == self.labels

    def __hash__(self) -> int:
        return hash((self.name, self.labels))

    def index(self, label: Any) -> int:
        """The position of ``label`` among the labels.

        Parameters
        ----------
        label : hashable

        Returns
        -------
        int

        Raises
        ------
        FrameError
            If ``label`` is not a label of the variable.
        """
        try:
            return self._index[label]
        except (KeyError, TypeError):
            raise FrameError(
                f"{label!r} is not a label of variable {self.name!r}; its labels are {self.labels!r}."
            ) from None


def _check_variables(variables: Any, what: str = "variables") -> tuple[Variable, ...]:
    if isinstance(variables, Variable):
        variables = (variables,)
    try:
        out = tuple(variables)
    except TypeError:
        raise DataTypeError(f"`{what}` must be a sequence of Variable; got {variables!r}.") from None
    for v in out:
        if not isinstance(v, Variable):
            raise DataTypeError(f"`{what}` must hold Variable objects; got {type(v).__name__} ({v!r}).")
    names = [v.name for v in out]
    if len(set(names)) != len(names):
        raise FrameError(f"`{what}` repeat a variable: {names!r}.")
    return out


def _check_size(shape: Sequence[int], n_focal: int, what: str) -> None:
    nbytes = int(np.prod(shape, dtype=np.float64)) * max(int(n_focal), 1)
    if nbytes > MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"{what} needs {n_focal} focal sets over {int(np.prod(shape, dtype=np.float64))} configurations "
            f"({nbytes / 2**30:.1f} GiB), above the limit of {MAX_DENSE_BYTES / 2**30:.0f} GiB. Use fewer "
            "variables per valuation or another elimination order."
        )


def _merge(focal: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge equal focal sets (summing their masses) and drop focal sets of zero mass in every batch."""
    n = focal.shape[0]
    if n == 0:
        return focal, mass
    flat = focal.reshape(n, -1)
    packed = np.packbits(flat, axis=1)
    keep = np.any(mass.reshape(-1, n) != 0, axis=0) if mass.size else np.ones(n, bool)
    if not keep.all():
        packed, focal, mass = packed[keep], focal[keep], mass[..., keep]
        n = focal.shape[0]
        if n == 0:
            return focal, mass
    uniq, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if len(uniq) == n:
        return focal, mass
    # sum the masses of equal focal sets: sort by group, then one reduceat over the groups' starts
    by_group = np.argsort(inverse, kind="stable")
    starts = np.searchsorted(inverse[by_group], np.arange(len(uniq)))
    return focal[first], np.add.reduceat(mass[..., by_group], starts, axis=-1)


class Valuation:
    """A (batched) mass function over several variables, on the product of their labels.

    Parameters
    ----------
    variables : sequence of Variable
        The variables, in the order of the configurations' entries.
    focal_sets : sequence of sets of tuples, or bool array of shape (n_focal, d1, ..., dk)
        Each focal set as a set of configurations (tuples of labels in the
        order of ``variables``), or as a boolean array indexed by the
        variables' label positions.
    masses : array_like of shape (..., n_focal)
        The masses; leading axes are the batch.
    validate : bool, default=True
        Check that the masses are finite, non-negative and sum to one.

    Raises
    ------
    DataTypeError
        If ``focal_sets`` is a numeric (not boolean) array, or a set (its order would not pair
        with ``masses``).
    FrameMismatchError
        If a boolean ``focal_sets`` array does not match the variables' shape.
    FrameError
        If a configuration is not a tuple of labels of the variables.
    InvalidMassError
        If ``masses`` do not match the focal sets, are negative or do not sum to one.
    FrameTooLargeError
        If the focal sets over the product frame would exceed the memory cap.

    Examples
    --------
    >>> from dstk.reasoning import Variable, Valuation
    >>> rain, wet = Variable("rain", ["yes", "no"]), Variable("wet", ["yes", "no"])
    >>> v = Valuation.relation([rain, wet], [("yes", "yes"), ("no", "yes"), ("no", "no")], mass=0.9)
    >>> v.marginalize([wet]).bel({("yes",)})
    0.0
    """

    __slots__ = ("variables", "_focal", "_mass")

    def __init__(
        self,
        variables: Sequence[Variable],
        focal_sets: Any,
        masses: ArrayLike,
        *,
        validate: bool = True,
    ) -> None:
        variables = _check_variables(variables)
        shape = tuple(len(v) for v in variables)
        if isinstance(focal_sets, np.ndarray) and focal_sets.dtype == bool:
            focal = focal_sets
            if focal.shape[1:] != shape:
                raise FrameMismatchError(
                    f"`focal_sets` has shape {focal.shape}; expected (n_focal,) + {shape} for the variables "
                    f"{[v.name for v in variables]}."
                )
        elif isinstance(focal_sets, np.ndarray) and focal_sets.dtype.kind in "iufc":
            raise DataTypeError(
                f"`focal_sets` is a numeric array (dtype {focal_sets.dtype}); a membership array must be "
                "boolean, of shape (n_focal,) + the variables' shape: pass `focal_sets.astype(bool)`, or "
                "a sequence of sets of configuration tuples."
            )
        elif isinstance(focal_sets, (set, frozenset)):
            raise DataTypeError(
                "`focal_sets` is a set, whose order is arbitrary, so the masses cannot be paired with its "
                "members; pass a list of focal sets in the order of `masses` (a single focal set goes in "
                "a list of one)."
            )
        else:
            try:
                sets = list(focal_sets)
            except TypeError:
                raise DataTypeError(
                    f"`focal_sets` must be a sequence of sets of configurations; got {focal_sets!r}."
                ) from None
            _check_size(shape, len(sets), "The valuation")
            focal = np.zeros((len(sets),) + shape, dtype=bool)
            for i, s in enumerate(sets):
                focal[i][_configuration_mask_index(variables, s, "focal_sets")] = True
        try:
            mass = np.asarray(masses, dtype=np.float64)
        except (TypeError, ValueError):
            raise DataTypeError(f"`masses` must be an array of numbers; got {masses!r}.") from None
        if mass.ndim == 0 or mass.shape[-1] != focal.shape[0]:
            raise InvalidMassError(
                f"`masses` must have a last axis of length {focal.shape[0]} (one mass per focal set); "
                f"got shape {mass.shape}."
            )
        if validate:
            if not np.all(np.isfinite(mass)) or np.any(mass < -MASS_TOLERANCE):
                raise InvalidMassError("`masses` must be finite and non-negative.")
            total = mass.sum(axis=-1)
            if np.any(np.abs(total - 1.0) > MASS_TOLERANCE):
                raise InvalidMassError(
                    f"`masses` must sum to one over the focal sets; the sums range over "
                    f"[{total.min():.6g}, {total.max():.6g}]."
                )
            # rounding residue below 0 (within the tolerance) is a zero mass, as in MassFunction
            mass = np.where(mass < 0, 0.0, mass)
        self.variables = variables
        self._focal, self._mass = _merge(np.ascontiguousarray(focal), mass)

    @classmethod
    def _raw(cls, variables: tuple[Variable, ...], focal: np.ndarray, mass: np.ndarray) -> Valuation:
        out = cls.__new__(cls)
        out.variables = variables
        out._focal, out._mass = _merge(focal, mass)
        return out

    # ------------------------------------------------------------------ builders
    @classmethod
    def relation(
        cls, variables: Sequence[Variable], configurations: Iterable[Any], *, mass: ArrayLike = 1.0
    ) -> Valuation:
        """The valuation "these configurations are possible", with the rest of the mass on the frame.

        Parameters
        ----------
        variables : sequence of Variable
        configurations : iterable of tuples
            The possible configurations (tuples of labels in the order of ``variables``).
        mass : float or array_like, default=1.0
            Mass of the relation (an array gives a batch); ``1 - mass`` goes to
            the whole product frame.

        Returns
        -------
        Valuation

        Raises
        ------
        FrameTooLargeError
            If the product frame would exceed the memory cap.
        """
        variables = _check_variables(variables)
        m = np.asarray(mass, dtype=np.float64)
        if not np.all(np.isfinite(m)) or np.any(m < 0) or np.any(m > 1):
            raise InvalidMassError(f"`mass` must lie in [0, 1]; got {mass!r}.")
        shape = tuple(len(v) for v in variables)
        _check_size(shape, 2, "The relation")
        focal = np.zeros((2,) + shape, dtype=bool)
        focal[0][_configuration_mask_index(variables, configurations, "configurations")] = True
        if not focal[0].any() and np.any(m > 0):
            raise FrameError(
                "`configurations` is empty: a relation with no possible configuration and positive "
                "`mass` would put that mass on the empty set. Give at least one configuration."
            )
        focal[1] = True
        return cls._raw(variables, focal, np.stack([m, 1.0 - m], axis=-1))

    @classmethod
    def vacuous(cls, variables: Sequence[Variable], *, batch_shape: tuple[int, ...] = ()) -> Valuation:
        """The vacuous valuation (all the mass on the product frame).

        Parameters
        ----------
        variables : sequence of Variable
        batch_shape : tuple of int, default=()

        Returns
        -------
        Valuation

        Raises
        ------
        FrameTooLargeError
            If the product frame would exceed the memory cap.
        DataTypeError
            If ``batch_shape`` is not a tuple of integers.
        ValueError
            If ``batch_shape`` holds a negative length.
        """
        variables = _check_variables(variables)
        if not isinstance(batch_shape, tuple) or not all(
            isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in batch_shape
        ):
            raise DataTypeError(f"`batch_shape` must be a tuple of integers, e.g. (3,); got {batch_shape!r}.")
        if any(k < 0 for k in batch_shape):
            raise ValueError(f"`batch_shape` must not hold negative lengths; got {batch_shape!r}.")
        _check_size([len(v) for v in variables], 1, "The vacuous valuation")
        focal = np.ones((1,) + tuple(len(v) for v in variables), dtype=bool)
        return cls._raw(variables, focal, np.ones(tuple(batch_shape) + (1,)))

    @classmethod
    def from_mass_function(
        cls, mass_function: MassFunction, variables: Sequence[Variable] | Variable
    ) -> Valuation:
        """The valuation of a mass function on one variable, or on the product frame of several.

        Parameters
        ----------
        mass_function : MassFunction
            On the labels of the single variable, or on the configuration
            tuples of ``variables`` (as :meth:`to_mass_function` makes).
        variables : Variable or sequence of Variable

        Returns
        -------
        Valuation
        """
        if not isinstance(mass_function, MassFunction):
            raise DataTypeError(
                f"`mass_function` must be a MassFunction; got {type(mass_function).__name__}."
            )
        variables = _check_variables(variables)
        shape = tuple(len(v) for v in variables)
        labels = mass_function.frame.labels
        cells: list[tuple[int, ...]]
        if len(variables) == 1 and set(labels) == set(variables[0].labels):
            cells = [(variables[0].index(lab),) for lab in labels]
        else:
            configs = set(itertools.product(*(v.labels for v in variables)))
            if len(labels) != len(configs) or set(labels) != configs:
                raise FrameMismatchError(
                    "The frame of `mass_function` must hold the labels of the single variable or the "
                    f"configuration tuples of {[v.name for v in variables]}."
                )
            cells = [tuple(v.index(x) for v, x in zip(variables, lab, strict=True)) for lab in labels]
        focal_dict = mass_function.focal_sets() if mass_function.batch_shape == () else None
        if focal_dict is not None:
            sets = list(focal_dict)
            masses = np.array([focal_dict[s] for s in sets])
        elif len(labels) <= _DENSE_ARRAY_MAX_LABELS:
            # batched: the union of the focal sets over the batch
            m = mass_function.to_array("m")
            nz = np.flatnonzero(np.any(m.reshape(-1, m.shape[-1]) != 0, axis=0))
            sets = [frozenset(labels[i] for i in range(len(labels)) if (b >> i) & 1) for b in nz]
            masses = m[..., nz]
        else:
            # batched, stored by focal sets (no array of 2**n masses): the union of each sample's focal sets
            union: dict[frozenset, None] = {}
            for index in np.ndindex(*mass_function.batch_shape):
                union.update(dict.fromkeys(mass_function.batch[index].focal_sets()))
            sets = list(union)
            masses = np.stack([np.asarray(mass_function.mass(s), dtype=np.float64) for s in sets], axis=-1)
        pos = {lab: i for i, lab in enumerate(labels)}
        focal = np.zeros((len(sets),) + shape, dtype=bool)
        for k, s in enumerate(sets):
            for lab in s:
                focal[(k,) + cells[pos[lab]]] = True
        return cls._raw(variables, focal, masses)

    # ------------------------------------------------------------------ properties
    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The batch shape (leading axes of the masses)."""
        return self._mass.shape[:-1]

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of labels of each variable."""
        return tuple(len(v) for v in self.variables)

    @property
    def n_focal(self) -> int:
        """The number of distinct focal sets (shared by the batch)."""
        return int(self._focal.shape[0])

    def focal_sets(self) -> list[tuple[frozenset, Any]]:
        """The focal sets as frozensets of configuration tuples, with their masses.

        Returns
        -------
        list of (frozenset, float or ndarray)
            One pair per focal set; the mass is an array of the batch shape when batched.
        """
        out = []
        for k in range(self.n_focal):
            cells = np.argwhere(self._focal[k])
            s = frozenset(tuple(v.labels[i] for v, i in zip(self.variables, c, strict=True)) for c in cells)
            m = self._mass[..., k]
            out.append((s, float(m) if m.ndim == 0 else m.copy()))
        return out

    def __repr__(self) -> str:
        return (
            f"Valuation(variables={[v.name for v in self.variables]}, n_focal={self.n_focal}, "
            f"batch_shape={self.batch_shape})"
        )

    # ------------------------------------------------------------------ operations
    def _axes_of(self, variables: Sequence[Variable], what: str) -> list[int]:
        mine = {v.name: i for i, v in enumerate(self.variables)}
        out = []
        for v in variables:
            i = mine.get(v.name)
            if i is None or self.variables[i] != v:
                raise FrameMismatchError(
                    f"`{what}`: variable {v.name!r} is not a variable of this valuation "
                    f"({[u.name for u in self.variables]})."
                )
            out.append(i)
        return out

    def marginalize(self, variables: Sequence[Variable] | Variable) -> Valuation:
        """Project every focal set onto ``variables`` (a subset, in any order).

        Parameters
        ----------
        variables : Variable or sequence of Variable

        Returns
        -------
        Valuation
            On ``variables`` in the order given.
        """
        variables = _check_variables(variables)
        keep = self._axes_of(variables, "variables")
        drop = tuple(i + 1 for i in range(len(self.variables)) if i not in keep)
        focal = self._focal.any(axis=drop) if drop else self._focal
        # remaining axes are in the original order; move them to the requested order
        remaining = sorted(keep)
        perm = [0] + [1 + remaining.index(i) for i in keep]
        return Valuation._raw(variables, np.ascontiguousarray(np.transpose(focal, perm)), self._mass)

    def extend(self, variables: Sequence[Variable]) -> Valuation:
        """Vacuous extension to a superset of the variables, in any order (cylindrical extension).

        Parameters
        ----------
        variables : sequence of Variable
            Must contain every variable of this valuation.

        Returns
        -------
        Valuation
        """
        variables = _check_variables(variables)
        names = {v.name: v for v in variables}
        for v in self.variables:
            if v.name in names and names[v.name] != v:
                raise FrameMismatchError(
                    f"`variables`: {v.name!r} has other labels than the valuation's {v!r}: {names[v.name]!r}."
                )
            if v.name not in names:
                raise FrameMismatchError(
                    f"`variables` must contain every variable of the valuation; {v!r} is missing."
                )
        shape = tuple(len(v) for v in variables)
        _check_size(shape, self.n_focal, "The extension")
        mine = [v.name for v in self.variables]
        new_pos = [i for i, v in enumerate(variables) if v.name in names and v.name in mine]
        # place my axes at positions new_pos (sorted) in the order of variables
        focal = self._focal
        perm = [0] + [1 + mine.index(variables[i].name) for i in sorted(new_pos)]
        focal = np.transpose(focal, perm)
        expand = tuple(1 + i for i in range(len(variables)) if variables[i].name not in mine)
        focal = np.expand_dims(focal, expand) if expand else focal
        focal = np.ascontiguousarray(np.broadcast_to(focal, (self.n_focal,) + shape))
        return Valuation._raw(variables, focal, self._mass)

    def combine(self, *others: Valuation, rule: str = "dempster", on_conflict: str = "raise") -> Valuation:
        """Combine with other valuations on the union of the variables.

        Parameters
        ----------
        *others : Valuation
        rule : str, default="dempster"
            A rule of :data:`dstk.RULES`.  ``"conjunctive"`` and
            ``"dempster"`` intersect the focal sets directly (any number of
            configurations); the other rules convert to a
            :class:`~dstk.MassFunction` on the product frame and call
            :func:`dstk.combine`.
        on_conflict : {"raise", "vacuous", "nan"}, default="raise"
            What Dempster's rule does with a total conflict, as in :func:`dstk.combine`.

        Returns
        -------
        Valuation
            On the variables of this valuation followed by the new variables of the others.

        Raises
        ------
        ValueError
            An unknown ``rule`` or ``on_conflict``, or batch shapes that do not broadcast.
        FrameTooLargeError
            If the pairs of focal sets, or their masses over the batch, would exceed the memory cap.
        """
        if not isinstance(rule, str) or rule not in RULES:
            raise ValueError(f"`rule` must be one of {', '.join(map(repr, RULES))}; got {rule!r}.")
        _check_on_conflict(on_conflict)
        for o in others:
            if not isinstance(o, Valuation):
                raise DataTypeError(f"combine takes Valuation objects; got {type(o).__name__}.")
        union = union_of_variables((self, *others))
        if rule in ("conjunctive", "dempster"):
            out = self.extend(union)
            for o in others:
                out = _conjunctive(out, o.extend(union))
            return out.normalize(on_conflict=on_conflict) if rule == "dempster" else out
        mfs = [v.extend(union).to_mass_function() for v in (self, *others)]
        mf = combine(mfs, rule=rule, on_conflict=on_conflict)
        return Valuation.from_mass_function(mf, union)

    def __and__(self, other: Valuation) -> Valuation:
        return self.combine(other, rule="conjunctive")

    def normalize(self, *, on_conflict: str = "raise") -> Valuation:
        """Dempster's normalisation: drop the empty set and rescale by ``1 - m(empty)``.

        Parameters
        ----------
        on_conflict : {"raise", "vacuous", "nan"}, default="raise"
            Per-sample policy for a total conflict, as in :func:`dstk.combine`.

        Returns
        -------
        Valuation

        Raises
        ------
        TotalConflictError
            If ``m(empty) = 1`` for a sample and ``on_conflict="raise"``.
        ValueError
            If ``on_conflict`` is not one of the three policies.
        """
        _check_on_conflict(on_conflict)
        empty = ~self._focal.reshape(self.n_focal, -1).any(axis=1)
        k = self._mass[..., empty].sum(axis=-1)
        focal, mass = self._focal[~empty], self._mass[..., ~empty]
        # the non-empty mass: 0 only at a total conflict (non-negative masses, no cancellation); near
        # one, 1 - k would lose the digits of a strong conflict that Dempster's rule still normalises
        nonempty = mass.sum(axis=-1)
        total = np.where(k < 0.5, 1.0 - k, nonempty)
        bad = nonempty <= 0.0
        if np.any(bad):
            if on_conflict == "raise":
                raise TotalConflictError(
                    "The combined valuations are in total conflict (every intersection of focal sets is "
                    "empty); pass on_conflict='vacuous' or 'nan' for a per-sample policy."
                )
        with np.errstate(invalid="ignore", divide="ignore"):
            mass = mass / np.where(bad, 1.0, total)[..., None]
        if np.any(bad):
            full = np.ones((1,) + self.shape, dtype=bool)
            focal = np.concatenate([focal, full])
            fill = 1.0 if on_conflict == "vacuous" else np.nan
            extra = np.where(bad, fill, 0.0)[..., None]
            mass = np.concatenate(
                [np.where(bad[..., None], 0.0 if fill == 1.0 else np.nan, mass), extra], axis=-1
            )
        return Valuation._raw(self.variables, focal, mass)

    def condition(self, configurations: Iterable[Any], *, normalize: bool = True) -> Valuation:
        """Dempster's conditioning on a set of configurations of this valuation's variables.

        Parameters
        ----------
        configurations : iterable of tuples
            The conditioning event (configurations in the order of the variables).
        normalize : bool, default=True
            Rescale by the plausibility of the event (Dempster); False keeps
            the conflict on the empty set (unnormalised conditioning).

        Returns
        -------
        Valuation

        Raises
        ------
        TotalConflictError
            If ``normalize`` and the event has plausibility 0 in some sample.
        """
        mask = self.configurations_mask(configurations)
        out = Valuation._raw(self.variables, self._focal & mask[None], self._mass)
        if not normalize:
            return out
        try:
            return out.normalize()
        except TotalConflictError:
            raise TotalConflictError(
                "The conditioning event has plausibility 0 (no focal set meets it) in some sample, so "
                "Dempster's conditioning is undefined; condition on a plausible event, or pass "
                "normalize=False to keep the mass on the empty set."
            ) from None

    def configurations_mask(self, configurations: Iterable[Any]) -> np.ndarray:
        """A boolean array over the configurations, True at ``configurations``.

        Parameters
        ----------
        configurations : iterable of tuples
            Configurations in the order of the variables.

        Returns
        -------
        ndarray of bool, shape ``self.shape``
        """
        mask = np.zeros(self.shape, dtype=bool)
        mask[_configuration_mask_index(self.variables, configurations, "configurations")] = True
        return mask

    def bel(self, configurations: Iterable[Any]) -> float | np.ndarray:
        """Belief of a set of configurations (the mass of the non-empty focal sets inside it).

        Parameters
        ----------
        configurations : iterable of tuples
            Configurations in the order of the variables.

        Returns
        -------
        float or ndarray
            An array of the batch shape when batched.
        """
        return self._mass_of(
            configurations, lambda focal, event: focal.any(axis=1) & ~(focal & ~event).any(axis=1)
        )

    def pl(self, configurations: Iterable[Any]) -> float | np.ndarray:
        """Plausibility of a set of configurations (the mass of the focal sets meeting it).

        Parameters
        ----------
        configurations : iterable of tuples
            As in :meth:`bel`.

        Returns
        -------
        float or ndarray
            As in :meth:`bel`.
        """
        return self._mass_of(configurations, lambda focal, event: (focal & event).any(axis=1))

    def _mass_of(
        self, configurations: Iterable[Any], selects: Callable[[np.ndarray, np.ndarray], np.ndarray]
    ) -> float | np.ndarray:
        """The mass of the focal sets that ``selects(focal, event)`` picks (flat boolean arrays)."""
        event = self.configurations_mask(configurations).reshape(-1)
        picked = selects(self._focal.reshape(self.n_focal, -1), event)
        return _scalar(self._mass[..., picked].sum(axis=-1))

    def pignistic(self, configurations: Iterable[Any]) -> float | np.ndarray:
        """Pignistic probability of a set of configurations (Smets & Kennes 1994, eq. 3.1).

        Parameters
        ----------
        configurations : iterable of tuples
            As in :meth:`bel`.

        Returns
        -------
        float or ndarray
            As in :meth:`bel`.

        Raises
        ------
        InvalidMassError
            If all the mass of a sample is on the empty set (total conflict).
        """
        mask = self.configurations_mask(configurations).reshape(-1)
        flat = self._focal.reshape(self.n_focal, -1)
        size = flat.sum(axis=1)
        share = np.where(size > 0, (flat & mask).sum(axis=1) / np.maximum(size, 1), 0.0)
        empty = self._mass[..., size == 0].sum(axis=-1)
        nonempty = self._mass[..., size > 0].sum(axis=-1)
        if np.any(nonempty <= 0.0):
            raise InvalidMassError(
                "The pignistic transform is undefined when all the mass is on the empty set (total "
                "conflict); the valuation (or a sample of the batch) is such a one. Normalise with "
                "on_conflict='vacuous' or 'nan' for a per-sample policy."
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            # 1 - m(empty) loses the digits of a nearly total conflict: divide by the non-empty mass there
            return _scalar((self._mass * share).sum(axis=-1) / np.where(empty < 0.5, 1.0 - empty, nonempty))

    def to_mass_function(self) -> MassFunction:
        """The mass function on the product :class:`~dstk.Frame` (labels: configuration tuples).

        Returns
        -------
        MassFunction
            On ``Frame(itertools.product(*labels))`` in the order of the variables.
        """
        n = int(np.prod(self.shape))
        frame = Frame(itertools.product(*(v.labels for v in self.variables)))
        flat = self._focal.reshape(self.n_focal, -1)
        if n > 64:  # the wide focal-set form takes the membership matrix
            return MassFunction.from_focal_sets(flat, self._mass, frame)
        bits = (flat.astype(np.uint64) << np.arange(n, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
        return MassFunction.from_focal_sets(bits.astype(np.int64) if n < 64 else bits, self._mass, frame)


def _check_on_conflict(on_conflict: Any) -> None:
    if not isinstance(on_conflict, str) or on_conflict not in ("raise", "vacuous", "nan"):
        raise ValueError(f"`on_conflict` must be 'raise', 'vacuous' or 'nan'; got {on_conflict!r}.")


def _scalar(x: np.ndarray) -> float | np.ndarray:
    return float(x) if np.ndim(x) == 0 else x


def union_of_variables(valuations: Iterable[Valuation]) -> tuple[Variable, ...]:
    """The variables of the valuations, in order of first appearance (a clear error on a name clash)."""
    seen: dict[str, Variable] = {}
    for val in valuations:
        for v in val.variables:
            old = seen.setdefault(v.name, v)
            if old != v:
                raise FrameMismatchError(
                    f"Two variables named {v.name!r} have different labels: {old!r}, {v!r}."
                )
    return tuple(seen.values())


def _configuration_mask_index(variables: tuple[Variable, ...], configurations: Any, what: str) -> tuple:
    """Index arrays selecting ``configurations`` in an array of shape (d1, ..., dk)."""
    if isinstance(configurations, (str, bytes)):
        raise DataTypeError(f"`{what}` must be a collection of configuration tuples; got {configurations!r}.")
    try:
        configs = list(configurations)
    except TypeError:
        raise DataTypeError(
            f"`{what}` must be a collection of configuration tuples; got {configurations!r}."
        ) from None
    k = len(variables)
    cols: list[list[int]] = [[] for _ in range(k)]
    for c in configs:
        if k == 1 and not isinstance(c, tuple):
            c = (c,)
        if not isinstance(c, tuple) or len(c) != k:
            bare = isinstance(configurations, tuple) and len(configurations) == k and k > 1
            hint = f" (a single configuration goes in a list: [{configurations!r}])" if bare else ""
            raise FrameError(
                f"`{what}`: each configuration must be a tuple of {k} labels (one per variable "
                f"{[v.name for v in variables]}); got {c!r}{hint}."
            )
        for j, (v, lab) in enumerate(zip(variables, c, strict=True)):
            cols[j].append(v.index(lab))
    return tuple(np.asarray(col, dtype=np.intp) for col in cols)


def _conjunctive(a: Valuation, b: Valuation) -> Valuation:
    """Unnormalised conjunctive combination of two valuations on the same variables (same order)."""
    na, nb = a.n_focal, b.n_focal
    batch = broadcast_batch_shapes([a.batch_shape, b.batch_shape], "the valuations")
    _check_size(a.shape, na * nb, "The conjunctive combination")
    n_samples = float(np.prod(batch, dtype=np.float64))
    mass_bytes = 8.0 * n_samples * na * nb
    if mass_bytes > MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"The conjunctive combination needs {na} x {nb} pairs of focal sets for each of the "
            f"{n_samples:.0f} samples of the batch {batch} ({mass_bytes / 2**30:.1f} GiB of masses), above "
            f"the limit of {MAX_DENSE_BYTES / 2**30:.0f} GiB. Split the batch, or combine fewer focal sets."
        )
    focal = (a._focal[:, None] & b._focal[None, :]).reshape((na * nb,) + a.shape)
    mass = (a._mass[..., :, None] * b._mass[..., None, :]).reshape(batch + (na * nb,))
    return Valuation._raw(a.variables, focal, mass)
