"""The trees and the floating-point results of Busch et al.'s reference code, reproduced.

``compatibility="busch2021"`` grows the trees of the authors' code from the same
seed and evaluates the plausibility leaves and the clamped pairwise rules in
their order of operations.  The references here are written from the description of that
code (research note ``calib-ensemble-anchors.md`` sections 1.1-1.4): a plain
Python tree builder drawing from ``numpy.random.RandomState.randint``, and a
plain numpy version of the clamped pairwise rules; plus the per-split AUCs the
authors' code gives on breast-cancer (section 1.9).
"""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from dstk._kernels import mersenne_twister
from dstk.ensemble import RandomDecisionTreesClassifier, combine_leaves
from dstk.ensemble._combiners import _Arithmetic, _combine

# --------------------------------------------------------------------------- random stream


@pytest.mark.parametrize("seed", [0, 1, 30, 2**32 - 1])
def test_mersenne_twister_draws_as_randomstate_randint(seed):
    bounds = np.random.default_rng(seed % 1000).integers(1, 70_000, 5_000)
    bounds[::7] = 1  # randint(1) draws nothing
    bounds[::13] = 2
    bounds[3], bounds[4] = 2**32, 2**31 + 3
    reference = np.random.RandomState(seed)
    state = mersenne_twister.state_from_random_state(np.random.RandomState(seed))
    expected = [reference.randint(int(b)) for b in bounds]
    got = [mersenne_twister.random_below(state, int(b)) for b in bounds]
    assert got == expected
    # the state written back continues the same stream
    resumed = np.random.RandomState()
    mersenne_twister.restore_random_state(resumed, state)
    assert resumed.randint(10**9, size=5).tolist() == reference.randint(10**9, size=5).tolist()


# --------------------------------------------------------------------------- trees


class _ReferenceTree:
    """Breadth-first random tree drawn as the authors' code draws it (research note section 1.1)."""

    def __init__(self, X, y, n_classes, nominal, rng, min_samples_leaf, min_samples_split):
        self.categories = {f: np.unique(X[:, f]) for f in np.flatnonzero(nominal)}
        self.nominal = nominal
        self.root = {"counts": np.bincount(y, minlength=n_classes), "children": []}
        queue = [(self.root, np.arange(len(y)), [])]
        n_features = X.shape[1]
        while queue:
            node, rows, tried = queue.pop(0)
            if len(rows) < min_samples_split:
                continue
            tried = list(tried)
            candidates = list(range(n_features))
            children = []
            for _ in range(n_features):
                candidates = [f for f in candidates if f not in tried]
                if not candidates:
                    break
                f = candidates[rng.randint(len(candidates))]
                if nominal[f]:
                    tried.append(f)
                    children = [rows[X[rows, f] == value] for value in self.categories[f]]
                    sizes = sorted(len(c) for c in children)
                    if len(sizes) == 1 or sizes[-2] < min_samples_leaf:
                        children = []
                else:
                    operator = rng.randint(2)
                    value = X[rows[rng.randint(len(rows))], f]
                    left = X[rows, f] < value if operator == 0 else X[rows, f] <= value
                    children = [rows[left], rows[~left]]
                    if min(len(c) for c in children) < min_samples_leaf:
                        children = []
                    else:
                        node["operator"], node["threshold"] = operator, value
                if children:
                    node["feature"] = f
                    break
            for part in children:
                child = {"counts": np.bincount(y[part], minlength=n_classes), "children": []}
                node["children"].append(child)
                queue.append((child, part, tried))

    def route(self, node, x):
        """Leaf counts of ``x``; an empty or unseen nominal child sums the leaves of its non-empty siblings."""
        if not node["children"]:
            return node["counts"]
        f = node["feature"]
        if self.nominal[f]:
            position = np.flatnonzero(self.categories[f] == x[f])
            child = node["children"][position[0]] if position.size else None
        else:
            goes_left = x[f] < node["threshold"] if node["operator"] == 0 else x[f] <= node["threshold"]
            child = node["children"][0 if goes_left else 1]
        if child is None or not child["counts"].any():
            return sum(self.route(sibling, x) for sibling in node["children"] if sibling["counts"].any())
        return self.route(child, x)


def _reference_leaf_counts(X, y, X_test, nominal, seed, n_trees, min_samples_leaf, min_samples_split):
    rng = np.random.RandomState(seed)
    n_classes = int(y.max()) + 1
    trees = [
        _ReferenceTree(X, y, n_classes, nominal, rng, min_samples_leaf, min_samples_split)
        for _ in range(n_trees)
    ]
    return np.array([[tree.route(tree.root, x) for tree in trees] for x in X_test])


def _mixed_data(seed, n=120):
    rng = np.random.default_rng(seed)
    X = np.column_stack(
        [
            rng.normal(size=n).round(1),  # numeric with ties
            rng.integers(0, 3, n) * 10.0,  # nominal, 3 values (codes 0, 10, 20)
            rng.uniform(size=n),
            rng.integers(0, 5, n) - 2.0,  # nominal, 5 values
        ]
    )
    y = ((X[:, 0] + (X[:, 1] == 10) + rng.normal(scale=0.5, size=n)) > 0.5).astype(int)
    y[::9] = 2  # a third class
    return X, y


@pytest.mark.parametrize(("seed", "leaf"), [(0, 1), (3, 2), (7, 4)])
def test_sequential_stream_grows_the_reference_trees(seed, leaf):
    X, y = _mixed_data(seed)
    nominal = np.array([False, True, False, True])
    X_test, _ = _mixed_data(seed + 100, n=60)
    X_test[:5, 3] = 7.0  # nominal values unseen in training
    model = RandomDecisionTreesClassifier(
        n_estimators=8,
        min_samples_leaf=leaf,
        min_samples_split=2 * leaf,
        nominal_features=[1, 3],
        random_state=seed,
        compatibility="busch2021",
    ).fit(X, y)
    expected = _reference_leaf_counts(X, y, X_test, nominal, seed, 8, leaf, 2 * leaf)
    assert np.array_equal(model.leaf_counts(X_test), expected)


@pytest.mark.parametrize(("seed", "leaf"), [(0, 1), (5, 3)])
def test_scan_shortcuts_leave_the_trees_unchanged_on_sparse_data(seed, leaf):
    # sparse binary and few-valued features: the tries decided from the training range, the
    # per-node minimum/maximum cache and the inherited dead-feature marks must grow exactly the
    # trees of the plain reference builder, which scans the node at every try
    rng = np.random.default_rng(seed)
    X = (rng.random((150, 25)) < 0.06).astype(float)
    X[:, 3] = rng.integers(0, 3, 150)
    X[::7] = X[0]  # duplicated samples
    y = (X[:, :4].sum(axis=1) + rng.random(150) > 0.9).astype(int)
    nominal = np.zeros(25, dtype=bool)
    model = RandomDecisionTreesClassifier(
        n_estimators=6,
        min_samples_leaf=leaf,
        min_samples_split=2 * leaf,
        random_state=seed,
        compatibility="busch2021",
    ).fit(X, y)
    expected = _reference_leaf_counts(X, y, X, nominal, seed, 6, leaf, 2 * leaf)
    assert np.array_equal(model.leaf_counts(X), expected)


def test_sequential_stream_seeds_like_randomstate_and_advances_it():
    X, y = _mixed_data(1)
    params = {"n_estimators": 5, "nominal_features": [1, 3], "compatibility": "busch2021"}
    by_int = RandomDecisionTreesClassifier(random_state=11, **params).fit(X, y)
    rng = np.random.RandomState(11)
    by_state = RandomDecisionTreesClassifier(random_state=rng, **params).fit(X, y)
    assert np.array_equal(by_int.leaf_counts(X), by_state.leaf_counts(X))
    # the RandomState passed in has been advanced: a second fit grows other trees
    again = RandomDecisionTreesClassifier(random_state=rng, **params).fit(X, y)
    assert not np.array_equal(again.leaf_counts(X), by_state.leaf_counts(X))
    # ... which are the next trees of the same stream
    ten = RandomDecisionTreesClassifier(random_state=11, **{**params, "n_estimators": 10}).fit(X, y)
    assert np.array_equal(ten.leaf_counts(X)[:, 5:], again.leaf_counts(X))


# --------------------------------------------------------------------------- leaf arithmetic

# research note 1.4: (p, n-) -> (m(+), m(-)) of the authors' code, and the avg-plausibility score s+ - s-
_LEAVES = [
    (0, 0, 0.0, 0.0),
    (1, 0, 0.666667, 0.0),
    (1, 1, 0.0, 0.0),
    (2, 0, 0.828427, 0.0),
    (2, 1, 0.300125, 0.0),
    (3, 1, 0.483645, 0.0),
    (5, 0, 0.972778, 0.0),
    (10, 2, 0.755456, 0.0),
    (20, 5, 0.711643, 0.0),
    (50, 50, 0.0, 0.0),
    (600, 300, 0.379823, 0.0),
    (0, 3, 0.0, 0.0),  # mirror of (3, 0): m(-) from the other bracket
]


def test_reference_leaf_scores_match_the_published_leaf_values():
    counts = np.array([[[n, p]] for p, n, _, _ in _LEAVES])
    score = combine_leaves(counts, combiner="plausibility", compatibility="busch2021")
    expected = np.array([plus - minus for _, _, plus, minus in _LEAVES])
    # (0, 3): pi- = 1, pi+ = 2 theta - 1 with (1 - theta)^3 = 2 theta - 1, so s+ - s- = -(2 - 2 theta)
    theta = next(r.real for r in np.roots([-1, 3, -5, 2]) if abs(r.imag) < 1e-12 and 0.5 < r.real < 1)
    expected[-1] = -(2 - 2 * theta)
    assert np.allclose(score, expected, atol=1e-6)
    # the same model as dstk's machine-precision solver, up to the bisection tolerance
    exact = _combine(counts, "plausibility", arithmetic=_Arithmetic(rescale_above=537))["score"]
    assert np.allclose(score, exact, atol=1e-11)


def _scipy_degree(positives, negatives, support_of_positive):
    """The authors' pi+ / pi-: scipy's bisect on their brackets, the crossing written in their order."""
    from scipy.optimize import bisect

    def crossing(theta):
        total = positives + negatives
        normaliser = (positives / total) ** positives * (negatives / total) ** negatives
        relative = (theta**positives * (1 - theta) ** negatives) / normaliser
        return relative - 2 * theta + 1 if support_of_positive else relative + 2 * theta - 1

    if positives + negatives == 0:
        return 1.0
    frequency = positives / (positives + negatives)
    low, high = (frequency, 1.0) if support_of_positive else (0.0, frequency)
    theta = bisect(crossing, low, high)
    return 2 * theta - 1 if support_of_positive else 1 - 2 * theta


def test_reference_leaf_masses_are_scipy_bisection_bit_for_bit():
    from dstk.ensemble._reference import reference_plausibility_mass_rows

    rng = np.random.default_rng(5)
    pairs = [(p, n) for p in range(40) for n in range(40)] + [
        tuple(v) for v in rng.integers(0, 900, (300, 2))
    ]
    got = reference_plausibility_mass_rows(np.array([[n, p] for p, n in pairs], dtype=float), None)
    for row, (p, n) in zip(got, pairs):
        if max(p, n) > 537:  # the authors' underflow guard
            p, n = float(round(p / (max(p, n) / 537))), float(round(n / (max(p, n) / 537)))
        pi_plus, pi_minus = _scipy_degree(float(p), float(n), True), _scipy_degree(float(p), float(n), False)
        u = min(pi_plus, pi_minus) + (1 - max(pi_plus, pi_minus))
        plus = 1 - u if pi_plus > pi_minus else ((1 - u) / 2 if pi_plus == pi_minus else 0.0)
        assert row.tolist() == [0.0, 1 - (plus + u), plus, u], (p, n)


# --------------------------------------------------------------------------- pairwise rules


def _clamp(rows, floor=1e-5):
    for row in rows:  # authors' layout [empty, +, -, frame]
        if row[1] > 1 - floor:
            row[1], row[3] = 1 - floor, floor
        if row[2] > 1 - floor:
            row[2], row[3] = 1 - floor, floor


def _conjunctive_pair(a, b):
    conflict = a[0] * (b[0] + b[1] + b[2] + b[3])
    conflict += a[1] * (b[0] + b[2])
    conflict += a[2] * (b[0] + b[1])
    conflict += a[3] * b[0]
    return np.array(
        [conflict, a[1] * (b[1] + b[3]) + a[3] * b[1], a[2] * (b[2] + b[3]) + a[3] * b[2], a[3] * b[3]]
    )


def _cautious_pair(a, b):
    weights = []
    for m in (a, b):
        q = np.array([np.sum(m), m[1] + m[3], m[2] + m[3], m[3]])
        weights.append([(1 / q[0]) * q[1] * q[2] * (1 / q[3]), (1 / q[1]) * q[3], (1 / q[2]) * q[3]])
    w = np.minimum(*weights)
    simple = np.array([[1 - w[0], 0, 0, w[0]], [0, 1 - w[1], 0, w[1]], [0, 0, 1 - w[2], w[2]]])
    return _reduce(simple, _conjunctive_pair)


def _reduce(rows, pair):
    """Balanced pairwise reduction, clamping every level and the result."""
    rows = np.array(rows, dtype=float)
    while True:
        _clamp(rows)
        if len(rows) == 1:
            return rows[0]
        paired = [pair(rows[i], rows[i + 1]) for i in range(0, len(rows) - 1, 2)]
        if len(rows) % 2:
            paired.append(rows[-1])
        rows = np.array(paired)


def _reference_masses(counts):
    """Authors' layout [empty, +, -, frame] of the reference leaf masses, via the public average."""
    leaves = counts.reshape(-1, 1, 2)
    dense = np.array(
        [
            np.concatenate([[0.0], _single_leaf_mass(leaf)])
            for leaf in leaves  # one leaf at a time: the exact leaf vector
        ]
    )
    return dense.reshape(counts.shape[0], counts.shape[1], 4)


def _single_leaf_mass(leaf):
    from dstk.ensemble._combiners import combine_leaves_to_mass

    m = combine_leaves_to_mass(
        leaf[None], combiner="plausibility", normalize=False, compatibility="busch2021"
    ).to_array()[0]
    return np.array([m[2], m[1], m[3]])  # {1}, {0}, frame


@pytest.fixture(scope="module")
def small_leaf_counts():
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    model = RandomDecisionTreesClassifier(
        n_estimators=37, min_samples_leaf=2, min_samples_split=4, random_state=0, compatibility="busch2021"
    ).fit(X_train, y_train)
    return model.leaf_counts(X_test[:80])


@pytest.mark.parametrize("method", ["dempster", "cautious"])
def test_floor_rules_are_the_authors_arithmetic_bit_for_bit(small_leaf_counts, method):
    masses = _reference_masses(small_leaf_counts)
    pair = _conjunctive_pair if method == "dempster" else _cautious_pair
    expected = np.array([(lambda r: r[1] - r[2])(_reduce(sample, pair)) for sample in masses])
    got = combine_leaves(small_leaf_counts, combiner=method, compatibility="busch2021")
    assert np.array_equal(got, expected)
    # dstk's own leaf solver: the same values up to the bisection tolerance, except for broken ties
    exact_leaves = _combine(small_leaf_counts, method, arithmetic=_Arithmetic(floor=1e-5))["score"]
    assert np.allclose(exact_leaves, got, atol=1e-8)


def test_conventions_the_authors_code_never_combines_are_rejected():
    counts = np.array([[[1, 2], [0, 3]]])
    with pytest.raises(ValueError, match="clamped pairwise"):
        _combine(counts, "cautious", arithmetic=_Arithmetic(reference_leaves=True))
    with pytest.raises(ValueError, match="apply only"):
        _combine(counts, "probability", arithmetic=_Arithmetic(reference_leaves=True))
    with pytest.raises(ValueError, match="apply only"):
        _combine(np.array([[[1, 2, 0]]]), "dempster", arithmetic=_Arithmetic(reference_leaves=True))
    with pytest.raises(ValueError, match="two classes"):
        _combine(counts, "probability", arithmetic=_Arithmetic(floor=1e-5))
    with pytest.raises(ValueError, match=r"\(0, 0.5\)"):
        _combine(counts, "dempster", arithmetic=_Arithmetic(floor=2.0))
    with pytest.raises(ValueError, match="only to 'eva'"):
        _combine(counts, "pooling", arithmetic=_Arithmetic(eva_prior="reference"))
    with pytest.raises(ValueError, match="leaf model"):
        combine_leaves(counts, combiner="dempster", model="imprecise_dirichlet", compatibility="busch2021")
    # the options that used to reproduce the authors' code are gone from the everyday signature
    for option in ({"floor": 1e-5}, {"reference_arithmetic": True}, {"prior": "reference"}):
        with pytest.raises(TypeError):
            combine_leaves(counts, combiner="dempster", **option)
    with pytest.raises(TypeError):
        RandomDecisionTreesClassifier(random_stream="independent")


# --------------------------------------------------------------------------- end to end


def test_breast_cancer_split_zero_gives_the_authors_numbers():
    """Research note 1.9, per-split AUC of split 0 at leaf size 1 (and the cautious ties at leaf 2)."""
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
    model = RandomDecisionTreesClassifier(
        100, min_samples_leaf=1, min_samples_split=2, random_state=0, compatibility="busch2021"
    ).fit(X_train, y_train)
    counts = model.leaf_counts(X_test)

    def auc(method, **options):
        return roc_auc_score(y_test, combine_leaves(counts, combiner=method, **options))

    assert round(auc("probability"), 4) == 0.9910
    assert round(auc("cautious", compatibility="busch2021"), 4) == 0.6101
    # EVA sums its logarithms in another order than the authors' code, which breaks a few ties differently
    assert abs(auc("eva", class_prior=model.class_prior_, compatibility="busch2021") - 0.9912) < 3e-4


def test_compatibility_switch_is_the_authors_conventions():
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    params = {"n_estimators": 20, "min_samples_leaf": 2, "min_samples_split": 4, "random_state": 0}
    reproduced = RandomDecisionTreesClassifier(compatibility="busch2021", **params).fit(X_train, y_train)
    counts = reproduced.leaf_counts(X_test)
    floor = {"floor": 1e-5, "reference_leaves": True, "tree_order": True}
    for method, conventions in [
        ("dempster", floor),
        ("cautious", floor),
        ("plausibility", {"reference_leaves": True, "tree_order": True}),
        ("eva", {"eva_prior": "reference", "tree_order": True}),
    ]:
        extra = {"class_prior": reproduced.class_prior_} if method == "eva" else {}
        expected = _combine(counts, method, arithmetic=_Arithmetic(**conventions), **extra)["score"]
        assert np.array_equal(
            combine_leaves(counts, combiner=method, compatibility="busch2021", **extra), expected
        )
        reproduced.set_params(combiner=method)
        assert np.array_equal(reproduced.decision_function(X_test) + (0.0), expected)
    # averaging: the authors' tree-order float sums (dstk's default sums in fixed point)
    frequencies = counts[:, :, 1] / counts.sum(axis=2)
    assert np.allclose(
        combine_leaves(counts, combiner="average", compatibility="busch2021"),
        frequencies.mean(axis=1),
        rtol=0,
        atol=1e-15,
    )
    with pytest.raises(ValueError, match="compatibility"):
        combine_leaves(counts, combiner="eva", compatibility="busch")
    with pytest.raises(ValueError, match="compatibility"):
        RandomDecisionTreesClassifier(compatibility="yes").fit(X_train, y_train)
