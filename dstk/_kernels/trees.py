"""Numba kernels that grow random decision trees and route samples to their leaves.

Plain arrays in, plain arrays out; no validation here (the public layer
:mod:`dstk.ensemble._random_trees` validates and encodes the data).  Nothing is
compiled at import time.  Every kernel is ``nogil`` so that several trees (or
several chunks of samples) can run in parallel threads.

Tree layout as grown (:func:`build_tree` returns one tree as parallel flat
arrays indexed by node id, root = 0; the children of a node get consecutive ids
when it splits):

``feature[node]``
    Split feature, or -1 for a leaf.
``operator[node]``
    Numeric splits only: 0 sends ``x < threshold`` to the first child,
    1 sends ``x <= threshold`` to the first child; the rest goes to the second.
``threshold[node]``
    Numeric threshold (unused for nominal splits and leaves).
``nominal[node]``
    1 for a multiway nominal split (child ``child_start + code``), else 0.
``child_start[node]``, ``n_children[node]``
    The children are the consecutive ids ``child_start .. child_start + n_children - 1``.
``counts[node, class]``
    Number of training samples of each class that reached the node (int32).
``depth[node]``
    Depth of the node (root = 0).

Fitted state (:func:`pack_tree`, :func:`finish_tree`): one 16-byte record
per node, the trees one after the other, that is also the routing table
(see the comment above :func:`pack_tree`), and the table of the distinct
count vectors of the nodes; :func:`unpack_nodes` rebuilds the arrays above
exactly.

Kernels
-------
build_tree(X, y, ...)
    Grow one tree (Busch et al. 2021, section 2.1.1; construction details of
    the authors' ``random_tree.py``, github.com/olfub/RDT-Uncertainty).
pack_tree, number_count_rows, finish_tree, shift_nodes, node_rows, unpack_nodes
    Pack a grown tree into node records, number its count rows in the
    forest's table, make its ids global; move records (concatenation); read
    them back.
route_rows_kernel(X, ...)
    Count row (or leaf id) of the leaf reached by every sample in every
    tree, with the empty-leaf policies ``0 = parent``, ``1 = zero``,
    ``2 = siblings`` (left to :func:`sibling_counts_kernel`).
"""

import numpy as np

from dstk._kernels._jit import njit
from dstk._kernels.leaf_tables import _row_hash
from dstk._kernels.mersenne_twister import random_below as _mersenne_below

# Source hashes of the kernel modules called here (see dstk._kernels._jit).
CALLED_KERNEL_SOURCES = {
    "dstk._kernels.leaf_tables": "cbe1fb84411bde3a",
    "dstk._kernels.mersenne_twister": "33f31df0d49455d5",
}

# Interpretation budgets (``interpreted_max_work`` on the decorators: the largest work of a call
# :func:`dstk._kernels._jit.call_kernel` runs interpreted rather than compiled, about a fiftieth of
# the compile time, ``INTERPRETED_BUDGET``; measured 2026-11-24): data values (features x samples)
# for ``row_hashes`` and ``marked_rows``, about 20 ms interpreted (0.7 and 0.5 us per value) against
# 0.5 and 1.4 s to compile; count values (nodes x classes) of one tree for ``number_count_rows``,
# about 20 ms (2.5 us per value) against 1.2 s; for ``build_tree``, samples x (features + bits of the
# sample count) of one tree (5.7 us per unit: about 110 ms against 6-8 s to compile it); nodes of one
# tree for ``pack_tree`` and ``finish_tree`` (1.9 and 1.6 us per node, 11 and 4 ms, against 0.6 and
# 0.2 s); samples x trees x bits of the mean tree's node count for ``route_rows_kernel`` and
# ``leave_one_out_counts_kernel`` (1.3 us per unit, 10 ms, against 0.5 s).

EMPTY_LEAF_PARENT = 0
EMPTY_LEAF_ZERO = 1
EMPTY_LEAF_SIBLINGS = 2

# column layout of the integer node table used while growing a tree
_FEATURE = 0
_OPERATOR = 1
_NOMINAL = 2
_CHILD_START = 3
_N_CHILDREN = 4
_PARENT = 5
_START = 6
_END = 7
_DEPTH = 8
_TRIED_START = 9  # the nominal features tried at a node are tried[start : start + n_tried]
_N_TRIED = 10
_N_COLUMNS = 11

STREAM_SPLITMIX = 0
STREAM_MERSENNE = 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_SHIFT_30 = np.uint64(30)
_SHIFT_27 = np.uint64(27)
_SHIFT_31 = np.uint64(31)
_SHIFT_11 = np.uint64(11)
_INV_2_53 = 1.0 / 9007199254740992.0
_TWO_GOLDEN = np.uint64((2 * 0x9E3779B97F4A7C15) % (1 << 64))  # two splitmix64 steps


@njit(cache=True, nogil=True)
def _next_random(state):
    """splitmix64 step (Steele, Lea & Flood 2014) on a 1-element uint64 state array."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)


@njit(cache=True, nogil=True)
def _node_seed(seed, node):
    """Starting state of the splitmix64 stream of ``node`` in the tree seeded with ``seed``.

    The splitmix64 output function (a bijection of 64-bit words) of the
    tree seed and the node id, themselves mixed, so that the streams of
    different nodes start at unrelated points of the generator's period.
    """
    z = seed ^ ((np.uint64(node) + np.uint64(1)) * _MIX_2)
    z = (z ^ (z >> _SHIFT_30)) * _MIX_1
    z = (z ^ (z >> _SHIFT_27)) * _MIX_2
    return z ^ (z >> _SHIFT_31)


@njit(cache=True, nogil=True)
def _random_below(state, bound):
    """A uniform integer in ``[0, bound)`` (53-bit resolution)."""
    u = np.float64(_next_random(state) >> _SHIFT_11) * _INV_2_53
    r = np.int64(u * bound)
    if r >= bound:  # pragma: no cover - guards rounding at u close to 1
        r = bound - 1
    return r


@njit(cache=True, nogil=True)
def _draw(stream, state, mersenne_state, bound):
    """A uniform integer in ``[0, bound)`` from the tree's splitmix64 stream or the shared MT19937 one."""
    if stream == STREAM_MERSENNE:
        return _mersenne_below(mersenne_state, bound)
    return _random_below(state, bound)


@njit(cache=True, nogil=True)
def _remove_candidate(candidates, n_candidates, position):
    """Drop ``candidates[position]`` keeping the order of the others; return the new count."""
    for j in range(position, n_candidates - 1):
        candidates[j] = candidates[j + 1]
    return n_candidates - 1


@njit(cache=True, nogil=True)
def _mark_tried_on_path(table, tried, blocked, ancestor, value):
    """Set ``blocked[f] = value`` for the nominal features tried at ``ancestor`` and its ancestors."""
    while ancestor >= 0:
        first = table[ancestor, _TRIED_START]
        for j in range(first, first + table[ancestor, _N_TRIED]):
            blocked[tried[j]] = value
        ancestor = table[ancestor, _PARENT]


@njit(cache=True, nogil=True, interpreted_max_work=30_000)
def row_hashes(bits, negative_zero):
    """A 64-bit hash of every sample's feature values.

    ``bits`` is the feature-major data (n_features, n_samples) viewed as
    unsigned integers of its float width (uint64 for float64, uint32 for
    float32); ``negative_zero`` is the bit pattern of -0.0 in that width,
    hashed as 0.0 so that values that compare equal hash alike.
    """
    n_features, n_samples = bits.shape
    out = np.full(n_samples, np.uint64(0x243F6A8885A308D3), dtype=np.uint64)
    for f in range(n_features):
        for i in range(n_samples):
            word = np.uint64(bits[f, i])
            if bits[f, i] == negative_zero:
                word = np.uint64(0)
            h = (out[i] ^ word) * _MIX_1
            out[i] = h ^ (h >> _SHIFT_31)
    return out


@njit(cache=True, nogil=True)
def _identical_rows(
    columns, row_hash, sample_index, start, end, binary_index, current_marked, use_marked, dead, node
):
    """True when the samples ``sample_index[start:end]`` have equal feature values.

    Equal row hashes first; then every feature is checked, a binary feature
    that is not dead at ``node`` from its marked count at the node (constant
    when it is 0 or the node's size) when ``use_marked``, any other feature
    value by value.
    """
    first = sample_index[start]
    h = row_hash[first]
    for i in range(start + 1, end):
        if row_hash[sample_index[i]] != h:
            return False
    n_features = columns.shape[0]
    size = end - start
    for f in range(n_features):
        if use_marked and binary_index[f] >= 0 and not _is_dead(dead, node, f):
            n_marked = current_marked[binary_index[f]]
            if n_marked != 0 and n_marked != size:
                return False
            continue
        column = columns[f]
        value = column[first]
        for i in range(start + 1, end):
            if column[sample_index[i]] != value:
                return False
    return True


@njit(cache=True, nogil=True)
def _grow(table, thresholds, counts, dead, needed):
    """Return the node arrays enlarged (doubled) so that at least ``needed`` nodes fit."""
    capacity = table.shape[0]
    if needed <= capacity:
        return table, thresholds, counts, dead
    new_capacity = max(2 * capacity, needed + 16)
    # element loops, not slice assignments: a slice assignment compiles numba's
    # shape-mismatch error message (string formatting, about 3 s of a cold start)
    new_table = np.zeros((new_capacity, table.shape[1]), dtype=np.int64)
    new_thresholds = np.zeros(new_capacity)
    new_counts = np.zeros((new_capacity, counts.shape[1]), dtype=np.int32)
    new_dead = np.zeros((new_capacity, dead.shape[1]), dtype=np.uint64)
    for i in range(capacity):
        for j in range(table.shape[1]):
            new_table[i, j] = table[i, j]
        new_thresholds[i] = thresholds[i]
        for j in range(counts.shape[1]):
            new_counts[i, j] = counts[i, j]
        for j in range(dead.shape[1]):
            new_dead[i, j] = dead[i, j]
    return new_table, new_thresholds, new_counts, new_dead


@njit(cache=True, nogil=True)
def _count_marked(pool, slot, sample_index, start, end, marked_start, marked_binary, alive, n_alive):
    """``pool[slot, b]`` = number of the samples ``sample_index[start:end]`` holding binary feature b's marked value.

    Exact for the binary features ``alive[:n_alive]``; the other entries of the slot are not
    reset (they are never read).
    """
    for j in range(n_alive):
        pool[slot, alive[j]] = 0
    for i in range(start, end):
        s = sample_index[i]
        for j in range(marked_start[s], marked_start[s + 1]):
            pool[slot, marked_binary[j]] += 1


@njit(cache=True, nogil=True, interpreted_max_work=40_000)
def marked_rows(columns, is_nominal, feature_min, feature_max):
    """The binary features and the sparse rows of their rarer values.

    A binary feature is a numeric feature with exactly two training values;
    its *marked* value is the rarer one (the minimum on a tie).

    Returns
    -------
    binary_index : int64 array (n_features,)
        Index of every binary feature among the binary features, -1 for the others.
    marked_is_low : bool array (n_binary,)
        Whether the marked value is the feature's minimum.
    marked_start : int64 array (n_samples + 1,), or (1,) when there is no binary feature
    marked_binary : int32 array
        Sample ``i`` holds the marked value of the binary features
        ``marked_binary[marked_start[i]:marked_start[i + 1]]`` (increasing).
    """
    n_features, n_samples = columns.shape
    binary_index = np.full(n_features, -1, dtype=np.int64)
    n_low = np.zeros(n_features, dtype=np.int64)
    n_binary = 0
    for f in range(n_features):
        low = feature_min[f]
        high = feature_max[f]
        if is_nominal[f] or low == high:
            continue
        column = columns[f]
        count = 0
        binary = True
        for i in range(n_samples):
            x = column[i]
            if x == low:
                count += 1
            elif x != high:
                binary = False
                break
        if binary:
            binary_index[f] = n_binary
            n_low[n_binary] = count
            n_binary += 1
    marked_is_low = np.empty(n_binary, dtype=np.bool_)
    marked_value = np.empty(n_binary)
    binary_feature = np.empty(n_binary, dtype=np.int64)
    for f in range(n_features):
        b = binary_index[f]
        if b >= 0:
            binary_feature[b] = f
            marked_is_low[b] = n_low[b] <= n_samples - n_low[b]
            marked_value[b] = feature_min[f] if marked_is_low[b] else feature_max[f]
    if n_binary == 0:
        return binary_index, marked_is_low, np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int32)
    marked_start = np.zeros(n_samples + 1, dtype=np.int64)
    for b in range(n_binary):
        column = columns[binary_feature[b]]
        value = marked_value[b]
        for i in range(n_samples):
            if column[i] == value:
                marked_start[i + 1] += 1
    for i in range(n_samples):
        marked_start[i + 1] += marked_start[i]
    marked_binary = np.empty(marked_start[n_samples], dtype=np.int32)
    fill = marked_start[:n_samples].copy()
    for b in range(n_binary):
        column = columns[binary_feature[b]]
        value = marked_value[b]
        for i in range(n_samples):
            if column[i] == value:
                marked_binary[fill[i]] = b
                fill[i] += 1
    return binary_index, marked_is_low, marked_start, marked_binary


@njit(cache=True, nogil=True)
def _partition_numeric(
    column, sample_index, labels, child_samples, child_labels, value_buffer, start, end, bound
):
    """Stable partition of ``sample_index[start:end]`` (and their ``labels``) into the children's rows.

    Samples with ``column[s] < bound`` go to ``child_samples[start:left]``, the others to
    ``child_samples[left:end]``, each side in the parent's order; returns ``left``.  The values
    are gathered into ``value_buffer`` first (a partition whose stores wait on the gathered
    loads is several times slower), and the loop has no data-dependent branch.
    """
    n_left = 0
    for i in range(start, end):
        x = column[sample_index[i]]
        value_buffer[i - start] = x
        n_left += np.int64(x < bound)
    left = start
    right = start + n_left
    for i in range(start, end):
        goes_left = np.int64(value_buffer[i - start] < bound)
        position = right + goes_left * (left - right)
        child_samples[position] = sample_index[i]
        child_labels[position] = labels[i]
        left += goes_left
        right += 1 - goes_left
    return left


@njit(cache=True, nogil=True, inline="always")
def _is_dead(dead, node, f):
    return (dead[node, f >> 6] >> np.uint64(f & 63)) & np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _bit_count(word):
    """Number of set bits of a uint64 word (SWAR population count)."""
    word = word - ((word >> np.uint64(1)) & np.uint64(0x5555555555555555))
    word = (word & np.uint64(0x3333333333333333)) + ((word >> np.uint64(2)) & np.uint64(0x3333333333333333))
    word = (word + (word >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((word * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True, inline="always")
def _mark_dead(dead, node, f):
    dead[node, f >> 6] |= np.uint64(1) << np.uint64(f & 63)


@njit(cache=True, nogil=True)
def _root_rows(y):
    """The sample rows of the root: ``order[0] = 0 .. n - 1`` and ``classes[0] = y``.

    Returns ``order`` and ``classes``, int32 arrays (2, n_samples): the
    samples of a node at depth d, and their classes, are
    ``order[d % 2, start:end]`` and ``classes[d % 2, start:end]`` (training
    order); row 1 is written by the splits of the nodes at even depth.
    """
    n_samples = y.shape[0]
    order = np.empty((2, n_samples), dtype=np.int32)
    classes = np.empty((2, n_samples), dtype=np.int32)
    for i in range(n_samples):
        order[0, i] = i
        classes[0, i] = y[i]
    return order, classes


@njit(cache=True, nogil=True)
def _work_buffers(columns, n_classes, is_nominal, n_categories):
    """Whether any feature is nominal, and the scratch arrays of the splits and tries at a node.

    ``columns`` float (n_features, n_samples), ``is_nominal`` bool and
    ``n_categories`` int64 (n_features,).  The buffers: ``category_size``,
    ``category_fill`` int64 (max_categories,), ``category_counts`` int32
    (max_categories, n_classes), ``value_buffer`` (n_samples,) of the columns'
    dtype, ``left_counts`` int32 (n_classes,), and the per-node scan cache of
    numeric features (see :func:`_numeric_try`): ``scan_values`` float64
    (2, n_features), ``scan_counts`` int64 (3, n_features), a stamp of -1: not
    scanned.
    """
    n_features, n_samples = columns.shape
    max_categories = 1
    any_nominal = False
    for f in range(n_features):
        if is_nominal[f]:
            any_nominal = True
        if n_categories[f] > max_categories:
            max_categories = n_categories[f]
    buffers = (
        np.zeros(max_categories, dtype=np.int64),
        np.zeros(max_categories, dtype=np.int64),
        np.zeros((max_categories, n_classes), dtype=np.int32),
        np.empty(n_samples, dtype=columns.dtype),
        np.empty(n_classes, dtype=np.int32),
        np.empty((2, n_features)),
        np.full((3, n_features), -1, dtype=np.int64),
    )
    return any_nominal, buffers


@njit(cache=True, nogil=True)
def _binary_features(binary_index, n_binary):
    """int64 (n_binary,): the feature of every binary feature index of ``binary_index`` (n_features,)."""
    binary_feature = np.empty(n_binary, dtype=np.int64)
    for f in range(binary_index.shape[0]):
        if binary_index[f] >= 0:
            binary_feature[binary_index[f]] = f
    return binary_feature


@njit(cache=True, nogil=True)
def _new_node_table(y, n_classes, n_words):
    """The node arrays with room for 64 nodes, holding the root of all ``y`` (int64 (n_samples,)) samples.

    Returns ``table`` int64 (64, _N_COLUMNS), ``thresholds`` float64 (64,),
    ``counts`` int32 (64, n_classes) and ``dead`` uint64 (64, n_words).
    """
    capacity = 64
    table = np.zeros((capacity, _N_COLUMNS), dtype=np.int64)
    thresholds = np.zeros(capacity)
    counts = np.zeros((capacity, n_classes), dtype=np.int32)
    dead = np.zeros((capacity, n_words), dtype=np.uint64)
    table[0, _FEATURE] = -1
    table[0, _PARENT] = -1
    table[0, _START] = 0
    table[0, _END] = y.shape[0]
    for i in range(y.shape[0]):
        counts[0, y[i]] += 1
    return table, thresholds, counts, dead


@njit(cache=True, nogil=True)
def _is_pure(counts, node):
    """Whether the row ``counts[node]`` (int32 (n_nodes, n_classes)) has at most one nonzero class."""
    n_classes_present = 0
    for j in range(counts.shape[1]):
        n_classes_present += counts[node, j] > 0
    return n_classes_present <= 1


@njit(cache=True, nogil=True)
def _nominal_candidates(table, tried, blocked, candidates, node, n_tried_total):
    """The candidate features of ``node``: every feature but the nominal ones tried on its path.

    Fills ``candidates[:n_candidates]`` (int64 (n_features,)) in increasing
    order (``blocked``, bool (n_features,), is all False before and after),
    records at ``table[node, _TRIED_START]`` where the node's tried nominal
    features will go in ``tried`` (int64), enlarged to hold ``n_features``
    more.  Returns ``(n_candidates, tried)``.
    """
    n_features = candidates.shape[0]
    _mark_tried_on_path(table, tried, blocked, table[node, _PARENT], np.bool_(True))
    n_candidates = 0
    for f in range(n_features):
        if not blocked[f]:
            candidates[n_candidates] = f
            n_candidates += 1
    _mark_tried_on_path(table, tried, blocked, table[node, _PARENT], np.bool_(False))
    if tried.shape[0] < n_tried_total + n_features:
        enlarged = np.empty(2 * tried.shape[0] + n_features, dtype=np.int64)
        for j in range(n_tried_total):  # element loops: a slice copy compiles an error message
            enlarged[j] = tried[j]
        tried = enlarged
    table[node, _TRIED_START] = n_tried_total
    return n_candidates, tried


@njit(cache=True, nogil=True)
def _drop_dead_binary(dead, node, alive, n_alive, marked, binary_feature, size, min_samples_leaf):
    """Mark dead at ``node`` the binary features whose rarer value a side could not hold; return how many live.

    ``alive[:n_alive]`` (int32) lists the binary features still alive,
    ``marked[b]`` (int32 (n_binary,)) the node's count of the marked value of
    b; a feature with fewer than ``min_samples_leaf`` samples on either value
    is marked dead in ``dead`` (uint64 (n_nodes, n_words)) and dropped from
    the list, whose order is kept.
    """
    n_kept = 0
    for j in range(n_alive):
        b = alive[j]
        n_marked = marked[b]
        if n_marked < min_samples_leaf or size - n_marked < min_samples_leaf:
            _mark_dead(dead, node, binary_feature[b])
        else:
            alive[n_kept] = b
            n_kept += 1
    return n_kept


@njit(cache=True, nogil=True)
def _count_dead_candidates(dead, node, candidates, n_candidates, is_nominal, any_nominal):
    """Number of the candidates ``candidates[:n_candidates]`` that are numeric and marked dead at ``node``.

    Without nominal features the candidates are every feature, and the dead
    ones are counted by a population count of the node's words of ``dead``
    (uint64 (n_nodes, n_words)).
    """
    n_dead = 0
    if any_nominal:
        for j in range(n_candidates):
            f = candidates[j]
            if not is_nominal[f] and _is_dead(dead, node, f):
                n_dead += 1
    else:
        for w in range(dead.shape[1]):
            n_dead += _bit_count(dead[node, w])
    return n_dead


@njit(cache=True, nogil=True)
def _nominal_split_is_valid(column, sample_index, start, end, n_categories, category_size, min_samples_leaf):
    """Whether the multiway split of ``sample_index[start:end]`` by ``column``'s codes is valid.

    Valid when the second largest of the ``n_categories`` children holds at
    least ``min_samples_leaf`` samples; ``category_size`` (int64, at least
    n_categories) is the work space of the children's sizes.
    """
    for c in range(n_categories):
        category_size[c] = 0
    for i in range(start, end):
        category_size[np.int64(column[sample_index[i]])] += 1
    largest = 0
    second = 0
    for c in range(n_categories):
        s = category_size[c]
        if s > largest:
            second = largest
            largest = s
        elif s > second:
            second = s
    return second >= min_samples_leaf


@njit(cache=True, nogil=True)
def _scan_threshold(column, sample_index, start, end, value, operator, min_samples_leaf):
    """Count the samples ``sample_index[start:end]`` below and at ``value`` and find their range.

    Returns ``(n_less, n_equal, low, high, n_low, n_high, valid_early)``:
    the numbers of values ``< value`` and ``== value``, the minimum and
    maximum with their numbers of samples; ``valid_early`` is True when the
    scan stopped as soon as both children of the split (operator 0: ``<``,
    1: ``<=``) were known to hold ``min_samples_leaf`` samples, and the other
    outputs are then partial.  The counts are branch-free (the comparisons
    are data-dependent); the minimum and maximum change rarely, so their
    branches are predicted.
    """
    n_less = 0
    n_equal = 0
    low = value
    high = value
    n_low = 0
    n_high = 0
    for i in range(start, end):
        if (i - start) & 63 == 63:
            # both children already hold min_samples_leaf samples: the try succeeds
            # (the scan's minimum and maximum are needed only after a failed try)
            n_left_seen = n_less if operator == 0 else n_less + n_equal
            if n_left_seen >= min_samples_leaf and i - start - n_left_seen >= min_samples_leaf:
                return n_less, n_equal, low, high, n_low, n_high, True
        x = column[sample_index[i]]
        n_less += x < value
        n_equal += x == value
        if x < low:
            low = x
            n_low = 0
        n_low += x == low
        if x > high:
            high = x
            n_high = 0
        n_high += x == high
    return n_less, n_equal, low, high, n_low, n_high, False


@njit(cache=True, nogil=True)
def _numeric_try(
    column,
    sample_index,
    start,
    end,
    node,
    f,
    value,
    operator,
    n_low_count,
    feature_min,
    feature_max,
    min_samples_leaf,
    scan_values,
    scan_counts,
    dead,
):
    """Outcome of the threshold ``value`` with ``operator`` (0: ``<``, 1: ``<=``) on numeric feature ``f``.

    Returns ``(valid, newly_dead)``.  Decided without a scan when the
    threshold is at the training range's end that empties a child, when
    ``n_low_count >= 0`` (the node's count of the lower value of a binary
    feature), or from the node's scan of ``f`` cached in ``scan_values``
    (float64 (2, n_features): minimum, maximum) and ``scan_counts`` (int64
    (3, n_features): node id of the scan, number at the minimum, at the
    maximum).  A first scan at the node fills the cache and marks ``f`` dead
    in ``dead`` (``newly_dead`` True) when no threshold of it can be valid.
    """
    if (operator == 0 and value == feature_min[f]) or (operator == 1 and value == feature_max[f]):
        # x < min or x <= max: one child would be empty (decided from the training range)
        return False, False
    size = end - start
    newly_dead = False
    if n_low_count >= 0:
        # two values: the node's count of each is known
        if value == feature_min[f]:
            n_less = 0
            n_equal = n_low_count
        else:
            n_less = n_low_count
            n_equal = size - n_low_count
    elif scan_counts[0, f] == node and value == scan_values[0, f]:
        n_less = 0
        n_equal = scan_counts[1, f]
    elif scan_counts[0, f] == node and value == scan_values[1, f]:
        n_less = size - scan_counts[2, f]
        n_equal = scan_counts[2, f]
    else:
        n_less, n_equal, low, high, n_low, n_high, valid_early = _scan_threshold(
            column, sample_index, start, end, value, operator, min_samples_leaf
        )
        if valid_early:
            return True, False
        if scan_counts[0, f] != node:
            scan_counts[0, f] = node
            scan_values[0, f] = low
            scan_values[1, f] = high
            scan_counts[1, f] = n_low
            scan_counts[2, f] = n_high
            if low == high or (
                n_low + n_high == size and (n_low < min_samples_leaf or n_high < min_samples_leaf)
            ):
                _mark_dead(dead, node, f)
                newly_dead = True
    n_left = n_less if operator == 0 else n_less + n_equal
    return not (n_left < min_samples_leaf or size - n_left < min_samples_leaf), newly_dead


@njit(cache=True, nogil=True)
def _split_nominal(
    column,
    table,
    counts,
    order,
    classes,
    parity,
    node,
    first_child,
    n_categories,
    category_size,
    category_fill,
    category_counts,
):
    """Counting sort of the node's samples by category into the children's rows.

    ``order``, ``classes`` (int32 (2, n_samples)): the node's samples and
    their classes are in row ``parity``, the children's go to the other row;
    their ranges and class counts are written to ``table`` and ``counts``.
    ``category_size``, ``category_fill`` (int64) and ``category_counts``
    (int32 (max_categories, n_classes)) are work space.
    """
    n_classes = counts.shape[1]
    start = table[node, _START]
    end = table[node, _END]
    sample_index = order[parity]
    labels = classes[parity]
    for c in range(n_categories):
        category_size[c] = 0
        for j in range(n_classes):
            category_counts[c, j] = 0
    for i in range(start, end):
        c = np.int64(column[sample_index[i]])
        category_size[c] += 1
        category_counts[c, labels[i]] += 1
    offset = start
    for c in range(n_categories):
        category_fill[c] = offset
        child = first_child + c
        table[child, _START] = offset
        table[child, _END] = offset + category_size[c]
        offset += category_size[c]
        for j in range(n_classes):
            counts[child, j] = category_counts[c, j]
    child_samples = order[1 - parity]
    child_labels = classes[1 - parity]
    for i in range(start, end):
        c = np.int64(column[sample_index[i]])
        child_samples[category_fill[c]] = sample_index[i]
        child_labels[category_fill[c]] = labels[i]
        category_fill[c] += 1


@njit(cache=True, nogil=True)
def _split_numeric(
    column,
    table,
    counts,
    order,
    classes,
    parity,
    node,
    first_child,
    threshold,
    operator,
    value_buffer,
    left_counts,
):
    """Stable two-way partition of the node's samples into its children's rows, and their class counts.

    The first child takes ``x < threshold`` (operator 0) or ``x <= threshold``
    (operator 1), the second the rest, each in the parent's order, into the
    row of ``order`` and ``classes`` (int32 (2, n_samples)) other than
    ``parity``; ranges and class counts go to ``table`` and ``counts``.
    ``value_buffer`` (n_samples,) and ``left_counts`` (int32 (n_classes,))
    are work space.
    """
    n_classes = counts.shape[1]
    start = table[node, _START]
    end = table[node, _END]
    labels = classes[parity]
    child_samples = order[1 - parity]
    child_labels = classes[1 - parity]
    for j in range(n_classes):
        left_counts[j] = 0
    # x <= t is x < (the next float64 above t): one comparison, which compiles without a branch
    bound = threshold if operator == 0 else np.nextafter(threshold, np.inf)
    left = _partition_numeric(
        column, order[parity], labels, child_samples, child_labels, value_buffer, start, end, bound
    )
    # class counts of the first child, from its samples' classes (contiguous now)
    if n_classes == 2:
        n_second_class = 0
        for i in range(start, left):
            n_second_class += child_labels[i]
        left_counts[0] = left - start - n_second_class
        left_counts[1] = n_second_class
    else:
        for i in range(start, left):
            left_counts[child_labels[i]] += 1
    table[first_child, _START] = start
    table[first_child, _END] = left
    table[first_child + 1, _START] = left
    table[first_child + 1, _END] = end
    for j in range(n_classes):
        counts[first_child, j] = left_counts[j]
        counts[first_child + 1, j] = counts[node, j] - left_counts[j]


@njit(cache=True, nogil=True)
def _record_split(table, thresholds, node, first_child, n_children, feature, operator, nominal, threshold):
    """Write the split of ``node`` and its ``n_children`` children's links into the node arrays.

    The children's ranges and counts are written by :func:`_split_numeric`
    or :func:`_split_nominal`; here their parent, depth and leaf mark.
    """
    table[node, _FEATURE] = feature
    table[node, _OPERATOR] = operator
    table[node, _NOMINAL] = 1 if nominal else 0
    table[node, _CHILD_START] = first_child
    table[node, _N_CHILDREN] = n_children
    thresholds[node] = threshold
    for c in range(n_children):
        child = first_child + c
        table[child, _FEATURE] = -1
        table[child, _PARENT] = node
        table[child, _DEPTH] = table[node, _DEPTH] + 1


@njit(cache=True, nogil=True)
def _inherit_dead(dead, node, first_child, n_children):
    """The children of ``node`` start with its dead features (rows of ``dead``, uint64 (n_nodes, n_words))."""
    for c in range(n_children):
        child = first_child + c
        for w in range(dead.shape[1]):
            dead[child, w] = dead[node, w]


@njit(cache=True, nogil=True)
def _enlarged_stack(stack, n_stack, extra):
    """``stack`` (int64) with room for ``n_stack + extra`` entries (its first ``n_stack`` kept)."""
    if stack.shape[0] >= n_stack + extra:
        return stack
    enlarged = np.empty(2 * stack.shape[0] + extra, dtype=np.int64)
    for j in range(n_stack):
        enlarged[j] = stack[j]
    return enlarged


@njit(cache=True, nogil=True)
def _enlarged_pools(pools, n_stack, extra):
    """The per-slot marked counts, alive lists and their lengths with room for ``n_stack + extra`` slots.

    ``pools``: ``marked_pool``, ``alive_pool`` int32 (n_slots, n_binary),
    ``n_alive_pool`` int64 (n_slots,); the first ``n_stack`` slots are kept.
    """
    marked_pool, alive_pool, n_alive_pool = pools
    if marked_pool.shape[0] >= n_stack + extra:
        return pools
    n_binary = marked_pool.shape[1]
    enlarged_pool = np.zeros((2 * marked_pool.shape[0] + extra, n_binary), dtype=np.int32)
    for j in range(n_stack):
        for b in range(n_binary):
            enlarged_pool[j, b] = marked_pool[j, b]
    enlarged_alive = np.empty((2 * alive_pool.shape[0] + extra, n_binary), dtype=np.int32)
    for j in range(n_stack):
        for b in range(n_binary):
            enlarged_alive[j, b] = alive_pool[j, b]
    enlarged_n_alive = np.zeros(2 * n_alive_pool.shape[0] + extra, dtype=np.int64)
    for j in range(n_stack):
        enlarged_n_alive[j] = n_alive_pool[j]
    return enlarged_pool, enlarged_alive, enlarged_n_alive


@njit(cache=True, nogil=True)
def _children_marked_counts(
    table,
    child_samples,
    node,
    first_child,
    n_children,
    n_stack,
    limits,
    marked_start,
    marked_binary,
    alive,
    n_alive,
    marked,
    pools,
):
    """The marked counts and alive binary features of the children of ``node`` that may split; the pools.

    ``pools`` (see :func:`_root_marked_counts`) are enlarged as needed and
    returned; child c goes to their stack slot ``n_stack + n_children - 1 - c``
    (nothing is counted for children at the depth limit of ``limits``, the
    tuple of :func:`build_tree`).  Two children: the smaller one's
    counts from its samples' sparse rows (``marked_start``,
    ``marked_binary``), the other's as the node's counts ``marked`` minus
    those; a multiway split counts every child of at least
    ``min_samples_split`` samples.  ``alive[:n_alive]``: the node's alive
    binary features; ``child_samples``: the children's row of samples.
    """
    pools = _enlarged_pools(pools, n_stack, n_children)
    marked_pool, alive_pool, n_alive_pool = pools
    min_samples_split, max_depth = limits[1], limits[2]
    if max_depth >= 0 and table[node, _DEPTH] + 1 >= max_depth:
        return pools
    if n_children == 2:
        size = table[node, _END] - table[node, _START]
        size_0 = table[first_child, _END] - table[first_child, _START]
        small = 0 if size_0 <= size - size_0 else 1
        small_slot = n_stack + 1 - small
        other_slot = n_stack + small
        _count_marked(
            marked_pool,
            small_slot,
            child_samples,
            table[first_child + small, _START],
            table[first_child + small, _END],
            marked_start,
            marked_binary,
            alive,
            n_alive,
        )
        for j in range(n_alive):
            b = alive[j]
            marked_pool[other_slot, b] = marked[b] - marked_pool[small_slot, b]
            alive_pool[small_slot, j] = b
            alive_pool[other_slot, j] = b
        n_alive_pool[small_slot] = n_alive
        n_alive_pool[other_slot] = n_alive
        return pools
    for c in range(n_children):
        child = first_child + c
        if table[child, _END] - table[child, _START] >= min_samples_split:
            slot = n_stack + n_children - 1 - c
            _count_marked(
                marked_pool,
                slot,
                child_samples,
                table[child, _START],
                table[child, _END],
                marked_start,
                marked_binary,
                alive,
                n_alive,
            )
            for j in range(n_alive):
                alive_pool[slot, j] = alive[j]
            n_alive_pool[slot] = n_alive
    return pools


@njit(cache=True, nogil=True)
def _trimmed_tree(table, thresholds, counts, n_nodes):
    """The grown node arrays of the module doc, trimmed to ``n_nodes`` and in their stored dtypes."""
    return (
        table[:n_nodes, _FEATURE].astype(np.int32),
        table[:n_nodes, _OPERATOR].astype(np.int8),
        table[:n_nodes, _NOMINAL].astype(np.int8),
        thresholds[:n_nodes].copy(),
        table[:n_nodes, _CHILD_START].astype(np.int32),
        table[:n_nodes, _N_CHILDREN].astype(np.int32),
        counts[:n_nodes].copy(),
        table[:n_nodes, _DEPTH].astype(np.int32),
    )


@njit(cache=True, nogil=True)
def _root_marked_counts(root_samples, marked_start, marked_binary, n_binary, use_marked):
    """The per-stack-slot marked counts and alive lists, slot 0 holding the root's.

    ``root_samples`` int32 (n_samples,) are the root's samples; ``marked_start``
    int64 (n_samples + 1,) and ``marked_binary`` int32 are the sparse rows of
    :func:`marked_rows`.  Returns ``marked_pool`` int32 (64, n_binary or 0),
    ``alive_pool`` int32 (64, n_binary or 0), ``n_alive_pool`` int64 (64,),
    (together: ``pools``) and the current node's ``current_marked`` and
    ``current_alive``, int32 (n_binary,).  Without ``use_marked`` the pools have no columns.
    """
    width = n_binary if use_marked else 0
    marked_pool = np.zeros((64, width), dtype=np.int32)
    alive_pool = np.empty((64, width), dtype=np.int32)
    n_alive_pool = np.zeros(64, dtype=np.int64)
    current_marked = np.zeros(n_binary, dtype=np.int32)
    current_alive = np.empty(n_binary, dtype=np.int32)
    if use_marked:
        for b in range(n_binary):
            alive_pool[0, b] = b
        n_alive_pool[0] = n_binary
        n_samples = root_samples.shape[0]
        zero = np.int64(0)  # not the literal 0: one compiled signature for this and the children's counts
        _count_marked(
            marked_pool,
            zero,
            root_samples,
            zero,
            n_samples,
            marked_start,
            marked_binary,
            alive_pool[0],
            n_binary,
        )
    return (marked_pool, alive_pool, n_alive_pool), current_marked, current_alive


@njit(cache=True, nogil=True)
def _restore_marked(slot, pools, current_marked, current_alive):
    """Copy stack slot ``slot``'s alive list and marked counts into the current node's; return how many live.

    ``pools``: ``marked_pool``, ``alive_pool`` int32 (n_slots, n_binary),
    ``n_alive_pool`` int64 (n_slots,); ``current_marked``, ``current_alive``
    int32 (n_binary,) are overwritten for the alive features.
    """
    marked_pool, alive_pool, n_alive_pool = pools
    n_alive = n_alive_pool[slot]
    for j in range(n_alive):
        b = alive_pool[slot, j]
        current_alive[j] = b
        current_marked[b] = marked_pool[slot, b]
    return n_alive


@njit(cache=True, nogil=True)
def _is_leaf_without_tries(counts, node, size, depth, limits, breadth_first):
    """Whether ``node`` (of ``size`` samples at ``depth``) is a leaf before any draw.

    Too few samples to split, the depth limit, a pure node when
    ``stop_at_pure_nodes`` (``counts`` int32 (n_nodes, n_classes)), or, with
    per-node streams (not ``breadth_first``), fewer than
    ``2 * min_samples_leaf`` samples: no split could give both children
    ``min_samples_leaf`` samples, so every try fails (and a node's own stream
    owes no draw to a later node).  ``limits``: the tuple of :func:`build_tree`.
    """
    min_samples_leaf, min_samples_split, max_depth, stop_at_pure_nodes = limits
    if size < min_samples_split or size == 0 or (max_depth >= 0 and depth >= max_depth):
        return True
    if stop_at_pure_nodes and _is_pure(counts, node):
        return True
    return not breadth_first and size < 2 * min_samples_leaf


@njit(cache=True, nogil=True)
def _skip_dead_try(stream, state, mersenne_state, size):
    """Advance the stream past the two draws (operator, sample) of a try on a dead feature.

    One addition for the splitmix64 ``state`` (uint64 (1,)); the two draws for
    the shared MT19937 ``mersenne_state`` (uint32 (625,)).
    """
    if stream == STREAM_SPLITMIX:
        state[0] += _TWO_GOLDEN
    else:
        _draw(stream, state, mersenne_state, np.int64(2))
        _draw(stream, state, mersenne_state, size)


@njit(cache=True, nogil=True)
def _marked_low_count(b, size, current_marked, marked_is_low):
    """Samples of the node (of ``size``) at binary feature ``b``'s minimum, -1 when ``b < 0`` (not counted).

    ``current_marked`` int32 (n_binary,) holds the node's counts of each
    binary feature's marked value, ``marked_is_low`` bool (n_binary,) whether
    that value is the minimum.
    """
    if b < 0:
        return -1
    return current_marked[b] if marked_is_low[b] else size - current_marked[b]


@njit(cache=True, nogil=True)
def _choose_split(
    columns,
    sample_index,
    start,
    end,
    node,
    table,
    dead,
    candidates,
    n_candidates,
    n_dead,
    tried,
    n_tried_total,
    features,
    limits,
    marked,
    buffers,
    draws,
):
    """The tries at ``node`` (see :func:`build_tree`): the first valid split, or feature -1.

    ``columns`` float (n_features, n_samples); the node's samples are
    ``sample_index[start:end]`` (int32).  ``candidates[:n_candidates]`` (int64
    (n_features,)) are the features that may be drawn, ``n_dead`` of them
    known to fail; a failed nominal feature is removed from them and
    appended to ``tried`` (int64) at ``n_tried_total``.  ``features``,
    ``limits``, ``marked``, ``buffers`` and ``draws`` are the tuples of
    :func:`build_tree`.  Returns ``(feature, operator, threshold, n_tried_total)``.
    """
    is_nominal, n_categories, binary_index, feature_min, feature_max = features
    min_samples_leaf = limits[0]
    use_marked, current_marked, marked_is_low = marked
    category_size, scan_values, scan_counts = buffers[0], buffers[5], buffers[6]
    stream, state, mersenne_state = draws
    n_features = columns.shape[0]
    size = end - start
    breadth_first = stream == STREAM_MERSENNE
    for _try in range(n_features):
        if n_candidates == 0:
            break
        if n_dead == n_candidates and not breadth_first:
            # every remaining try fails whatever it draws (and the next node reseeds its stream)
            break
        position = _draw(stream, state, mersenne_state, n_candidates)
        f = candidates[position]
        if is_nominal[f]:
            tried[n_tried_total] = f
            n_tried_total += 1
            table[node, _N_TRIED] += 1
            k = n_categories[f]
            if k <= 1 or not _nominal_split_is_valid(
                columns[f], sample_index, start, end, k, category_size, min_samples_leaf
            ):
                # a failed nominal feature is not tried again at this node
                n_candidates = _remove_candidate(candidates, n_candidates, position)
                continue
            return f, 0, 0.0, n_tried_total
        if _is_dead(dead, node, f):
            # no threshold of this feature is valid here (same outcome, no scan)
            _skip_dead_try(stream, state, mersenne_state, size)
            continue
        operator = _draw(stream, state, mersenne_state, np.int64(2))
        chosen = start + _draw(stream, state, mersenne_state, size)
        value = columns[f][sample_index[chosen]]
        n_low_count = _marked_low_count(
            binary_index[f] if use_marked else -1, size, current_marked, marked_is_low
        )
        valid, newly_dead = _numeric_try(
            columns[f],
            sample_index,
            start,
            end,
            node,
            f,
            value,
            operator,
            n_low_count,
            feature_min,
            feature_max,
            min_samples_leaf,
            scan_values,
            scan_counts,
            dead,
        )
        if newly_dead:
            n_dead += 1
        if valid:
            return f, operator, value, n_tried_total
    return -1, 0, 0.0, n_tried_total


@njit(cache=True, nogil=True)
def _split_node(
    columns,
    table,
    thresholds,
    counts,
    dead,
    order,
    classes,
    node,
    n_nodes,
    feature,
    operator,
    threshold,
    features,
    buffers,
):
    """Split ``node`` on ``feature``: new child rows at ``n_nodes`` and their samples in the other row of ``order``.

    ``table`` int64 (n_nodes, _N_COLUMNS), ``thresholds`` float64 (n_nodes,),
    ``counts`` int32 (n_nodes, n_classes) and ``dead`` uint64 (n_nodes,
    n_words) are enlarged as needed; ``order`` and ``classes`` are int32
    (2, n_samples); ``features`` and ``buffers`` are the tuples of
    :func:`build_tree`.  Returns the node arrays and the number of children.
    """
    is_nominal, n_categories = features[0], features[1]
    category_size, category_fill, category_counts, value_buffer, left_counts = buffers[:5]
    nominal = is_nominal[feature]
    k = n_categories[feature] if nominal else 2
    table, thresholds, counts, dead = _grow(table, thresholds, counts, dead, n_nodes + k)
    first_child = n_nodes
    parity = table[node, _DEPTH] & 1
    _record_split(table, thresholds, node, first_child, k, feature, operator, nominal, threshold)
    if nominal:
        _split_nominal(
            columns[feature],
            table,
            counts,
            order,
            classes,
            parity,
            node,
            first_child,
            k,
            category_size,
            category_fill,
            category_counts,
        )
    else:
        _split_numeric(
            columns[feature],
            table,
            counts,
            order,
            classes,
            parity,
            node,
            first_child,
            threshold,
            operator,
            value_buffer,
            left_counts,
        )
    _inherit_dead(dead, node, first_child, k)
    return table, thresholds, counts, dead, k


@njit(cache=True, nogil=True)
def _push_children(stack, n_stack, first_child, n_children):
    """Push the children on ``stack`` (int64), last first (the first child is grown first).

    Returns the stack (enlarged as needed) and its new length.
    """
    stack = _enlarged_stack(stack, n_stack, n_children)
    for c in range(n_children - 1, -1, -1):
        stack[n_stack] = first_child + c
        n_stack += 1
    return stack, n_stack


@njit(cache=True, nogil=True, interpreted_max_work=20_000)
def build_tree(
    columns,
    feature_min,
    feature_max,
    row_hash,
    y,
    n_classes,
    is_nominal,
    n_categories,
    min_samples_leaf,
    min_samples_split,
    max_depth,
    stop_at_pure_nodes,
    seed,
    stream,
    mersenne_state,
    binary_index,
    marked_is_low,
    marked_start,
    marked_binary,
):
    """Grow one random decision tree (the algorithm: :ref:`tree-growth` in the User Guide).

    Parameters
    ----------
    columns : float array (n_features, n_samples)
        The training data feature by feature, any layout (the estimator passes ``X.T``): numeric
        features as they are, nominal ones as codes ``0 .. n_categories[f] - 1``.
    feature_min, feature_max : float64 array (n_features,)
        Minimum and maximum of each feature over the training samples.
    row_hash : uint64 array (n_samples,)
        A hash of every sample's feature values (:func:`row_hashes`).
    y : int64 array (n_samples,)
        Class indices ``0 .. n_classes - 1``.
    n_classes, min_samples_leaf, min_samples_split, max_depth : int
        ``max_depth`` negative: no depth limit.
    is_nominal, n_categories : bool array (n_features,), int64 array (n_features,)
        Whether each feature is nominal, and its number of training categories (0 for numeric).
    stop_at_pure_nodes : bool
        A node whose samples all have one class is a leaf (False in Busch et al.'s trees).
    seed : uint64
        Seed of the tree's splitmix64 streams (``stream = STREAM_SPLITMIX``).
    stream, mersenne_state : int, uint32 array (625,)
        ``STREAM_SPLITMIX`` (one stream per node, depth first) or ``STREAM_MERSENNE`` (the MT19937
        state ``mersenne_state``, shared by the trees grown one after another and advanced in place,
        breadth first).
    binary_index : int64 array (n_features,)
        Index among the binary features of every numeric feature with two training values, else -1.
    marked_is_low : bool array (n_binary,)
        Whether a binary feature's marked (rarer) value is its minimum.
    marked_start, marked_binary : int64 array (n_samples + 1,), int32 array
        Sparse rows of the marked values (:func:`marked_rows`).

    Returns
    -------
    feature, operator, nominal, threshold, child_start, n_children, counts, depth
        Flat node arrays trimmed to the number of nodes (see the module doc); ``feature`` int32,
        ``operator`` and ``nominal`` int8, ``threshold`` float64, the others int32.
    """
    n_features = columns.shape[0]
    breadth_first = stream == STREAM_MERSENNE
    state = np.full(1, seed, dtype=np.uint64)
    order, classes = _root_rows(y)
    any_nominal, buffers = _work_buffers(columns, n_classes, is_nominal, n_categories)
    candidates = np.arange(n_features)  # without nominal features: every feature, always
    blocked = np.zeros(n_features, dtype=np.bool_)
    tried = np.empty(16, dtype=np.int64)
    # counters start as np.int64, not literals: a literal argument compiles a called kernel once more for
    # its Literal[int] type (numba specialises dispatchers on literal arguments)
    n_tried_total = np.int64(0)
    features = (is_nominal, n_categories, binary_index, feature_min, feature_max)
    limits = (min_samples_leaf, min_samples_split, max_depth, stop_at_pure_nodes)
    draws = (stream, state, mersenne_state)
    # binary features (two training values) with per-node counts of their marked value (depth-first
    # growth only): the outcome of every try on them is known without a scan; the pools hold the counts
    # and the binary features not dead at a node (the only ones whose counts are kept) per stack slot
    n_binary = marked_is_low.shape[0]
    use_marked = n_binary > 0 and not breadth_first
    binary_feature = _binary_features(binary_index, n_binary)
    pools, current_marked, current_alive = _root_marked_counts(
        order[0], marked_start, marked_binary, n_binary, use_marked
    )
    marked = (use_marked, current_marked, marked_is_low)
    n_alive = np.int64(0)
    table, thresholds, counts, dead = _new_node_table(y, n_classes, (n_features + 63) // 64)
    n_nodes = np.int64(1)
    # the authors' shared stream is drawn breadth first (nodes in id order); the per-node streams grow
    # the nodes depth first (a small subtree's samples stay in cache while it grows)
    stack = np.zeros(64, dtype=np.int64)
    n_stack = np.int64(1)
    next_in_order = np.int64(0)
    while True:
        if breadth_first:
            if next_in_order >= n_nodes:
                break
            node = next_in_order
            next_in_order += 1
        else:
            if n_stack == 0:
                break
            n_stack -= 1
            node = stack[n_stack]
            state[0] = _node_seed(seed, node)
            if use_marked:
                n_alive = _restore_marked(n_stack, pools, current_marked, current_alive)
        start = table[node, _START]
        end = table[node, _END]
        size = end - start
        sample_index = order[table[node, _DEPTH] & 1]
        table[node, _FEATURE] = -1
        if _is_leaf_without_tries(counts, node, size, table[node, _DEPTH], limits, breadth_first):
            continue
        if not breadth_first and _identical_rows(
            columns, row_hash, sample_index, start, end, binary_index, current_marked, use_marked, dead, node
        ):
            # every try fails on identical samples (and no draw is owed to a later node)
            continue
        if any_nominal:
            n_candidates, tried = _nominal_candidates(table, tried, blocked, candidates, node, n_tried_total)
        else:
            n_candidates = n_features
        if use_marked:
            n_alive = _drop_dead_binary(
                dead, node, current_alive, n_alive, current_marked, binary_feature, size, min_samples_leaf
            )
        # candidates known to fail (numeric features marked dead here or at an ancestor)
        n_dead = _count_dead_candidates(dead, node, candidates, n_candidates, is_nominal, any_nominal)
        feature, operator, threshold, n_tried_total = _choose_split(
            columns, sample_index, start, end, node, table, dead, candidates, n_candidates, n_dead, tried,
            n_tried_total, features, limits, marked, buffers, draws,
        )  # fmt: skip
        if feature < 0:
            continue
        first_child = n_nodes
        table, thresholds, counts, dead, k = _split_node(
            columns, table, thresholds, counts, dead, order, classes, node, n_nodes, feature, operator,
            threshold, features, buffers,
        )  # fmt: skip
        n_nodes += k
        if breadth_first:
            continue
        if use_marked:
            child_samples = order[1 - (table[node, _DEPTH] & 1)]
            pools = _children_marked_counts(
                table, child_samples, node, first_child, k, n_stack, limits, marked_start, marked_binary,
                current_alive, n_alive, current_marked, pools,
            )  # fmt: skip
        stack, n_stack = _push_children(stack, n_stack, first_child, k)

    return _trimmed_tree(table, thresholds, counts, n_nodes)


# The packed node table (the fitted state of a forest and its routing table; one 16-byte record per node):
# ``nodes[g, 0]``: bits 0-7 the flags below, bits 8-31 the split feature, bits 32-62 a global node id (the
# first child of a split; the node itself for a leaf); ``nodes[g, 1]``: for a numeric split, the bits of the
# float64 threshold in ``<=`` form (``x < t`` stored as ``x <= nextafter(t, -inf)``); for a leaf, a quiet NaN
# whose payload is the leaf's count row (so that ``x > threshold`` is false and a leaf is its own child);
# for a nominal split, ``count row << 32 | n_children``.
ROUTE_NOMINAL = 2
ROUTE_LEAF = 4
ROUTE_EMPTY = 8
ROUTE_LESS = 16  # numeric split with operator ``<`` (the stored threshold is the previous float)
ROUTE_NEGATIVE_ZERO = 32  # operator ``<`` at threshold -0.0 (not +0.0; both have the same previous float)
ROUTE_FEATURE_SHIFT = 8
ROUTE_FEATURE_MASK = (1 << 24) - 1
ROUTE_TARGET_SHIFT = 32
ROUTE_MAX_NODES = 1 << 31
_LEAF_NAN = np.int64(0x7FF8000000000000)
_LOW_32 = np.int64(0xFFFFFFFF)
_GROUP = 16  # lanes of samples walking down a tree together (their node loads overlap)


@njit(cache=True, nogil=True, interpreted_max_work=6_000)
def pack_tree(feature, operator, nominal, threshold, child_start, n_children):
    """The packed node records of one tree (see the comment above), with local node ids and no count rows.

    :func:`finish_nodes` makes the ids global and writes the count rows once
    the count rows of the whole forest are numbered.
    """
    n_nodes = feature.shape[0]
    nodes = np.zeros((n_nodes, 2), dtype=np.int64)
    thresholds = nodes.view(np.float64)
    for g in range(n_nodes):
        f = feature[g]
        if f < 0:
            nodes[g, 0] = ROUTE_LEAF | (np.int64(g) << ROUTE_TARGET_SHIFT)
            nodes[g, 1] = _LEAF_NAN
            continue
        word = (np.int64(f) << ROUTE_FEATURE_SHIFT) | (np.int64(child_start[g]) << ROUTE_TARGET_SHIFT)
        if nominal[g] == 1:
            nodes[g, 0] = word | ROUTE_NOMINAL
            nodes[g, 1] = n_children[g]
            continue
        t = threshold[g]
        if operator[g] == 0:
            word |= ROUTE_LESS
            if t == 0.0 and np.signbit(t):
                word |= ROUTE_NEGATIVE_ZERO
            t = np.nextafter(t, -np.inf)  # x < t  <=>  x <= previous float
        nodes[g, 0] = word
        thresholds[g, 1] = t
    return nodes


@njit(cache=True, nogil=True, interpreted_max_work=2_500)
def finish_tree(nodes, base, node_row, counts):
    """Make the node ids of one tree global (its root is node ``base``) and write its count rows (in place).

    ``node_row[g]`` is the number of node ``g``'s count row in the forest's
    table of distinct count rows; a node of zero ``counts`` is marked
    ``ROUTE_EMPTY``.
    """
    for g in range(nodes.shape[0]):
        word = nodes[g, 0] + (np.int64(base) << ROUTE_TARGET_SHIFT)
        total = 0
        for c in range(counts.shape[1]):
            total += counts[g, c]
        if total == 0:
            word |= ROUTE_EMPTY
        nodes[g, 0] = word
        if word & ROUTE_LEAF:
            nodes[g, 1] = _LEAF_NAN | node_row[g]
        elif word & ROUTE_NOMINAL:
            nodes[g, 1] = (nodes[g, 1] & _LOW_32) | (np.int64(node_row[g]) << ROUTE_TARGET_SHIFT)
    return nodes


@njit(cache=True, nogil=True, interpreted_max_work=8_192)
def number_count_rows(counts, table, n_rows, slots):
    """Number the count rows of one tree in a forest's table of distinct count rows (in order of first appearance).

    ``table[:n_rows]`` (int64, (capacity, n_classes)) holds the distinct rows
    numbered so far and ``slots`` (int64, power-of-two size, -1 free) their
    open-addressing hash slots (linear probing, kept at most half full; the row hash of
    :func:`dstk._kernels.leaf_tables.distinct_rows`).
    Returns ``keys`` (the number of every row of ``counts``) and the updated
    ``table``, ``n_rows`` and ``slots`` (enlarged when full).
    """
    n, width = counts.shape
    # the tree's int32 counts as int64, the table's type: one compiled _row_hash (same hashes)
    counts = counts.astype(np.int64)
    keys = np.empty(n, dtype=np.int64)
    for i in range(n):
        capacity = slots.shape[0]
        position = np.int64(_row_hash(counts, i) & np.uint64(capacity - 1))
        while True:
            slot = slots[position]
            if slot < 0:
                break
            equal = True
            for k in range(width):
                if table[slot, k] != counts[i, k]:
                    equal = False
                    break
            if equal:
                break
            position = (position + 1) & (capacity - 1)
        if slot >= 0:
            keys[i] = slot
            continue
        if n_rows == table.shape[0]:
            enlarged = np.empty((2 * table.shape[0], width), dtype=np.int64)
            for r in range(n_rows):  # element loops: a slice copy compiles an error message
                for j in range(table.shape[1]):
                    enlarged[r, j] = table[r, j]
            table = enlarged
        for k in range(width):
            table[n_rows, k] = counts[i, k]
        slots[position] = n_rows
        keys[i] = n_rows
        n_rows += 1
        if 2 * n_rows > capacity:
            capacity *= 2
            slots = np.full(capacity, -1, dtype=np.int64)
            for d in range(n_rows):
                position = np.int64(_row_hash(table, d) & np.uint64(capacity - 1))
                while slots[position] >= 0:
                    position = (position + 1) & (capacity - 1)
                slots[position] = d
    return keys, table, n_rows, slots


@njit(cache=True, nogil=True)
def shift_nodes(nodes, node_shift, row_of):
    """The records of ``nodes`` moved by ``node_shift`` global ids, count row ``r`` renumbered ``row_of[r]``."""
    out = nodes.copy()
    for g in range(nodes.shape[0]):
        word = nodes[g, 0] + (node_shift << ROUTE_TARGET_SHIFT)
        out[g, 0] = word
        if word & ROUTE_LEAF:
            out[g, 1] = _LEAF_NAN | row_of[nodes[g, 1] & _LOW_32]
        elif word & ROUTE_NOMINAL:
            row = (nodes[g, 1] >> ROUTE_TARGET_SHIFT) & _LOW_32
            out[g, 1] = (nodes[g, 1] & _LOW_32) | (np.int64(row_of[row]) << ROUTE_TARGET_SHIFT)
    return out


@njit(cache=True, nogil=True)
def node_rows(nodes):
    """Count row of every leaf and nominal split, -1 for a numeric split."""
    out = np.full(nodes.shape[0], -1, dtype=np.int64)
    for g in range(nodes.shape[0]):
        word = nodes[g, 0]
        if word & ROUTE_LEAF:
            out[g] = nodes[g, 1] & _LOW_32
        elif word & ROUTE_NOMINAL:
            out[g] = (nodes[g, 1] >> ROUTE_TARGET_SHIFT) & _LOW_32
    return out


@njit(cache=True, nogil=True)
def unpack_nodes(nodes, offsets, rows):
    """The node arrays of :func:`build_tree` (local child ids) rebuilt exactly from the packed records.

    Returns ``feature, operator, nominal, threshold, child_start, n_children,
    counts, depth``; the counts of a numeric split are the sums of its
    children's (every training sample of a node reaches exactly one child).
    """
    n_nodes = nodes.shape[0]
    n_classes = rows.shape[1]
    thresholds = nodes.view(np.float64)
    feature = np.full(n_nodes, -1, dtype=np.int32)
    operator = np.zeros(n_nodes, dtype=np.int8)
    nominal = np.zeros(n_nodes, dtype=np.int8)
    threshold = np.zeros(n_nodes)
    child_start = np.zeros(n_nodes, dtype=np.int32)
    n_children = np.zeros(n_nodes, dtype=np.int32)
    counts = np.zeros((n_nodes, n_classes), dtype=np.int32)
    depth = np.zeros(n_nodes, dtype=np.int32)
    for t in range(offsets.shape[0] - 1):
        base = offsets[t]
        for g in range(offsets[t], offsets[t + 1]):
            word = nodes[g, 0]
            if word & ROUTE_LEAF:
                row = nodes[g, 1] & _LOW_32
                for c in range(n_classes):
                    counts[g, c] = np.int32(rows[row, c])
                continue
            feature[g] = (word >> ROUTE_FEATURE_SHIFT) & ROUTE_FEATURE_MASK
            first = word >> ROUTE_TARGET_SHIFT
            child_start[g] = first - base
            if word & ROUTE_NOMINAL:
                nominal[g] = 1
                n_children[g] = nodes[g, 1] & _LOW_32
            else:
                n_children[g] = 2
                t_le = thresholds[g, 1]
                if word & ROUTE_LESS:
                    threshold[g] = -0.0 if word & ROUTE_NEGATIVE_ZERO else np.nextafter(t_le, np.inf)
                else:
                    operator[g] = 1
                    threshold[g] = t_le
            for j in range(n_children[g]):
                depth[first + j] = depth[g] + 1
        for g in range(offsets[t + 1] - 1, offsets[t] - 1, -1):  # children after their parent
            if feature[g] >= 0:
                first = base + child_start[g]
                for j in range(n_children[g]):
                    for c in range(n_classes):
                        counts[g, c] += counts[first + j, c]
    return feature, operator, nominal, threshold, child_start, n_children, counts, depth


@njit(cache=True, nogil=True, interpreted_max_work=8_000)
def route_rows_kernel(X, roots, nodes, thresholds, zero_row, empty_leaf, leaf_ids, out):
    """Fill ``out[i, t]`` with the count row (or the local leaf id) reached by sample ``i`` in tree ``t``.

    Parameters
    ----------
    X : float64 or float32 array (n_samples, n_features)
        Encoded like the training data (unseen nominal values: -1); float32
        with float32 ``thresholds``.
    roots : int64 array (n_trees,)
        Global id of each tree's root.
    nodes : int64 array (n_nodes, 2)
        The packed node records (see the comment above :func:`pack_tree`).
    thresholds : float64 or float32 array (n_nodes,)
        The ``<=`` thresholds, NaN at the leaves: for float64 samples
        ``nodes.view(np.float64)[:, 1]`` (a view: the record and its threshold
        share a cache line); for float32 samples each threshold rounded down
        to a float32 (for a float32 ``x``, ``x <= t`` exactly when ``x`` is at
        most the largest float32 not above ``t``).
    zero_row : int
        Count row of zero counts (``empty_leaf = EMPTY_LEAF_ZERO``).
    empty_leaf : int
        Policy for a sample reaching an empty or unseen child of a nominal
        split v (only nominal splits have empty children): parent (the row
        of v), zero (``zero_row``) or siblings (-1: the caller sums the leaves
        of v's non-empty children for those entries).
    leaf_ids : bool
        Write the local id of the leaf reached (-1 for an empty or unseen
        child, whatever ``empty_leaf``) instead of its count row.
    out : int64 array (n_samples, n_trees)

    Notes
    -----
    A numeric split sends ``x`` to its second child when ``x > t`` (``t``
    the ``<=`` form of the threshold; the same test for every finite ``x``),
    so the next node is ``first + (x > t)`` without a branch.  The samples
    walk a tree 16 at a time, one level per pass over the 16 lanes, so that
    the loads of their nodes overlap (the walk of one sample is a chain of
    dependent loads); a lane whose sample reaches its leaf takes the next
    sample at once (no lane idles while the others walk deeper).  Trees are
    in the outer loop so that a tree stays in cache while every sample
    walks it.
    """
    n_samples = X.shape[0]
    n_trees = roots.shape[0]
    lane = np.empty(_GROUP, dtype=np.int64)  # the sample walking in each lane (-1: lane closed)
    current = np.empty(_GROUP, dtype=np.int64)  # its node
    for t in range(n_trees):
        root = roots[t]
        n_lanes = min(_GROUP, n_samples)
        for k in range(n_lanes):
            lane[k] = k
            current[k] = root
        next_sample = n_lanes
        n_open = n_lanes
        while n_open > 0:
            for k in range(n_lanes):
                i = lane[k]
                if i < 0:
                    continue
                g = current[k]
                word = nodes[g, 0]
                if word & ROUTE_LEAF:
                    out[i, t] = g - root if leaf_ids else nodes[g, 1] & _LOW_32
                else:
                    x = X[i, (word >> ROUTE_FEATURE_SHIFT) & ROUTE_FEATURE_MASK]
                    first = word >> ROUTE_TARGET_SHIFT
                    if (word & ROUTE_NOMINAL) == 0:
                        current[k] = first + (x > thresholds[g])
                        continue
                    code = np.int64(x) if x >= 0.0 else -1
                    if code >= 0 and code < (nodes[g, 1] & _LOW_32) and code == x:
                        if (nodes[first + code, 0] & ROUTE_EMPTY) == 0:
                            current[k] = first + code
                            continue
                    if leaf_ids or empty_leaf == EMPTY_LEAF_SIBLINGS:
                        out[i, t] = -1
                    elif empty_leaf == EMPTY_LEAF_PARENT:
                        out[i, t] = (nodes[g, 1] >> ROUTE_TARGET_SHIFT) & _LOW_32
                    else:
                        out[i, t] = zero_row
                # the sample is done in this tree: the lane takes the next one
                if next_sample < n_samples:
                    lane[k] = next_sample
                    current[k] = root
                    next_sample += 1
                else:
                    lane[k] = -1
                    n_open -= 1
    return out


@njit(cache=True, nogil=True)
def sibling_counts_kernel(X, roots, nodes, rows, samples, trees, out):
    """Counts of the ``siblings`` policy: ``out[j]`` = the summed counts of the leaves below the nominal
    split where sample ``samples[j]`` met an empty or unseen child in tree ``trees[j]``, reached through its
    non-empty children (recursively, the same policy further down).

    ``rows`` (n_rows, n_classes) are the forest's count rows; ``out`` (n, n_classes) int64 is overwritten.
    """
    n_classes = rows.shape[1]
    stack = np.empty(64, dtype=np.int64)
    for j in range(samples.shape[0]):
        i = samples[j]
        for c in range(n_classes):
            out[j, c] = 0
        stack[0] = roots[trees[j]]
        top = 1
        while top > 0:
            top -= 1
            g = stack[top]
            word = nodes[g, 0]
            if word & ROUTE_LEAF:
                row = nodes[g, 1] & _LOW_32
                for c in range(n_classes):
                    out[j, c] += np.int64(rows[row, c])
                continue
            x = X[i, (word >> ROUTE_FEATURE_SHIFT) & ROUTE_FEATURE_MASK]
            first = word >> ROUTE_TARGET_SHIFT
            n_next = 1
            if word & ROUTE_NOMINAL:
                n_children = nodes[g, 1] & _LOW_32
                code = np.int64(x) if x >= 0.0 else -1
                if (
                    code >= 0
                    and code < n_children
                    and code == x
                    and (nodes[first + code, 0] & ROUTE_EMPTY) == 0
                ):
                    next_node = first + code
                else:  # every non-empty child
                    n_next = 0
                    for c in range(n_children):
                        if (nodes[first + c, 0] & ROUTE_EMPTY) == 0:
                            n_next += 1
                    if top + n_next > stack.shape[0]:
                        stack = np.concatenate((stack, np.empty(stack.shape[0] + n_next, dtype=np.int64)))
                    for c in range(n_children):
                        if (nodes[first + c, 0] & ROUTE_EMPTY) == 0:
                            stack[top] = first + c
                            top += 1
                    continue
            else:
                next_node = first + (x > nodes.view(np.float64)[g, 1])
            if top + 1 > stack.shape[0]:
                stack = np.concatenate((stack, np.empty(stack.shape[0], dtype=np.int64)))
            stack[top] = next_node
            top += n_next
    return out


@njit(cache=True, nogil=True)
def _subtree_counts_add(nodes, rows, top_node, skip, stack, out_row):
    """Add the counts of every leaf below ``top_node``, the subtree of node ``skip`` excepted, to ``out_row``.

    ``nodes`` (n_nodes, 2) int64 node records, ``rows`` (n_rows, n_classes)
    count rows, ``stack`` (m,) int64 scratch (enlarged as needed; returned),
    ``out_row`` (n_classes,) int64 accumulated in place.
    """
    n_classes = rows.shape[1]
    stack[0] = top_node
    top = 1
    while top > 0:
        top -= 1
        g = stack[top]
        if g == skip:
            continue
        word = nodes[g, 0]
        if word & ROUTE_LEAF:
            row = nodes[g, 1] & _LOW_32
            for c in range(n_classes):
                out_row[c] += np.int64(rows[row, c])
            continue
        n_children = nodes[g, 1] & _LOW_32 if word & ROUTE_NOMINAL else 2
        if top + n_children > stack.shape[0]:
            stack = np.concatenate((stack, np.empty(stack.shape[0] + n_children, dtype=np.int64)))
        first = word >> ROUTE_TARGET_SHIFT
        for c in range(n_children):
            stack[top] = first + c
            top += 1
    return stack


@njit(cache=True, nogil=True)
def _would_be_leaf(counts, label, min_samples_split, stop_at_pure_nodes):
    """Whether a node of class counts ``counts`` (n_classes,) less one sample of ``label`` stops growing."""
    total = np.int64(0)
    n_present = 0
    for c in range(counts.shape[0]):
        value = counts[c] - (c == label)
        total += value
        n_present += value > 0
    return total < min_samples_split or (stop_at_pure_nodes and n_present <= 1)


@njit(cache=True, nogil=True, interpreted_max_work=8_000)
def leave_one_out_counts_kernel(
    X, y, roots, nodes, rows, samples, trees, min_samples_split, stop_at_pure_nodes, out
):
    """Counts of the leaf that training sample ``samples[j]`` would reach in tree ``trees[j]`` grown without it.

    The sample's own leaf without it, unless removing the sample makes a
    node of its path stop growing: then the shallowest such node (its
    counts without the sample).  A node stops when it would keep fewer than
    ``min_samples_split`` samples or, with ``stop_at_pure_nodes``, samples
    of one class only; a leaf left empty is replaced by its parent.  ``X``
    (n_samples, n_features) holds training samples (encoded), which never
    meet an empty or unseen child, ``y`` (n_samples,) int64 their class
    indices; ``rows`` (n_rows, n_classes) the forest's count rows; ``out``
    (n, n_classes) int64 is overwritten.
    """
    n_classes = rows.shape[1]
    thresholds = nodes.view(np.float64)
    stack = np.empty(64, dtype=np.int64)
    path = np.empty(64, dtype=np.int64)
    below = np.empty(n_classes, dtype=np.int64)
    for j in range(samples.shape[0]):
        i = samples[j]
        label = y[i]
        g = roots[trees[j]]
        depth = 0
        path[0] = g
        while (nodes[g, 0] & ROUTE_LEAF) == 0:
            word = nodes[g, 0]
            x = X[i, (word >> ROUTE_FEATURE_SHIFT) & ROUTE_FEATURE_MASK]
            if word & ROUTE_NOMINAL:
                g = (word >> ROUTE_TARGET_SHIFT) + np.int64(x)
            else:
                g = (word >> ROUTE_TARGET_SHIFT) + (x > thresholds[g, 1])
            depth += 1
            if depth >= path.shape[0]:
                path = np.concatenate((path, np.empty(path.shape[0], dtype=np.int64)))
            path[depth] = g
        row = nodes[g, 1] & _LOW_32
        for c in range(n_classes):
            below[c] = np.int64(rows[row, c])
        # the leaf without the sample is empty: it would not exist, the sample falls in its parent
        empty = below.sum() - 1 <= 0
        level = depth
        while level > 0:
            if not empty:
                # the parent's counts: the node's plus its siblings' subtrees
                for c in range(n_classes):
                    out[j, c] = below[c]
                stack = _subtree_counts_add(nodes, rows, path[level - 1], path[level], stack, out[j])
                if not _would_be_leaf(out[j], label, min_samples_split, stop_at_pure_nodes):
                    break
                for c in range(n_classes):
                    below[c] = out[j, c]
            else:
                stack = _subtree_counts_add(nodes, rows, path[level - 1], path[level], stack, below)
                empty = False
            level -= 1
        for c in range(n_classes):
            out[j, c] = below[c] - (c == label)
    return out
