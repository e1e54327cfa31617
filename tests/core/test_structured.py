"""Mass functions held by parameters (dstk.core._structured), against frozenset brute force.

Every reference is built from the definitions: the simple (or contextually
discounted Bayesian) mass functions as dicts ``{frozenset: mass}``, combined
pair by pair (``test_wide.py``'s ``ref_combine``), and bel / pl / q / BetP
summed over the resulting focal sets.  Never from dstk's output.
"""

import itertools
import json
import pickle
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction, combine, decide
from dstk.core._structured import DiscountedBayesStorage, WeightStorage
from dstk.exceptions import FrameTooLargeError, InvalidMassError

from .test_wide import ref_bel, ref_betp, ref_combine, ref_pl, ref_q


def ref_normalize(m):
    """Dempster's normalisation, dividing by the sum of the non-empty masses (no cancellation)."""
    total = sum(v for a, v in m.items() if a)
    return {a: v / total for a, v in m.items() if a}


def ref_weights(positive, negative):
    """Conjunctive combination of {k}^{w+_k} and (not k)^{w-_k}, from the definitions."""
    n = positive.size
    frame = frozenset(range(n))
    out = {frame: 1.0}
    for k in range(n):
        if positive[k] > 0:
            simple = {frozenset({k}): -np.expm1(-positive[k]), frame: np.exp(-positive[k])}
            out = ref_combine(out, simple, frozenset.__and__)
        if negative[k] > 0:
            simple = {frame - {k}: -np.expm1(-negative[k]), frame: np.exp(-negative[k])}
            out = ref_combine(out, simple, frozenset.__and__)
    return out


def weight_mass(positive, negative, labels=None, normalized=True):
    n = positive.shape[-1]
    frame = Frame(labels if labels is not None else [f"c{i}" for i in range(n)])
    return MassFunction._from_storage(
        WeightStorage.from_weights(positive, negative, normalized=normalized), frame
    )


def random_weights(rng, n, rows=(), p_positive=0.7, p_negative=0.7, scale=1.0):
    shape = tuple(rows) + (n,)
    positive = rng.exponential(scale, shape) * (rng.random(shape) < p_positive)
    negative = rng.exponential(scale, shape) * (rng.random(shape) < p_negative)
    return positive, negative


def mask_of(labels):
    return sum(1 << int(i) for i in labels)


def check_against(m, ref, n, sets, atol=1e-12):
    """m (unbatched MassFunction on labels 0..n-1) against the reference dict ``ref``."""
    for a in sets:
        mask = mask_of(a)
        assert m.mass(mask) == pytest.approx(ref.get(a, 0.0), abs=atol)
        assert m.bel(mask) == pytest.approx(ref_bel(ref, a), abs=atol)
        assert m.pl(mask) == pytest.approx(ref_pl(ref, a), abs=atol)
        assert m.q(mask) == pytest.approx(ref_q(ref, a), abs=atol)
    contour = [ref_pl(ref, frozenset({i})) for i in range(n)]
    np.testing.assert_allclose(m.contour(), contour, atol=atol, rtol=0)
    np.testing.assert_allclose(m.pignistic(), ref_betp(ref, n), atol=atol, rtol=0)
    singles = [ref.get(frozenset({i}), 0.0) for i in range(n)]
    np.testing.assert_allclose(m._storage.singleton_masses(n), singles, atol=atol, rtol=0)
    assert m.mass(0) == pytest.approx(ref.get(frozenset(), 0.0), abs=atol)


def query_sets(rng, n, count=12):
    sets = [frozenset(), frozenset(range(n)), frozenset({0}), frozenset({n - 1}), frozenset(range(n - 1))]
    for _ in range(count):
        sets.append(frozenset(np.flatnonzero(rng.random(n) < rng.uniform(0.1, 0.9)).tolist()))
    return sets


# -- the weight-of-evidence form (logistic models) ----------------------------------------------


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_weights_small_frames_against_brute_force(seed, normalized):
    rng = np.random.default_rng(seed)
    n = 3 + seed
    positive, negative = random_weights(rng, n)
    ref = ref_weights(positive, negative)
    if normalized:
        ref = ref_normalize(ref)
    m = weight_mass(positive, negative, normalized=normalized)
    every = [frozenset(i for i in range(n) if (a >> i) & 1) for a in range(1 << n)]
    check_against(m, ref, n, every)


def test_weights_35_labels_against_brute_force():
    # negative evidence on 8 labels only: the reference keeps about 37 * 2**8 focal sets
    rng = np.random.default_rng(7)
    n = 35
    positive = rng.exponential(0.3, n)
    negative = np.zeros(n)
    negative[rng.choice(n, 8, replace=False)] = rng.exponential(1.0, 8)
    ref = ref_normalize(ref_weights(positive, negative))
    m = weight_mass(positive, negative)
    sets = query_sets(rng, n) + list(ref)[:20]
    check_against(m, ref, n, sets)


def test_weights_dense_path_agrees_on_small_frames():
    # the closed form on 2**n masses (the dense path of logistic_evidence) against this form
    from dstk.classifiers._logistic import _latent_masses

    rng = np.random.default_rng(3)
    positive, negative = random_weights(rng, 7, rows=(5,))
    dense = MassFunction._dense(_latent_masses(positive, negative), Frame([f"c{i}" for i in range(7)]))
    m = weight_mass(positive, negative)
    for mask in [0, 1, 5, 6, 77, 127]:
        for kind in ("mass", "bel", "pl", "q"):
            np.testing.assert_allclose(getattr(m, kind)(mask), getattr(dense, kind)(mask), atol=1e-13)
    np.testing.assert_allclose(m.pignistic(), dense.pignistic(), atol=1e-13)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_dempster_combination_adds_the_weights(n, seed):
    rng = np.random.default_rng(seed)
    p1, n1 = random_weights(rng, n)
    p2, n2 = random_weights(rng, n)
    m = combine([weight_mass(p1, n1), weight_mass(p2, n2)], rule="dempster")
    assert isinstance(m._storage, WeightStorage)
    ref = ref_normalize(ref_combine(ref_weights(p1, n1), ref_weights(p2, n2), frozenset.__and__))
    every = [frozenset(i for i in range(n) if (a >> i) & 1) for a in range(1 << n)]
    check_against(m, ref, n, every, atol=1e-11)
    # conjunctive: the unnormalised combination of the two normalised mass functions
    conj = combine([weight_mass(p1, n1), weight_mass(p2, n2)], rule="conjunctive")
    ref = ref_combine(
        ref_normalize(ref_weights(p1, n1)), ref_normalize(ref_weights(p2, n2)), frozenset.__and__
    )
    check_against(conj, ref, n, every, atol=1e-11)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1))
def test_belief_laws(n, seed):
    rng = np.random.default_rng(seed)
    positive, negative = random_weights(rng, n, scale=rng.uniform(0.1, 5.0))
    m = weight_mass(positive, negative)
    full = (1 << n) - 1
    for a in query_sets(rng, n, 4):
        mask = mask_of(a)
        bel, pl, q = m.bel(mask), m.pl(mask), m.q(mask)
        assert -1e-12 <= bel <= pl + 1e-12 <= 1 + 2e-12
        assert pl == pytest.approx(1.0 - m.bel(full & ~mask), abs=1e-12)  # normalised: pl(A) = 1 - bel(not A)
        assert 0 <= q <= 1 + 1e-12
    assert m.pignistic().sum() == pytest.approx(1.0)
    assert m.mass(0) == pytest.approx(0.0, abs=1e-12)


# -- logistic models with many classes -------------------------------------------------------------


@pytest.fixture(scope="module")
def thousand_classes():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(
        n_samples=3000,
        n_features=12,
        n_informative=10,
        n_redundant=0,
        n_classes=1000,
        n_clusters_per_class=1,
        random_state=0,
    )
    with _no_warnings():
        model = LogisticRegression(max_iter=5).fit(X, y)
    return model, X


class _no_warnings:
    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *args):
        return self._ctx.__exit__(*args)


def test_logistic_evidence_on_1000_classes(thousand_classes):
    from dstk.classifiers import logistic_evidence

    model, X = thousand_classes
    m = logistic_evidence(model, X[:6], reference=X)
    assert m.frame.n == 1000 and m.batch_shape == (6,)
    assert isinstance(m._storage, WeightStorage)
    # the plausibility transform is the model's softmax (Denoeux 2019, Proposition 1): scikit-learn's output
    np.testing.assert_allclose(m.plausibility_transform(), model.predict_proba(X[:6]), rtol=1e-9, atol=1e-15)
    bet = m.pignistic()
    np.testing.assert_allclose(bet.sum(axis=1), 1.0)
    classes = model.classes_
    assert list(decide(m, criterion="pignistic")) == list(classes[np.argmax(bet, axis=1)])
    assert list(decide(m, criterion="plausibility")) == list(model.predict(X[:6]))
    # bel / pl of given sets: pl(A) = 1 - bel(not A), bel({k}) = m({k}), q({k}) = pl({k})
    rng = np.random.default_rng(0)
    member = rng.random(1000) < 0.3
    a, not_a = set(classes[member].tolist()), set(classes[~member].tolist())
    np.testing.assert_allclose(m.pl(a), 1.0 - m.bel(not_a), atol=1e-12)
    assert np.all(m.bel(a) <= m.pl(a) + 1e-12)
    label = classes[5].item()
    np.testing.assert_allclose(m.q({label}), m.contour()[:, 5], rtol=1e-12)
    np.testing.assert_allclose(m.bel({label}), m.mass({label}), rtol=1e-12)
    assert np.all(m.mass(set()) == 0.0)
    # Dempster's combination: the contour of a conjunctive combination is the product of the contours
    both = combine([m.batch[:3], m.batch[3:]], rule="dempster")
    product = m.contour()[:3] * m.contour()[3:]
    np.testing.assert_allclose(both.plausibility_transform(), product / product.sum(axis=1, keepdims=True))
    # batches, pickle, skops, JSON
    assert m.batch[2:4].batch_shape == (2,)
    np.testing.assert_allclose(m.reshape(2, 3).contour().reshape(6, -1), m.contour())
    stacked = MassFunction.stack([m.batch[0], m.batch[1]])
    np.testing.assert_allclose(stacked.contour(), m.contour()[:2])
    assert pickle.loads(pickle.dumps(m)) == m
    assert MassFunction.from_json(m.to_json()) == m
    assert json.loads(m.to_json())["form"] == "weights"
    assert "weight-of-evidence form" in repr(m.batch[0])
    assert "BetP" in m.batch[0]._repr_html_()
    sio = pytest.importorskip("skops.io")
    blob = sio.dumps(m)
    assert sio.loads(blob, trusted=sio.get_untrusted_types(data=blob)) == m


def test_operations_needing_focal_sets_are_refused():
    rng = np.random.default_rng(1)
    positive, negative = random_weights(rng, 100, rows=(2,))
    m = weight_mass(positive, negative)
    for operation in (
        lambda: m.batch[0].focal_sets(),
        lambda: m.discount(0.1),
        lambda: m.contextual_discount(np.full(100, 0.1)),
        lambda: combine([m.batch[0], m.batch[1]], rule="yager"),
        lambda: m.batch[0].nonspecificity(),
    ):
        with pytest.raises(FrameTooLargeError, match="'dempster' or 'conjunctive'"):
            operation()
    with pytest.raises(FrameTooLargeError, match="2\\*\\*100"):
        m.to_array()


def test_tampered_parameters_are_refused():
    rng = np.random.default_rng(2)
    positive, negative = random_weights(rng, 70, rows=(2,))
    m = weight_mass(positive, negative)
    state = m.__getstate__()
    bad = dict(state, fm=dict(state["fm"], positive=-state["fm"]["positive"]))
    with pytest.raises(InvalidMassError):
        MassFunction.__new__(MassFunction).__setstate__(bad)
    bad = dict(state, fm=dict(state["fm"], log_scale=state["fm"]["log_scale"] + 1.0))
    with pytest.raises(InvalidMassError):
        MassFunction.__new__(MassFunction).__setstate__(bad)
    with pytest.raises(InvalidMassError):
        MassFunction.__new__(MassFunction).__setstate__(dict(state, focal="unknown"))


# -- contextually discounted Bayesian sources (fusion of classifiers) ------------------------------


def ref_discounted(p, alpha):
    """{w} | B, w drawn from p, label k in B with probability alpha_k: the focal sets, from the definition."""
    n = p.size
    out = defaultdict(float)
    for w in np.flatnonzero(p > 0):
        others = [k for k in range(n) if k != w and alpha[k] > 0]
        for bits in itertools.product([0, 1], repeat=len(others)):
            prob = p[w]
            for k, bit in zip(others, bits):
                prob *= alpha[k] if bit else 1.0 - alpha[k]
            if prob > 0:
                out[frozenset({int(w)} | {k for k, bit in zip(others, bits) if bit})] += prob
    return dict(out)


def ref_fusion(p, alpha):
    out = ref_discounted(p[0], alpha[0])
    for s in range(1, p.shape[0]):
        out = ref_combine(out, ref_discounted(p[s], alpha[s]), frozenset.__and__)
    return out


def fusion_mass(p, alpha, normalized=True):
    n = p.shape[-1]
    storage = DiscountedBayesStorage.from_sources(p, alpha, normalized=normalized)
    return MassFunction._from_storage(storage, Frame([f"c{i}" for i in range(n)]))


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize(("n", "sources"), [(4, 1), (5, 2), (6, 3), (5, 4)])
def test_discounted_sources_small_frames_against_brute_force(n, sources, normalized):
    rng = np.random.default_rng(10 * n + sources)
    p = rng.dirichlet(np.ones(n), sources) * (rng.random((sources, n)) < 0.85)
    p[:, 0] += 1e-3  # no empty row
    p /= p.sum(axis=1, keepdims=True)
    alpha = rng.random((sources, n)) * (rng.random((sources, n)) < 0.8)
    ref = ref_fusion(p, alpha)
    if normalized:
        ref = ref_normalize(ref)
    every = [frozenset(i for i in range(n) if (a >> i) & 1) for a in range(1 << n)]
    check_against(fusion_mass(p, alpha, normalized), ref, n, every)


def test_discounted_sources_36_labels_against_brute_force():
    # rates above 0 on 5 labels only: each source has 36 * 2**5 focal sets at most
    rng = np.random.default_rng(11)
    n, sources = 36, 2
    p = rng.dirichlet(np.full(n, 0.5), sources)
    alpha = np.zeros((sources, n))
    alpha[:, rng.choice(n, 5, replace=False)] = rng.random((sources, 5))
    ref = ref_normalize(ref_fusion(p, alpha))
    sets = query_sets(rng, n) + list(ref)[:15]
    check_against(fusion_mass(p, alpha), ref, n, sets)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 5), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_dempster_combination_pools_the_sources(n, sources, seed):
    rng = np.random.default_rng(seed)
    p1, p2 = rng.dirichlet(np.ones(n), sources), rng.dirichlet(np.ones(n), 1)
    a1, a2 = rng.random((sources, n)), rng.random((1, n))
    m = combine([fusion_mass(p1, a1), fusion_mass(p2, a2)], rule="dempster")
    assert isinstance(m._storage, DiscountedBayesStorage)
    ref = ref_normalize(ref_combine(ref_normalize(ref_fusion(p1, a1)), ref_fusion(p2, a2), frozenset.__and__))
    every = [frozenset(i for i in range(n) if (a >> i) & 1) for a in range(1 << n)]
    check_against(m, ref, n, every, atol=1e-11)


def test_discounted_sources_batches_and_saving():
    rng = np.random.default_rng(12)
    n = 80
    p = rng.dirichlet(np.ones(n), (4, 2))
    alpha = rng.random((4, 2, n))
    m = MassFunction._from_storage(
        DiscountedBayesStorage.from_sources(p, alpha, normalized=True), Frame([f"c{i}" for i in range(n)])
    )
    np.testing.assert_allclose(m.batch[1:3].contour(), m.contour()[1:3])
    np.testing.assert_allclose(m.reshape(2, 2).contour().reshape(4, n), m.contour())
    # stacking sources of different counts: the missing ones are vacuous
    single = MassFunction._from_storage(
        DiscountedBayesStorage.from_sources(p[:, :1], alpha[:, :1], normalized=True), m.frame
    )
    stacked = MassFunction.stack([m, single])
    np.testing.assert_allclose(stacked.batch[1].contour(), single.contour(), rtol=1e-12)
    np.testing.assert_allclose(stacked.batch[0].pl({"c1", "c7"}), m.pl({"c1", "c7"}), rtol=1e-12)
    assert pickle.loads(pickle.dumps(m)) == m
    assert MassFunction.from_json(m.to_json()) == m
    sio = pytest.importorskip("skops.io")
    blob = sio.dumps(m)
    assert sio.loads(blob, trusted=sio.get_untrusted_types(data=blob)) == m
    state = m.__getstate__()
    bad = dict(state, fm=dict(state["fm"], rates=state["fm"]["rates"] + 1.0))
    with pytest.raises(InvalidMassError):
        MassFunction.__new__(MassFunction).__setstate__(bad)


# -- conditioning and contextual discounting in closed form ---------------------------------------


def ref_condition(m, a):
    """Unnormalised conditioning from the definition: the mass of each B moves to B & A."""
    return ref_combine(m, {a: 1.0}, frozenset.__and__)


def every_subset(n):
    return [frozenset(i for i in range(n) if (a >> i) & 1) for a in range(1 << n)]


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_weights_conditioning_against_brute_force(seed, normalize):
    rng = np.random.default_rng(40 + seed)
    n = 4 + seed
    positive, negative = random_weights(rng, n)
    a = frozenset(np.flatnonzero(rng.random(n) < 0.6).tolist()) | {0}
    ref = ref_condition(ref_normalize(ref_weights(positive, negative)), a)
    if normalize:
        ref = ref_normalize(ref)
    m = weight_mass(positive, negative).condition(mask_of(a), normalize=normalize)
    assert isinstance(m._storage, WeightStorage)
    check_against(m, ref, n, every_subset(n))
    again = MassFunction.from_json(m.to_json())
    assert again == m and pickle.loads(pickle.dumps(m)) == m


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize(("n", "sources"), [(4, 1), (5, 2), (6, 3)])
def test_discounted_sources_conditioning_against_brute_force(n, sources, normalize):
    rng = np.random.default_rng(60 + n)
    p = rng.dirichlet(np.ones(n), sources)
    alpha = rng.random((sources, n)) * (rng.random((sources, n)) < 0.8)
    a = frozenset(np.flatnonzero(rng.random(n) < 0.5).tolist()) | {n - 1}
    ref = ref_condition(ref_normalize(ref_fusion(p, alpha)), a)
    if normalize:
        ref = ref_normalize(ref)
    m = fusion_mass(p, alpha).condition(mask_of(a), normalize=normalize)
    assert isinstance(m._storage, DiscountedBayesStorage)
    check_against(m, ref, n, every_subset(n), atol=1e-11)


def test_conditioning_on_1000_classes_keeps_the_forms():
    rng = np.random.default_rng(70)
    n = 1000
    subset = {f"c{i}" for i in range(0, n, 3)}
    inside = np.array([i % 3 == 0 for i in range(n)])
    positive, negative = random_weights(rng, n, rows=(2,), scale=0.01)
    for m in (
        weight_mass(positive, negative),
        fusion_mass(rng.dirichlet(np.ones(n), (2, 2)), rng.random((2, 2, n))),
    ):
        conditioned = m.condition(subset)
        # the conditioned mass lives on the subset: contour and pignistic vanish outside it
        assert np.all(conditioned.contour()[:, ~inside] == 0)
        np.testing.assert_allclose(conditioned.pignistic().sum(axis=-1), 1.0)
        assert np.all(conditioned.pignistic()[:, ~inside] <= 1e-300)
        # pl(B | A) = pl(B & A) / pl(A) (Shafer 1976, Eq. 3.9), on the same storage
        b = {f"c{i}" for i in range(0, n, 2)}
        both = {f"c{i}" for i in range(0, n, 6)}
        np.testing.assert_allclose(conditioned.pl(b), m.pl(both) / m.pl(subset), rtol=1e-10)


@pytest.mark.parametrize("n", [4, 6])
def test_contextual_discounting_of_one_source_against_brute_force(n):
    # Mercier, Quost and Denoeux (2008), Proposition 8: m combined disjunctively with
    # m_k(empty) = 1 - beta_k, m_k({w_k}) = beta_k, written out on frozensets
    rng = np.random.default_rng(80 + n)
    p = rng.dirichlet(np.ones(n), 1)
    alpha = rng.random((1, n)) * (rng.random((1, n)) < 0.6)
    beta = rng.random(n) * (rng.random(n) < 0.7)
    ref = ref_fusion(p, alpha)
    for k in range(n):
        ref = ref_combine(ref, {frozenset(): 1.0 - beta[k], frozenset({k}): beta[k]}, frozenset.__or__)
    m = fusion_mass(p, alpha).contextual_discount(beta)
    assert isinstance(m._storage, DiscountedBayesStorage)
    check_against(m, ref, n, every_subset(n))


def test_contextual_discounting_of_a_combination_is_refused():
    rng = np.random.default_rng(90)
    m = fusion_mass(rng.dirichlet(np.ones(200), 2), rng.random((2, 200)))
    with pytest.raises(FrameTooLargeError, match=r"combination of 2 sources.*2\*\*200"):
        m.contextual_discount(np.full(200, 0.1))


@pytest.mark.parametrize("optimism", [0.0, 0.3, 1.0])
def test_maximin_maximax_hurwicz_decisions_against_brute_force(optimism):
    # 0-1 utilities: lower / upper expected utility of act a from the focal sets written out
    rng = np.random.default_rng(100)
    n, rows = 5, 6
    positive, negative = random_weights(rng, n, rows=(rows,))
    p = rng.dirichlet(np.ones(n), (rows, 2))
    alpha = rng.random((rows, 2, n))
    cases = [
        (
            weight_mass(positive, negative),
            [ref_normalize(ref_weights(positive[r], negative[r])) for r in range(rows)],
        ),
        (fusion_mass(p, alpha), [ref_normalize(ref_fusion(p[r], alpha[r])) for r in range(rows)]),
    ]
    for m, refs in cases:
        lower = np.array([[ref.get(frozenset({a}), 0.0) for a in range(n)] for ref in refs])
        upper = np.array([[ref_pl(ref, frozenset({a})) for a in range(n)] for ref in refs])
        want = {
            "maximin": lower.argmax(axis=1),
            "maximax": upper.argmax(axis=1),
            "hurwicz": (optimism * upper + (1 - optimism) * lower).argmax(axis=1),
            "generalized_hurwicz": (optimism * upper + (1 - optimism) * lower).argmax(axis=1),
        }
        labels = np.array(m.frame.labels)
        for criterion, indices in want.items():
            extra = {"optimism": optimism} if "hurwicz" in criterion else {}
            np.testing.assert_array_equal(decide(m, criterion=criterion, **extra), labels[indices])
