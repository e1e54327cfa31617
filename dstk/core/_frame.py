"""Frames of discernment: ordered finite sets of hypotheses and their subsets."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np

from ..exceptions import FrameError

__all__ = ["Frame", "MAX_FRAME_SIZE"]

#: Largest frame whose subsets fit one 64-bit word: larger frames store their
#: focal sets as rows of 64-bit words (the wide focal-set form); subsets on the
#: public API are Python ints of any width.
MAX_FRAME_SIZE = 64


#: Labels shown in full by ``repr(frame)`` and :meth:`Frame.format_subset`; longer lists are cut
#: to their first and last labels (a frame may have thousands).
_REPR_LABELS = 20
_REPR_LABEL_CHARACTERS = 60


def _short_repr(label: Any) -> str:
    """``repr(label)``, cut to :data:`_REPR_LABEL_CHARACTERS` characters with an ellipsis."""
    text = repr(label)
    return text if len(text) <= _REPR_LABEL_CHARACTERS else text[: _REPR_LABEL_CHARACTERS - 3] + "..."


class Frame:
    """An ordered finite set of hypotheses (a frame of discernment).

    Subsets are encoded as integer bitmasks: bit ``i`` is set when
    ``labels[i]`` belongs to the subset, so the index of ``A`` is
    ``sum(2**i for i in A)``.  The empty set is ``0`` and the whole frame is
    ``2**n - 1``.  This is Smets' binary order, used by every dense array in
    dstk.

    Parameters
    ----------
    labels : iterable of hashable, or str
        The hypotheses, in order, all distinct.  A string follows the one
        rule for strings of :ref:`the conventions <strings-as-subsets>`:
        comma-separated labels (``Frame("cat,dog")`` has the labels
        ``"cat"`` and ``"dog"``), otherwise one label per character
        (``Frame("abc")`` has ``"a"``, ``"b"``, ``"c"``; a one-label frame
        of a word is ``Frame(["car"])``).

    Raises
    ------
    FrameError
        If the labels are empty, repeated or unhashable.

    Notes
    -----
    A subset A of the frame Omega = {omega_0, ..., omega_(n-1)} is the integer
    ``index(A) = sum_{omega_i in A} 2**i``; set operations are bitwise
    (intersection ``&``, union ``|``, complement ``full ^ A``), and ``A`` is a
    subset of ``B`` when ``A & B == A``.  The 2**n subsets in increasing
    index order form the binary order of Smets (2002), in which the Moebius
    transforms between m, b and q are the fast "butterfly" recursions.  A
    frame may have any number of labels: bitmasks are Python ints of any
    width (how mass functions store them depends on the frame's size, see
    :class:`~dstk.core.MassFunction`).

    References
    ----------
    Shafer, G. (1976). A Mathematical Theory of Evidence. Princeton, ch. 2.
    Smets, P. (2002). The application of the matrix calculus to belief
    functions. IJAR 31(1-2), 1-30.

    Examples
    --------
    >>> from dstk import Frame
    >>> frame = Frame(["a", "b", "c"])
    >>> frame.subset("ac")
    5
    >>> frame.subset({"b"})
    2
    >>> frame.labels_of(6)
    ('b', 'c')
    """

    __slots__ = ("_labels", "_index", "_int_labels", "_char_labels")

    def __init__(self, labels: Iterable[Any] | Frame) -> None:
        if isinstance(labels, Frame):
            labels = labels.labels
        if isinstance(labels, str):
            # one rule for strings: comma-separated labels ("cat,dog"), else one label per character ("abc")
            labels = (
                tuple(p.strip() for p in labels.split(",") if p.strip()) if "," in labels else tuple(labels)
            )
        try:
            labels = tuple(labels)
        except TypeError:
            raise FrameError(
                f"Frame labels must be an iterable of hashable values; got {labels!r}."
            ) from None
        if len(labels) == 0:
            raise FrameError("A frame needs at least one label.")
        labels = tuple(x.item() if isinstance(x, np.generic) else x for x in labels)
        index = {}
        for i, lab in enumerate(labels):
            if isinstance(lab, float) and math.isnan(lab):
                raise FrameError(
                    f"Frame labels must not be NaN (label {i}): NaN != NaN, so it could never be looked up. "
                    "Replace missing values by a label of their own (e.g. 'missing') or drop them first."
                )
            try:
                if lab in index:
                    raise FrameError(f"Frame labels must be distinct; {lab!r} appears twice.")
            except TypeError:
                raise FrameError(f"Frame labels must be hashable; got {lab!r}.") from None
            index[lab] = i
        self._labels = labels
        self._index = index
        self._int_labels = any(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in labels)
        self._char_labels = all(isinstance(x, str) and len(x) == 1 for x in labels)

    # -- basic protocol -------------------------------------------------
    @property
    def labels(self) -> tuple[Any, ...]:
        """tuple: the hypotheses, in bit order."""
        return self._labels

    @property
    def n(self) -> int:
        """int: the number of hypotheses."""
        return len(self._labels)

    @property
    def n_subsets(self) -> int:
        """int: the number of subsets, ``2**n`` (the length of a dense vector)."""
        return 1 << len(self._labels)

    @property
    def full(self) -> int:
        """int: the bitmask of the whole frame, ``2**n - 1``."""
        return (1 << len(self._labels)) - 1

    def __len__(self):
        return len(self._labels)

    def __iter__(self):
        return iter(self._labels)

    def __contains__(self, label):
        try:
            return label in self._index
        except TypeError:
            return False

    def __eq__(self, other):
        return isinstance(other, Frame) and self._labels == other._labels

    def __hash__(self):
        return hash(("dstk.Frame", self._labels))

    def __repr__(self):
        if self.n <= _REPR_LABELS and all(len(repr(x)) <= _REPR_LABEL_CHARACTERS for x in self._labels):
            return f"Frame({list(self._labels)!r})"
        shown = [_short_repr(x) for x in self._labels[: _REPR_LABELS - 2]]
        if self.n > _REPR_LABELS:
            shown += ["...", *(_short_repr(x) for x in self._labels[-2:])]
        else:
            shown += [_short_repr(x) for x in self._labels[_REPR_LABELS - 2 :]]
        return f"Frame([{', '.join(shown)}], {self.n} labels)"

    def __reduce__(self):
        return (Frame, (self._labels,))

    # skops.io (which does not use __reduce__) stores the labels and rebuilds the frame
    def __getstate__(self) -> dict[str, Any]:
        return {"labels": list(self._labels)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        Frame.__init__(self, state["labels"])

    def index(self, label: Hashable) -> int:
        """Position of ``label`` in the frame (its bit number).

        Parameters
        ----------
        label : hashable
            A label of the frame.

        Returns
        -------
        int
            ``i`` such that ``labels[i] == label``.

        Raises
        ------
        FrameError
            If ``label`` is not in the frame.

        Examples
        --------
        >>> Frame(["a", "b", "c"]).index("c")
        2
        """
        try:
            return self._index[label]
        except (KeyError, TypeError):
            raise FrameError(f"Unknown label {label!r}: it is not in {self!r}.") from None

    # -- subsets --------------------------------------------------------
    def subset(self, x: Any) -> int:
        """Bitmask of a subset given in any accepted form.

        Parameters
        ----------
        x : label, iterable of labels, int bitmask, or str
            * a single label of the frame, e.g. ``"a"``;
            * an iterable (set, list, tuple, frozenset) of labels;
            * an ``int`` bitmask in ``[0, 2**n)`` -- but when the frame's labels
              are themselves integers, an ``int`` is read as a label (use
              :meth:`mask` to pass a bitmask explicitly);
            * when every label is a one-character string, a string such as
              ``"ab"`` (each character one label); ``""`` is the empty set;
            * a comma-separated string of labels, ``"cat,dog"``.

        Returns
        -------
        int
            The bitmask.

        Raises
        ------
        FrameError
            If a label is not in the frame or the bitmask is out of range.
        """
        if isinstance(x, (bool, np.bool_)):
            # a label of a frame of boolean labels (classes_ of [False, True]); never a bitmask or the label 0/1
            if any(type(label) is bool and label == bool(x) for label in self._labels):
                return 1 << self._index[bool(x)]
            raise FrameError(f"{x!r} is not a subset of {self!r}; pass labels or a bitmask.")
        if isinstance(x, (int, np.integer)):
            if self._int_labels:
                return 1 << self.index(int(x))
            return self.mask(x)
        if isinstance(x, str):
            if x in self._index:
                return 1 << self._index[x]
            if "," in x:
                return self._from_labels(p.strip() for p in x.split(",") if p.strip())
            if self._char_labels:
                return self._from_labels(x)
            raise FrameError(f"Unknown label {x!r}: it is not in {self!r}.")
        try:
            if x in self._index:
                return 1 << self._index[x]
        except TypeError:
            pass
        if isinstance(x, Iterable):
            return self._from_labels(x)
        raise FrameError(f"Cannot read {x!r} as a subset of {self!r}.")

    def _from_labels(self, labels):
        mask = 0
        for lab in labels:
            if isinstance(lab, np.generic):
                lab = lab.item()
            try:
                mask |= 1 << self._index[lab]
            except (KeyError, TypeError):
                raise FrameError(f"Unknown label {lab!r}: it is not in {self!r}.") from None
        return mask

    def mask(self, bitmask: int | np.integer) -> int:
        """Check an integer bitmask and return it as a Python int.

        Parameters
        ----------
        bitmask : int
            A subset as a bitmask, in ``[0, 2**n)``.

        Returns
        -------
        int
            The same bitmask, as a Python ``int``.

        Raises
        ------
        FrameError
            If the bitmask is negative or above ``full``.

        Examples
        --------
        >>> Frame("ab").mask(3)
        3
        """
        b = int(bitmask)
        if b < 0 or b > self.full:
            raise FrameError(
                f"Bitmask {b} is outside {self!r}: subsets of a {self.n}-element frame are 0 .. {self.full}."
            )
        return b

    def labels_of(self, bitmask: int | np.integer) -> tuple[Any, ...]:
        """The labels of a subset, as a tuple in frame order.

        Parameters
        ----------
        bitmask : int
            A subset as a bitmask, in ``[0, 2**n)``.

        Returns
        -------
        tuple
            The labels whose bits are set.

        Examples
        --------
        >>> Frame("abc").labels_of(5)
        ('a', 'c')
        """
        b = self.mask(bitmask)
        if len(self._labels) > MAX_FRAME_SIZE:  # one pass over the binary digits, not n shifts of a wide int
            return tuple(self._labels[i] for i, bit in enumerate(bin(b)[:1:-1]) if bit == "1")
        return tuple(lab for i, lab in enumerate(self._labels) if (b >> i) & 1)

    def format_subset(self, bitmask: int | np.integer, *, empty: str = "∅", whole: str = "Ω") -> str:
        """A short readable name for a subset, e.g. ``{a,c}``.

        Parameters
        ----------
        bitmask : int
            A subset as a bitmask, in ``[0, 2**n)``.
        empty : str, default "∅"
            Name of the empty set.
        whole : str, default "Ω"
            Name of the whole frame (used when it has at least two labels).

        Returns
        -------
        str
            ``empty``, ``whole`` or the labels in braces.

        Examples
        --------
        >>> Frame("abc").format_subset(5)
        '{a,c}'
        """
        b = self.mask(bitmask)
        if b == 0:
            return empty
        if b == self.full and self.n > 1:
            return whole
        labels = [str(x) for x in self.labels_of(b)]
        if any(text != text.strip() or not text or any(c in text for c in ",{}") for text in labels):
            labels = [repr(x) for x in self.labels_of(b)]  # quoted: the label "a,b" is not the set {a, b}
        if len(labels) > _REPR_LABELS:
            shown = labels[: _REPR_LABELS - 2] + ["..."] + labels[-2:]
            return "{" + ",".join(shown) + "}" + f" ({len(labels)} labels)"
        return "{" + ",".join(labels) + "}"

    def singletons(self) -> list[int]:
        """Bitmasks of the singletons, ``[1, 2, 4, ...]``.

        Returns
        -------
        list of int
            ``2**i`` for each label position ``i``.
        """
        return [1 << i for i in range(self.n)]


def frame_mismatch_fix(a: Frame, b: Frame) -> str:
    """How to put mass functions on frames ``a`` and ``b`` (which differ) on one frame: a sentence for an error."""
    if set(a.labels) == set(b.labels):
        return (
            "They hold the same labels in another order (subsets are bitmasks over the frame's order): "
            "re-express one on the other's frame, e.g. m2.extend(m1.frame)."
        )
    return "Express them on one frame first, e.g. m.extend(frame) onto a frame holding the labels of both."
