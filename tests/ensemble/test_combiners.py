"""Leaf combiners against the reference ensembles A-D, brute-force rules and dstk.combine."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk._kernels import leaf_combination
from dstk.ensemble import COMBINERS, combine_leaves, combine_leaves_proba, combine_leaves_to_mass
from dstk.ensemble import _combiners as combiners
from dstk.ensemble._combiners import decision_threshold, parse_combiner
from dstk.ensemble._leaf_scores import leaf_plausibility_mass
from dstk.exceptions import DogmaticError

# research note section 1.4: leaves written [n-, n+]; EVA with training prior pi = 0.3 (reference prior)
ENSEMBLES = {
    "A": (
        [[0, 1], [0, 1], [1, 0]],
        [0.666667, 0.666667, 0.555556, 0.541667, 0.222222, 0.666667, 0.222222, 0.000000, 3.197895],
    ),
    "B": (
        [[0, 3], [2, 1], [5, 5]],
        [0.611111, 0.5, 0.566667, 0.601389, 0.202223, 0.5625, 0.606670, 0.606670, 3.587360],
    ),
    "C": ([[0, 10], [10, 0], [1, 1]], [0.5, 0.5, 0.5, 0.5, 0, 0.5, 0, 0, 0.8]),
    "D": (
        [[0, 2], [0, 2], [0, 2], [3, 0]],
        [0.75, 0.75, 0.6125, 0.60625, 0.394622, 0.666667, 0.088154, -0.078368, 6.899580],
    ),
}
COLUMNS = [
    ("probability", "average", {}),
    ("probability", "vote", {}),
    ("laplace", "average", {}),
    ("confidence_bounds", "average", {}),
    ("plausibility", "average", {}),
    ("pooling", None, {}),
    ("dempster", None, {}),
    ("cautious", None, {}),
    # the research note's EVA values subtract (T - 1) P(y) as the authors' code
    ("eva", None, {"class_prior": [0.7, 0.3], "compatibility": "busch2021"}),
]


@pytest.mark.parametrize("name", sorted(ENSEMBLES))
@pytest.mark.parametrize("compatibility", [None, "busch2021"])
def test_reference_ensembles(name, compatibility):
    leaves, expected = ENSEMBLES[name]
    counts = np.array([leaves])
    for (method, aggregate, options), value in zip(COLUMNS, expected):
        if method in ("dempster", "cautious"):
            # exact closed forms, or the authors' clamped pairwise reduction of their leaves
            options = dict(options, compatibility=compatibility)
        got = combine_leaves(
            counts, combiner=method if aggregate is None else f"{method}:{aggregate}", **options
        )
        assert got.shape == (1,)
        assert got[0] == pytest.approx(value, abs=2e-6), (method, aggregate)


# ---------------------------------------------------------------- brute force rules
def _subsets(n):
    return list(range(2**n))


def _conjunctive_brute(m1, m2):
    out = np.zeros_like(m1)
    for a, b in itertools.product(range(m1.size), range(m2.size)):
        out[a & b] += m1[a] * m2[b]
    return out


def _commonality(m):
    size = m.size
    return np.array([sum(m[b] for b in range(size) if b & a == a) for a in range(size)])


def _weights_brute(m):
    # Denoeux (2008) Eq. (15): ln w(A) = -sum_{B >= A} (-1)^{|B|-|A|} ln q(B), for A != frame
    q = _commonality(m)
    size = m.size
    frame = size - 1
    w = np.ones(size)
    for a in range(size):
        if a == frame:
            continue
        s = 0.0
        for b in range(size):
            if b & a == a:
                s += (-1) ** (bin(b).count("1") - bin(a).count("1")) * np.log(q[b])
        w[a] = np.exp(-s)
    return w


def _from_weights_brute(w):
    size = w.size
    frame = size - 1
    out = np.zeros(size)
    out[frame] = 1.0
    for a in range(size - 1):
        simple = np.zeros(size)
        simple[a] = 1 - w[a]
        simple[frame] = w[a]
        out = _conjunctive_brute(out, simple)
    return out


def _random_leaf_masses(rng, n_trees, n_classes):
    counts = rng.integers(0, 6, size=(1, n_trees, n_classes))
    s = 1.0
    m = np.zeros((n_trees, 2**n_classes))
    total = counts[0].sum(axis=1)
    for t in range(n_trees):
        for k in range(n_classes):
            m[t, 2**k] = counts[0, t, k] / (total[t] + s)
        m[t, -1] = s / (total[t] + s)
    return counts, m


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_dempster_and_cautious_multiclass_brute_force(seed, n_classes):
    rng = np.random.default_rng(seed)
    counts, leaf_masses = _random_leaf_masses(rng, 5, n_classes)
    dempster = leaf_masses[0]
    for t in range(1, 5):
        dempster = _conjunctive_brute(dempster, leaf_masses[t])
    weights = np.min([_weights_brute(m) for m in leaf_masses], axis=0)
    cautious = _from_weights_brute(weights)
    for method, expected in (("dempster", dempster), ("cautious", cautious)):
        got = combine_leaves_to_mass(
            counts, combiner=method, normalize=False, model="imprecise_dirichlet"
        ).to_array()[0]
        assert np.allclose(got, expected, atol=1e-12), method
        normalized = combine_leaves_to_mass(counts, combiner=method, model="imprecise_dirichlet").to_array()[
            0
        ]
        assert np.allclose(normalized[1:], expected[1:] / expected[1:].sum(), atol=1e-12)
        score = combine_leaves(counts, combiner=method, model="imprecise_dirichlet")[0]
        singletons = expected[[2**k for k in range(n_classes)]]
        if n_classes == 2:
            assert score == pytest.approx(singletons[1] - singletons[0], abs=1e-12)
        else:
            assert np.allclose(score, singletons, atol=1e-12)


def test_binary_plausibility_rules_match_brute_force_and_core():
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 8, size=(6, 7, 2))
    leaf = leaf_plausibility_mass(counts[..., 1], counts[..., 0])
    for i in range(counts.shape[0]):
        expected = leaf[i, 0]
        for t in range(1, 7):
            expected = _conjunctive_brute(expected, leaf[i, t])
        got = combine_leaves_to_mass(counts[i : i + 1], combiner="dempster", normalize=False).to_array()[0]
        assert np.allclose(got, expected, atol=1e-12)
        weights = np.min([_weights_brute(m) for m in leaf[i]], axis=0)
        got = combine_leaves_to_mass(counts[i : i + 1], combiner="cautious", normalize=False).to_array()[0]
        assert np.allclose(got, _from_weights_brute(weights), atol=1e-12)
    core = pytest.importorskip("dstk.core._combination")
    from dstk.core._frame import Frame
    from dstk.core._mass import MassFunction

    masses = MassFunction.from_array(leaf, Frame((0, 1)))
    for rule, method in (("conjunctive", "dempster"), ("cautious", "cautious")):
        expected = core.combine(masses, rule=rule, axis=1).to_array("m")
        got = combine_leaves_to_mass(counts, combiner=method, normalize=False).to_array()
        assert np.allclose(got, expected, atol=1e-10), rule
    expected = core.combine(masses, rule="dempster", axis=1).to_array("m")
    assert np.allclose(combine_leaves_to_mass(counts, combiner="dempster").to_array(), expected, atol=1e-10)


def _keyed(masses):
    """(1, T, 4) masses -> keys (1, T) and table rows for the keyed kernels."""
    return np.arange(masses.shape[1]).reshape(1, -1), np.ascontiguousarray(masses[0])


def test_raw_combination_examples():
    # research note 1.4; layout [empty, {0}=-, {1}=+, frame]
    masses = np.array([[[0, 0.1, 0.6, 0.3], [0, 0.5, 0.2, 0.3], [0, 0, 0.7, 0.3]]], dtype=float)
    keys, table = _keyed(masses)
    unnormalised = leaf_combination.dempster_pairwise_floor(keys, table, 1e-5)[0]
    assert np.allclose(unnormalised, [0.481, 0.069, 0.423, 0.027], atol=1e-9)
    compact = np.ascontiguousarray(table[:, 1:])
    closed, normalized = leaf_combination.dempster_closed_form(keys, combiners._log_commonality_rows(compact))
    assert np.allclose(closed[0], [0.481, 0.069, 0.423, 0.027], atol=1e-12)
    assert np.allclose(normalized[0], [0.132948, 0.815029, 0.052023], atol=1e-6)
    cautious = leaf_combination.cautious_pairwise_floor(keys, table, 1e-5)[0]
    assert np.allclose(cautious, [0.4375, 0.1875, 0.2625, 0.1125], atol=1e-9)
    closed, _ = leaf_combination.cautious_closed_form(keys, combiners._conjunctive_weight_rows(compact))
    assert np.allclose(closed[0], [0.4375, 0.1875, 0.2625, 0.1125], atol=1e-12)
    # idempotence of the cautious rule
    twice = np.array([[[0, 0.1, 0.6, 0.3], [0, 0.1, 0.6, 0.3]]])
    assert np.allclose(
        leaf_combination.cautious_pairwise_floor(*_keyed(twice), 1e-5)[0], [0, 0.1, 0.6, 0.3], atol=1e-12
    )
    # the clamp on two opposite categorical masses
    opposite = np.array([[[0, 0, 1, 0], [0, 1, 0, 0]]], dtype=float)
    got = leaf_combination.dempster_pairwise_floor(*_keyed(opposite), 1e-5)[0]
    assert np.allclose(got, [0.99998, 1e-5, 1e-5, 0], atol=1e-9)


def test_table_and_per_leaf_paths_agree():
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 7, size=(40, 9, 3))
    for method, aggregate in (
        ("probability", "average"),
        ("probability", "vote"),
        ("laplace", "vote"),
        ("eva", None),
        ("dempster", None),
        ("cautious", None),
        ("pooling", None),
    ):
        a = combine_leaves(counts, combiner=method if aggregate is None else f"{method}:{aggregate}")
        b = combine_leaves(
            counts.astype(float), combiner=method if aggregate is None else f"{method}:{aggregate}"
        )  # float counts: one row per leaf
        assert np.allclose(a, b, atol=1e-12), method
    binary = counts[..., :2]
    for method in ("plausibility", "confidence_bounds"):
        for aggregate in ("average", "vote"):
            assert np.allclose(
                combine_leaves(binary, combiner=method if aggregate is None else f"{method}:{aggregate}"),
                combine_leaves(
                    binary.astype(float), combiner=method if aggregate is None else f"{method}:{aggregate}"
                ),
                atol=1e-12,
            )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=6))
def test_cautious_idempotent_and_commutative(leaves):
    counts = np.array([leaves])
    doubled = np.concatenate([counts, counts], axis=1)
    reversed_ = counts[:, ::-1]
    a = combine_leaves_to_mass(counts, combiner="cautious", normalize=False).to_array()
    assert np.allclose(
        combine_leaves_to_mass(doubled, combiner="cautious", normalize=False).to_array(),
        a,
        atol=1e-12,
    )
    assert np.allclose(
        combine_leaves_to_mass(reversed_, combiner="cautious", normalize=False).to_array(),
        a,
        atol=1e-12,
    )
    d = combine_leaves_to_mass(counts, combiner="dempster", normalize=False).to_array()
    assert np.allclose(
        combine_leaves_to_mass(reversed_, combiner="dempster", normalize=False).to_array(),
        d,
        atol=1e-12,
    )
    assert np.all(a >= -1e-12) and np.isclose(a.sum(), 1.0)


def test_eva_log_prior_is_naive_bayes():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, size=(4, 6, 3))
    prior = np.array([0.5, 0.3, 0.2])
    leaf = (counts + 0.1) / (counts.sum(axis=2, keepdims=True) + 0.3)
    # P(k) prod_t P(k | leaf_t) / P(k), normalised over k
    posterior = prior * np.prod(leaf / prior, axis=1)
    posterior /= posterior.sum(axis=1, keepdims=True)
    scores = combine_leaves(counts, combiner="eva", class_prior=prior)
    assert np.allclose(np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True), posterior)
    assert np.allclose(combine_leaves_proba(counts, combiner="eva", class_prior=prior), posterior)
    # binary: log posterior odds
    binary = counts[..., :2]
    p2 = np.array([0.6, 0.4])
    leaf2 = (binary + 0.1) / (binary.sum(axis=2, keepdims=True) + 0.2)
    post = p2 * np.prod(leaf2 / p2, axis=1)
    assert np.allclose(
        combine_leaves(binary, combiner="eva", class_prior=p2), np.log(post[:, 1] / post[:, 0])
    )


def test_eva_reference_prior_same_ranking():
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 9, size=(30, 5, 2))
    a = combine_leaves(counts, combiner="eva", class_prior=[0.7, 0.3])
    b = combine_leaves(counts, combiner="eva", class_prior=[0.7, 0.3], compatibility="busch2021")
    # constant offset: (T-1)(log(.3/.7)) versus (T-1)(.3 - .7)
    assert np.allclose(a - b, -(4) * np.log(0.3 / 0.7) + 4 * (0.3 - 0.7))


def test_multiclass_average_vote_pooling():
    counts = np.array([[[3, 1, 0], [0, 2, 2], [0, 0, 0]]])
    expected_avg = np.mean([[0.75, 0.25, 0], [0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]], axis=0)
    assert np.allclose(combine_leaves(counts, combiner="probability"), expected_avg)
    # votes: class 0; tie 1/2 between classes 1, 2; empty leaf split three ways
    expected_vote = np.array([1 + 1 / 3, 1 / 2 + 1 / 3, 1 / 2 + 1 / 3]) / 3
    assert np.allclose(combine_leaves(counts, combiner="probability:vote"), expected_vote)
    assert np.allclose(combine_leaves(counts, combiner="pooling"), [3 / 8, 3 / 8, 2 / 8])
    assert np.allclose(
        combine_leaves(counts, combiner="laplace"),
        np.mean([[4 / 7, 2 / 7, 1 / 7], [1 / 7, 3 / 7, 3 / 7], [1 / 3] * 3], axis=0),
    )
    for method in ("probability", "laplace", "pooling", "dempster", "cautious", "eva"):
        proba = combine_leaves_proba(counts, combiner=method)
        assert proba.shape == (1, 3) and np.isclose(proba.sum(), 1.0)


def test_binary_vote_formula():
    counts = np.array([[[0, 2], [1, 1], [3, 0], [0, 1]]])
    # reference vote: 0.5 + (#s>0.5 - #s<0.5) / (2T)
    assert combine_leaves(counts, combiner="probability:vote")[0] == pytest.approx(0.5 + (2 - 1) / 8)
    assert combine_leaves(counts, combiner="plausibility:vote")[0] == pytest.approx(0.5 + (2 - 1) / 8)


def test_multiclass_binary_only_methods_raise():
    counts = np.ones((2, 3, 3), dtype=int)
    for method in ("plausibility", "confidence_bounds"):
        with pytest.raises(ValueError, match="two classes"):
            combine_leaves(counts, combiner=method)
    with pytest.raises(ValueError, match="two classes"):
        combine_leaves(counts, combiner="dempster", model="plausibility")
    # the authors' clamp is binary: with more classes busch2021 keeps the exact rules
    assert np.array_equal(
        combine_leaves(counts, combiner="cautious", compatibility="busch2021"),
        combine_leaves(counts, combiner="cautious"),
    )


def test_large_pure_leaves_work_with_default_settings():
    # m(frame) of a pure leaf of 2,000 samples is about 2**-2000: 0 in float64 without the automatic rescale
    counts = np.array([[[0, 2000], [5, 1]], [[0, 2000], [3000, 0]], [[0, 1100], [1, 1]]])
    for method in ("cautious", "dempster"):
        score = combine_leaves(counts, combiner=method)
        proba = combine_leaves_proba(counts, combiner=method)
        assert np.isfinite(score).all() and np.isfinite(proba).all()
        assert proba[0, 1] > 0.99 and proba[2, 1] > 0.99
    # the rescaled leaf is the plausibility model on counts divided by a power of two
    from dstk.ensemble._combiners import _representable_plausibility_rows

    rows = _representable_plausibility_rows(np.array([[0.0, 2000.0], [0.0, 100.0]]))
    divisor = 2.0 ** np.arange(12)
    candidates = leaf_plausibility_mass(2000.0 / divisor, np.zeros(12))
    first = np.flatnonzero(candidates[:, 3] >= 2.0**-1000)[0]
    assert divisor[first] > 1 and np.array_equal(rows[0], candidates[first, 1:])
    assert np.array_equal(rows[1], leaf_plausibility_mass([100.0], [0.0])[0, 1:])  # small leaves untouched
    # a rescale limit (private; the authors' 537 comes with compatibility="busch2021") keeps the model on
    # the given counts below it: the dogmatic leaf is reported
    with pytest.raises(DogmaticError, match="imprecise_dirichlet"):
        combiners._combine(
            np.array([[[0, 2000], [5, 1]]]), "cautious", arithmetic=combiners._Arithmetic(rescale_above=5000)
        )
    assert np.isfinite(combine_leaves(counts, combiner="cautious", compatibility="busch2021")).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"combiner": "mean"}, "Unknown combination method"),
        ({"combiner": "pooling:vote"}, "aggregate"),
        ({"combiner": "probability:median"}, "aggregate"),
        ({"combiner": "dempster", "compatibility": "busch"}, "compatibility"),
        (
            {"combiner": "dempster", "model": "imprecise_dirichlet", "compatibility": "busch2021"},
            "leaf model",
        ),
        ({"combiner": "probability", "model": "imprecise_dirichlet"}, "model"),
        ({"combiner": "eva", "class_prior": [0.5, 0.6]}, "sum to 1"),
        ({"combiner": "eva", "class_prior": [1.0, 0.0]}, r"\(0, 1\)"),
        ({"combiner": "eva", "smoothing": 0}, "smoothing"),
        ({"combiner": "pooling", "class_prior": [0.5, 0.5]}, "eva"),
    ],
)
def test_bad_options(kwargs, message):
    counts = np.ones((2, 3, 2), dtype=int)
    with pytest.raises(ValueError, match=message):
        combine_leaves(counts, **kwargs)


@pytest.mark.parametrize(
    "counts, message",
    [
        (np.ones((3, 2)), "shape"),
        (np.ones((3, 0, 2)), "no trees"),
        (np.ones((3, 2, 1)), "two classes"),
        (-np.ones((3, 2, 2)), "negative"),
        (np.full((3, 2, 2), np.nan), "NaN"),
        (np.ones((0, 2, 2)), "no samples"),
        (np.array([[[2**63, 1]]], dtype=np.uint64), "2\\*\\*53"),
        (np.array([[[2**60, 1]]], dtype=np.int64), "2\\*\\*53"),
    ],
)
def test_bad_counts(counts, message):
    with pytest.raises(ValueError, match=message):
        combine_leaves(counts)


def test_counts_beyond_the_table_range_are_combined_as_floats():
    big = np.array([[[2**40, 1], [3, 2**33]], [[5, 5], [0, 2**35]]], dtype=np.uint64)
    expected = big.astype(float)
    for method in ("probability", "pooling", "eva", "laplace"):
        assert np.allclose(
            combine_leaves(big, combiner=method), combine_leaves(expected, combiner=method), rtol=1e-12
        ), method
    # by hand: leaf frequencies of class 1
    assert np.allclose(
        combine_leaves(big, combiner="probability"), [(1 / (2**40 + 1) + 2**33 / (2**33 + 3)) / 2, 0.75]
    )


def test_no_mass_for_probability_methods():
    with pytest.raises(ValueError, match="no mass function"):
        combine_leaves_to_mass(np.ones((1, 2, 2), dtype=int), combiner="eva").to_array()


def test_parse_and_threshold():
    assert parse_combiner("average") == ("probability", "average")
    assert parse_combiner("confidence_bounds:vote") == ("confidence_bounds", "vote")
    assert decision_threshold("plausibility", "vote") == 0.5
    assert decision_threshold("dempster") == 0.0
    with pytest.raises(ValueError):
        parse_combiner("nope")


def test_plausibility_average_mass_and_proba():
    counts = np.array([[[0, 2], [1, 0], [2, 2]]])
    mass = combine_leaves_to_mass(counts, combiner="plausibility").to_array()
    leaf = leaf_plausibility_mass(counts[..., 1], counts[..., 0])
    assert np.allclose(mass, leaf.mean(axis=1))
    proba = combine_leaves_proba(counts, combiner="plausibility")
    betp = mass[0, 2] + mass[0, 3] / 2
    assert proba[0, 1] == pytest.approx(betp)


def test_large_batch_with_few_distinct_pairs_is_consistent():
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 5, size=(2000, 20, 2))
    for method in ("plausibility", "confidence_bounds"):
        full = combine_leaves(counts, combiner=method)
        part = np.concatenate(
            [combine_leaves(counts[i : i + 100], combiner=method) for i in range(0, 2000, 100)]
        )
        assert np.allclose(full, part)


def test_large_count_values_give_the_per_leaf_results():
    # count values whose mixed-radix table would exceed 2**22 entries: every leaf still
    # evaluated once per distinct count vector, same values as a direct per-leaf computation
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5000, size=(40, 30, 3))
    counts[:, ::4] = rng.integers(0, 3, size=(40, 8, 3))  # many repeated small leaves
    frequencies = counts / np.maximum(counts.sum(axis=2, keepdims=True), 1)
    frequencies[counts.sum(axis=2) == 0] = 1 / 3
    assert np.allclose(
        combine_leaves(counts, combiner="average"), frequencies.mean(axis=1), rtol=0, atol=1e-15
    )
    smoothed = np.log(counts + 0.1) - np.log(counts.sum(axis=2, keepdims=True) + 0.3)
    expected = smoothed.sum(axis=1) - 29 * np.log(1 / 3)
    assert np.allclose(combine_leaves(counts, combiner="eva"), expected, rtol=1e-12, atol=0)
    weighted = counts + 0.5  # float (weighted) counts take the same path
    assert np.allclose(
        combine_leaves(weighted, combiner="average"),
        (weighted / weighted.sum(axis=2, keepdims=True)).mean(axis=1),
        rtol=0,
        atol=1e-15,
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_equal_evidence_gives_bit_equal_scores(seed):
    # the same multiset of leaves in any tree order: bit-equal scores (EVA and averaging)
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 30, size=(1, 60, 2))
    permuted = np.concatenate([counts, counts[:, rng.permutation(60)], counts[:, ::-1]])
    for method, options in (("eva", {"class_prior": [0.3, 0.7]}), ("average", {}), ("laplace", {})):
        scores = combine_leaves(permuted, combiner=method, **options)
        assert scores[0] == scores[1] == scores[2], (method, scores)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"combiner": "average", "smoothing": 5.0}, "`smoothing` applies only"),
        ({"combiner": "dempster", "smoothing": 0.1}, "`smoothing` applies only"),
        ({"combiner": "laplace", "prior_strength": 1.0}, "`prior_strength` applies only"),
        ({"combiner": "dempster", "prior_strength": 2.0}, "plausibility leaf model has no prior strength"),
    ],
)
def test_options_a_combiner_does_not_use_are_refused(options, message):
    counts = np.random.default_rng(0).integers(0, 5, size=(4, 3, 2))
    with pytest.raises(ValueError, match=message):
        combine_leaves(counts, **options)
    from dstk.ensemble import RandomDecisionTreesClassifier

    combiner = options.pop("combiner")
    with pytest.raises(ValueError, match=message):
        RandomDecisionTreesClassifier(2, combiner=combiner, combiner_options=options).fit(
            np.random.default_rng(1).normal(size=(20, 2)), np.arange(20) % 2
        )


def test_default_smoothing_and_prior_strength_are_the_documented_values():
    counts = np.random.default_rng(0).integers(0, 5, size=(6, 4, 3))
    np.testing.assert_array_equal(
        combine_leaves(counts, combiner="eva"), combine_leaves(counts, combiner="eva", smoothing=0.1)
    )
    np.testing.assert_array_equal(
        combine_leaves(counts, combiner="dempster"),
        combine_leaves(counts, combiner="dempster", prior_strength=1.0),
    )


# the options each combiner takes, as combine_leaves documents them (EVA: the class prior and the
# smoothing; Dempster and cautious: the leaf model and its prior strength; the others: none)
_DOCUMENTED_OPTIONS = {
    "eva": {"class_prior", "smoothing"},
    "dempster": {"model", "prior_strength"},
    "cautious": {"model", "prior_strength"},
}


@pytest.mark.parametrize("name", sorted(COMBINERS))
def test_combiner_records_take_the_documented_options(name):
    """Every record of COMBINERS accepts exactly its documented options and refuses the others by name."""
    counts = np.array([[[3, 1], [0, 2], [1, 1]]])
    values = {
        "class_prior": [0.4, 0.6],
        "smoothing": 0.2,
        "model": "imprecise_dirichlet",
        "prior_strength": 2.0,
    }
    taken = _DOCUMENTED_OPTIONS.get(COMBINERS[name].method, set())
    assert set(COMBINERS[name].options) == taken
    for option, value in values.items():
        given = {option: value}
        if option == "prior_strength":
            given["model"] = "imprecise_dirichlet"  # the prior strength belongs to that leaf model
        if option in taken:
            assert np.all(np.isfinite(combine_leaves(counts, combiner=name, **given)))
        else:
            with pytest.raises(ValueError, match=f"`{option}` applies only"):
                combine_leaves(counts, combiner=name, **{option: value})


@pytest.mark.parametrize("combiner", ["plausibility", "confidence_bounds"])
def test_two_class_combiner_message_names_combiners_that_work(combiner):
    """The refusal of a two-class combiner on three classes suggests only names the classifier takes."""
    import re

    from dstk.ensemble import COMBINERS

    counts = np.random.default_rng(0).integers(0, 5, (4, 3, 3))
    with pytest.raises(ValueError, match="two classes only") as info:
        combine_leaves(counts, combiner=combiner)
    suggested = re.findall(r"'([a-z_]+)'", str(info.value).split("Use ", 1)[1])
    assert suggested and set(suggested) <= set(COMBINERS)
    for name in suggested:
        assert combine_leaves(counts, combiner=name).shape[0] == 4
