"""Conditional belief functions and exact propagation in valuation networks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import broadcast_batch_shapes
from ..core import MassFunction
from ..core._dense import MAX_DENSE_BYTES
from ..exceptions import (
    DataTypeError,
    FrameError,
    FrameMismatchError,
    FrameTooLargeError,
    TotalConflictError,
)
from ._valuation import (
    Valuation,
    Variable,
    _check_on_conflict,
    _check_size,
    _check_variables,
    _conjunctive,
    union_of_variables,
)

__all__ = ["ValuationNetwork", "conditional_embedding", "generalized_bayes"]


def _as_valuation(x: Any, variable: Variable, what: str) -> Valuation:
    if isinstance(x, Valuation):
        if x.variables != (variable,):
            raise FrameMismatchError(
                f"`{what}` must be a valuation on {variable!r} alone; got one on {list(x.variables)!r}."
            )
        return x
    if isinstance(x, MassFunction):
        return Valuation.from_mass_function(x, variable)
    raise DataTypeError(f"`{what}` must be a MassFunction or a Valuation; got {type(x).__name__}.")


def conditional_embedding(
    conditional: MassFunction | Valuation, *, given: Variable, condition: Iterable[Any], target: Variable
) -> Valuation:
    """Ballooning extension of a conditional belief function m(· | x in A) on Y to X × Y.

    Each focal set ``B`` of the conditional becomes ``(A × B) ∪ (Ā × Y)``:
    the least committed valuation on X × Y whose conditioning on ``A`` gives
    back the conditional (Smets 1993, sec. 4; Shafer 1982).

    Parameters
    ----------
    conditional : MassFunction or Valuation
        The belief function on ``target`` given the condition.
    given : Variable
        The conditioning variable X.
    condition : iterable of labels of ``given``
        The conditioning set A (e.g. a single label in a list).
    target : Variable
        The variable Y of the conditional.

    Returns
    -------
    Valuation
        On ``(given, target)``.

    Raises
    ------
    FrameMismatchError
        If ``conditional`` is not on ``target``.
    DataTypeError
        If ``condition`` is not a collection of labels (a single label goes in a list).
    FrameError
        If ``condition`` is empty or holds a label that ``given`` lacks.

    Examples
    --------
    >>> import dstk
    >>> from dstk.reasoning import Variable, conditional_embedding
    >>> x, y = Variable("x", ["x1", "x2"]), Variable("y", ["y1", "y2"])
    >>> emb = conditional_embedding(dstk.MassFunction({"y1": 1.0}, frame=["y1", "y2"]),
    ...                             given=x, condition=["x1"], target=y)
    >>> sorted(next(iter(emb.focal_sets()))[0])
    [('x1', 'y1'), ('x2', 'y1'), ('x2', 'y2')]
    """
    _check_variables((given, target))
    cond = _as_valuation(conditional, target, "conditional")
    try:
        labels = None if isinstance(condition, (str, bytes)) else list(condition)
    except TypeError:
        labels = None
    if labels is None:
        raise DataTypeError(
            f"`condition` must be a collection of labels of {given.name!r}; got {condition!r} "
            f"(a single label goes in a list: [{condition!r}])."
        )
    if not labels:
        raise FrameError(
            f"`condition` is empty: a conditional belief function is given a non-empty set of labels of "
            f"{given.name!r}."
        )
    a = np.zeros(len(given), dtype=bool)
    for lab in labels:
        a[given.index(lab)] = True
    focal = a[None, :, None] & cond._focal[:, None, :] | ~a[None, :, None]
    return Valuation._raw((given, target), np.ascontiguousarray(focal), cond._mass)


def generalized_bayes(
    conditionals: Mapping[Any, MassFunction | Valuation],
    observation: MassFunction | Valuation,
    *,
    given: Variable,
    target: Variable,
    normalize: bool = True,
) -> Valuation:
    """Smets' generalised Bayesian theorem: the posterior on X from m(· | x) on Y and an observation on Y.

    For an observation ``B ⊆ Y``,
    ``m(A | B) = Π_{x ∈ A} pl(B | x) Π_{x ∉ A} (1 − pl(B | x))``
    (Smets 1993, eq. 4.4; normalised by ``1 − m(∅ | B)``), averaged over the
    observation's focal sets ``B``.

    Parameters
    ----------
    conditionals : mapping label of ``given`` -> MassFunction or Valuation
        The conditional belief function on ``target`` for each value of ``given``.
    observation : MassFunction or Valuation
        The evidence on ``target``.
    given, target : Variable
    normalize : bool, default=True
        Apply Dempster's normalisation.

    Returns
    -------
    Valuation
        On ``given``.

    Raises
    ------
    FrameMismatchError
        If a label of ``given`` has no conditional, a key is not a label of ``given``, or a belief
        function is not on ``target``.
    ValueError
        If the batch shapes of the conditionals and the observation do not broadcast.
    FrameTooLargeError
        If the ``2**len(given)`` subsets of the posterior would exceed the memory cap.
    TotalConflictError
        If ``normalize`` and the observation has plausibility 0 given every label of ``given``.

    Examples
    --------
    >>> import dstk
    >>> from dstk.reasoning import Variable, generalized_bayes
    >>> x, y = Variable("x", ["x1", "x2"]), Variable("y", ["y1", "y2"])
    >>> conds = {"x1": dstk.MassFunction({"y1": 0.8, ("y1", "y2"): 0.2}, frame=["y1", "y2"]),
    ...          "x2": dstk.MassFunction({"y2": 0.6, ("y1", "y2"): 0.4}, frame=["y1", "y2"])}
    >>> post = generalized_bayes(conds, dstk.MassFunction({"y1": 1.0}, frame=["y1", "y2"]), given=x, target=y)
    >>> round(post.bel({("x1",)}), 2)  # pl(y1|x1) = 1, pl(y1|x2) = 0.4: m({x1}) = 0.6
    0.6
    """
    _check_variables((given, target))
    if not isinstance(conditionals, Mapping):
        raise DataTypeError("`conditionals` must be a mapping from each label of `given` to a mass function.")
    missing = [x for x in given.labels if x not in conditionals]
    if missing:
        raise FrameMismatchError(f"`conditionals` lack the labels {missing!r} of {given.name!r}.")
    extra = [x for x in conditionals if x not in given._index]
    if extra:
        raise FrameMismatchError(
            f"`conditionals` has keys {extra!r} that are not labels of {given.name!r} "
            f"(its labels are {given.labels!r}); key each conditional by a label of `given`."
        )
    conds = [_as_valuation(conditionals[x], target, "conditionals") for x in given.labels]
    obs = _as_valuation(observation, target, "observation")
    n = len(given)
    batch = broadcast_batch_shapes(
        [c.batch_shape for c in conds] + [obs.batch_shape], "`conditionals` and `observation`"
    )
    n_values = 2.0**n * n * obs.n_focal * float(np.prod(batch))
    if 8.0 * n_values > MAX_DENSE_BYTES:
        raise FrameTooLargeError(
            f"The posterior on {given.name!r} has 2**{n} subsets; the generalised Bayesian theorem would "
            f"need {8.0 * n_values / 2**30:.3g} GiB, above the limit of {MAX_DENSE_BYTES / 2**30:.0f} GiB. "
            f"Group the labels of {given.name!r} or split the batch."
        )
    # pl(B | x) for every focal set B of the observation: (batch..., n_obs, n)
    pls = []
    for c in conds:
        hit = (c._focal[:, None, :] & obs._focal[None, :, :]).any(axis=2)  # (n_c, n_obs)
        pls.append(np.einsum("...c,co->...o", c._mass, hit.astype(float)))
    pl = np.stack(np.broadcast_arrays(*pls), axis=-1)  # (batch..., n_obs, n)
    subsets = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)  # (2^n, n)
    terms = np.where(subsets[None], pl[..., None, :], 1.0 - pl[..., None, :]) if pl.ndim == 2 else None
    if terms is None:
        terms = np.where(subsets, pl[..., None, :], 1.0 - pl[..., None, :])
    m_given = terms.prod(axis=-1)  # (batch..., n_obs, 2^n)
    om = np.broadcast_to(obs._mass, batch + (obs.n_focal,))
    mass = np.einsum("...o,...os->...s", om, np.broadcast_to(m_given, batch + m_given.shape[-2:]))
    out = Valuation._raw((given,), subsets.copy(), mass)
    if not normalize:
        return out
    try:
        return out.normalize()
    except TotalConflictError:
        raise TotalConflictError(
            f"The observation has plausibility 0 given every label of {given.name!r} (in some sample), "
            "so the normalised posterior is undefined; check the observation and the conditionals, or "
            "pass normalize=False to keep the mass on the empty set."
        ) from None


def _min_fill_order(domains: list[frozenset[str]], eliminate: set[str]) -> list[str]:
    """Greedy min-fill elimination order (ties broken by the smaller clique, then the name)."""
    adj: dict[str, set[str]] = {}
    for d in domains:
        for v in d:
            adj.setdefault(v, set()).update(d - {v})
    order = []
    left = set(eliminate)
    while left:

        def fill(v: str) -> tuple[int, int, str]:
            nb = list(adj[v])
            f = sum(1 for i, a in enumerate(nb) for b in nb[i + 1 :] if b not in adj[a])
            return (f, len(nb), v)

        v = min(left, key=fill)
        nb = adj.pop(v)
        for a in nb:
            adj[a].discard(v)
            adj[a].update(nb - {a})
        left.discard(v)
        order.append(v)
    return order


class ValuationNetwork:
    """A set of valuations (independent pieces of evidence) over several variables.

    Marginals are computed exactly by variable elimination (the fusion
    algorithm of Shenoy 1992; Kohlas & Shenoy 2000, sec. 4): the valuations
    holding an eliminated variable are combined conjunctively and the variable
    is marginalised out; Dempster's normalisation is applied once at the end.

    Parameters
    ----------
    valuations : iterable of Valuation

    Raises
    ------
    DataTypeError
        If ``valuations`` is not an iterable of Valuation objects.
    FrameMismatchError
        If two variables share a name but not their labels.

    Examples
    --------
    >>> from dstk.reasoning import Variable, Valuation, ValuationNetwork
    >>> a, b = Variable("a", [0, 1]), Variable("b", [0, 1])
    >>> net = ValuationNetwork([Valuation.relation([a, b], [(0, 0), (1, 1)], mass=0.8),
    ...                         Valuation.relation([a], [(1,)], mass=0.5)])
    >>> round(net.marginal([b]).bel({(1,)}), 3)
    0.4
    """

    def __init__(self, valuations: Iterable[Valuation]) -> None:
        if isinstance(valuations, Valuation) or not isinstance(valuations, Iterable):
            raise DataTypeError(
                f"`valuations` must be an iterable of Valuation objects (a list); got {type(valuations).__name__}."
            )
        vals = list(valuations)
        if not vals:
            raise ValueError("`valuations` must hold at least one Valuation.")
        self.valuations = vals
        _ = self.variables  # checks the valuations and their variables

    @property
    def variables(self) -> tuple[Variable, ...]:
        """The variables of :attr:`valuations`, in order of first appearance.

        Read from the list at each use, so that evidence appended to
        :attr:`valuations` after construction takes part in every query.
        """
        for v in self.valuations:
            if not isinstance(v, Valuation):
                raise DataTypeError(f"`valuations` must hold Valuation objects; got {type(v).__name__}.")
        return union_of_variables(self.valuations)

    def elimination_order(self, variables: Sequence[Variable] | Variable) -> list[Variable]:
        """The min-fill order in which :meth:`marginal` eliminates the variables not in ``variables``.

        Parameters
        ----------
        variables : Variable or sequence of Variable
            The variables to keep.

        Returns
        -------
        list of Variable
        """
        keep = {v.name for v in _check_variables(variables)}
        by_name = {v.name: v for v in self.variables}
        for name in keep:
            if name not in by_name:
                raise FrameMismatchError(f"`variables`: {name!r} is not a variable of the network.")
        domains = [frozenset(v.name for v in val.variables) for val in self.valuations]
        return [by_name[n] for n in _min_fill_order(domains, set(by_name) - keep)]

    def marginal(
        self,
        variables: Sequence[Variable] | Variable,
        *,
        elimination_order: Sequence[Variable] | None = None,
        normalize: bool = True,
        on_conflict: str = "raise",
    ) -> Valuation:
        """The marginal on ``variables`` of the combination of all the valuations.

        Parameters
        ----------
        variables : Variable or sequence of Variable
        elimination_order : sequence of Variable, optional
            The order in which to eliminate the other variables; min-fill by default.
        normalize : bool, default=True
            Dempster's rule (True) or the unnormalised conjunctive rule (False).
        on_conflict : {"raise", "vacuous", "nan"}, default="raise"
            As in :func:`dstk.combine`.

        Returns
        -------
        Valuation
            On ``variables`` in the order given.

        Raises
        ------
        FrameTooLargeError
            Before a combination would need more memory than the cap.
        FrameMismatchError
            If a variable of ``variables`` or ``elimination_order`` is not the network's
            (an unknown name, or the name with other labels).
        ValueError
            If ``elimination_order`` does not list exactly the variables to eliminate.
        """
        variables = _check_variables(variables)
        _check_on_conflict(on_conflict)
        if elimination_order is None:
            order = self.elimination_order(variables)
        else:
            order = list(_check_variables(elimination_order, "elimination_order"))
            need = {v.name for v in self.variables} - {v.name for v in variables}
            if {v.name for v in order} != need:
                raise ValueError(
                    "`elimination_order` must list exactly the variables not in `variables`: "
                    f"{sorted(need)}; got {[v.name for v in order]}."
                )
        by_name = {v.name: v for v in self.variables}
        for v in order:
            if by_name[v.name] != v:
                raise FrameMismatchError(
                    f"`elimination_order`: {v!r} has other labels than the network's {by_name[v.name]!r}."
                )
        for v in variables:
            if by_name.get(v.name) != v:
                raise FrameMismatchError(f"`variables`: {v!r} is not a variable of the network.")
        out = _eliminate(list(self.valuations), [x.name for x in order]).marginalize(variables)
        return out.normalize(on_conflict=on_conflict) if normalize else out

    def marginals(
        self,
        variables: Sequence[Variable] | Variable | None = None,
        *,
        elimination_order: Sequence[Variable] | None = None,
        normalize: bool = True,
        on_conflict: str = "raise",
    ) -> dict[str, Valuation]:
        """The marginal on each of ``variables`` in one pass over a join tree.

        Shafer-Shenoy propagation (Shafer & Shenoy 1990; Kohlas & Shenoy
        2000): the join tree is made of the cliques of an
        elimination order of all the variables; every valuation is assigned
        to a clique holding its variables; messages (combination of a
        clique's valuations with the messages from its other neighbours,
        marginalised on the separator) go once towards the root and once
        back, after which every clique holds the marginal of the joint
        combination on its variables.  The cost is about twice that of one
        :meth:`marginal`, for all the variables at once.

        Parameters
        ----------
        variables : Variable or sequence of Variable, optional
            The variables whose marginals are wanted; all the network's by default.
        elimination_order : sequence of Variable, optional
            An order of all the variables of the network, from which the join
            tree is built; min-fill by default.
        normalize, on_conflict
            As in :meth:`marginal`.

        Returns
        -------
        dict of str -> Valuation
            The marginal on each variable, keyed by the variable's name, in the order given.

        Raises
        ------
        FrameTooLargeError
            Before any computation, if a clique of the join tree has more
            configurations than the memory cap allows; and before a
            combination would need more memory than the cap.
        FrameMismatchError
            If a variable of ``variables`` or ``elimination_order`` is not the network's
            (an unknown name, or the name with other labels).
        ValueError
            If ``elimination_order`` does not list every variable of the network once.

        Examples
        --------
        >>> from dstk.reasoning import Variable, Valuation, ValuationNetwork
        >>> a, b, c = (Variable(name, [0, 1]) for name in "abc")
        >>> same = [(0, 0), (1, 1)]
        >>> net = ValuationNetwork([Valuation.relation([a, b], same, mass=0.8),
        ...                         Valuation.relation([b, c], same, mass=0.8),
        ...                         Valuation.relation([a], [(1,)], mass=0.5)])
        >>> {name: round(m.bel({(1,)}), 3) for name, m in net.marginals().items()}
        {'a': 0.5, 'b': 0.4, 'c': 0.32}
        """
        _check_on_conflict(on_conflict)
        by_name = {v.name: v for v in self.variables}
        wanted = self.variables if variables is None else _check_variables(variables)
        for v in wanted:
            if by_name.get(v.name) != v:
                raise FrameMismatchError(f"`variables`: {v!r} is not a variable of the network.")
        domains = [frozenset(v.name for v in val.variables) for val in self.valuations]
        if elimination_order is None:
            order = _min_fill_order(domains, set(by_name))
        else:
            given = _check_variables(elimination_order, "elimination_order")
            for v in given:
                if v.name in by_name and by_name[v.name] != v:
                    raise FrameMismatchError(
                        f"`elimination_order`: {v!r} has other labels than the network's {by_name[v.name]!r}."
                    )
            if {v.name for v in given} != set(by_name):
                raise ValueError(
                    "`elimination_order` must list every variable of the network once: "
                    f"{sorted(by_name)}; got {[v.name for v in given]}."
                )
            order = [v.name for v in given]
        if not order:  # valuations on no variable: no marginal to give
            return {}
        pos = {name: i for i, name in enumerate(order)}
        cliques, parents = _join_tree(domains, order)
        clique_vars = [tuple(by_name[n] for n in sorted(c, key=pos.__getitem__)) for c in cliques]
        for cv in clique_vars:
            _check_size([len(v) for v in cv], 1, f"The join-tree clique {[v.name for v in cv]}")
        n = len(order)
        assigned: list[list[Valuation]] = [[] for _ in range(n)]
        for val, d in zip(self.valuations, domains, strict=True):
            assigned[min((pos[u] for u in d), default=n - 1)].append(val)
        children: list[list[int]] = [[] for _ in range(n)]
        for i, p in enumerate(parents):
            if p >= 0:
                children[p].append(i)

        def separator(i: int) -> tuple[Variable, ...]:
            return tuple(v for v in clique_vars[i] if v.name != order[i])

        def project(i: int, incoming: list[Valuation], onto: tuple[Variable, ...]) -> Valuation:
            # clique i's valuations and incoming messages, marginalised on `onto` by local elimination
            factors = [Valuation.vacuous(onto), *assigned[i], *incoming]
            domains = [frozenset(u.name for u in f.variables) for f in factors]
            drop = set().union(*domains) - {u.name for u in onto}
            return _eliminate(factors, _min_fill_order(domains, drop)).marginalize(onto)

        # parents come after their children in the order: collect upwards, distribute downwards
        up: dict[int, Valuation] = {}
        for i in range(n - 1):
            up[i] = project(i, [up[c] for c in children[i]], separator(i))
        down: dict[int, Valuation] = {}
        for p in range(n - 1, -1, -1):
            for i in children[p]:
                incoming = [up[c] for c in children[p] if c != i] + ([down[p]] if p in down else [])
                down[i] = project(p, incoming, separator(i))
        out: dict[str, Valuation] = {}
        for v in wanted:
            i = pos[v.name]
            incoming = [up[c] for c in children[i]] + ([down[i]] if i in down else [])
            m = project(i, incoming, (v,))
            out[v.name] = m.normalize(on_conflict=on_conflict) if normalize else m
        return out


def _join_tree(domains: list[frozenset[str]], order: list[str]) -> tuple[list[frozenset[str]], list[int]]:
    """The elimination cliques of ``order`` and the parent of each (Shafer & Shenoy 1990).

    Clique ``i`` is the variable ``order[i]`` with its neighbours when it is
    eliminated; its parent is the clique of the first variable eliminated
    after it among those neighbours (separator: the clique minus
    ``order[i]``).  Cliques without such a neighbour (one per connected
    component) hang on the last clique with an empty separator, so that the
    tree is connected; the last clique is the root (parent -1).
    """
    adj: dict[str, set[str]] = {v: set() for v in order}
    for d in domains:
        for v in d:
            adj[v].update(d - {v})
    pos = {v: i for i, v in enumerate(order)}
    cliques, parents = [], []
    for v in order:
        nb = adj.pop(v)
        for a in nb:
            adj[a].discard(v)
            adj[a].update(nb - {a})
        cliques.append(frozenset(nb | {v}))
        parents.append(min(pos[u] for u in nb) if nb else len(order) - 1)
    if parents:
        parents[-1] = -1
    return cliques, parents


def _eliminate(factors: list[Valuation], order: Sequence[str]) -> Valuation:
    """The fusion algorithm: for each variable name of ``order``, the factors holding it are
    combined conjunctively and the variable is marginalised out; the rest are combined."""
    pool = list(factors)
    for name in order:
        holding = [p for p in pool if any(u.name == name for u in p.variables)]
        pool = [p for p in pool if not any(u.name == name for u in p.variables)]
        joint = _combine_all(holding)
        pool.append(joint.marginalize([u for u in joint.variables if u.name != name]))
    return _combine_all(pool)


def _combine_all(vals: list[Valuation]) -> Valuation:
    union = union_of_variables(vals)
    vals = sorted(vals, key=lambda v: v.n_focal)
    out = vals[0].extend(union)
    for v in vals[1:]:
        out = _conjunctive(out, v.extend(union))
    return out
