"""MassFunction on frames of more than 64 labels (the wide focal-set form), against frozensets.

Every reference below is computed from the definitions on dicts
``{frozenset of labels: mass}`` (``test_wide.py``'s brute force), never from
dstk's output; pyds runs side by side where installed.  The last tests pin,
bit for bit, the results on frames of at most 64 labels to those of the code
before the wide form was wired in (``_narrow_workload.py``).
"""

import json
import pickle
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction, combine, combine_with_conflict
from dstk.core import Opinion, discord, jirousek_shenoy_entropy, jousselme_distance, strife
from dstk.exceptions import FrameTooLargeError, InvalidMassError, TotalConflictError

from . import _narrow_workload
from .test_wide import (
    assert_same,
    random_mass,
    ref_bel,
    ref_betp,
    ref_combine,
    ref_dempster,
    ref_pl,
    ref_q,
)

NS = [65, 200, 1000]


def wide(m, frame):
    """The MassFunction of the reference dict ``m`` (labels = positions) on ``frame``."""
    return MassFunction(dict(m), frame=frame)


def as_ref(mf):
    """The reference dict of an unbatched MassFunction on a frame of labels ``0 .. n-1``."""
    return {frozenset(k): v for k, v in mf.focal_sets().items()}


def as_key(s):
    return frozenset(s) if s else ()


def pair(rng, n, f1=25, f2=20, p=0.9, empty=False):
    return random_mass(rng, n, f1, p_member=p, allow_empty=empty), random_mass(rng, n, f2, p_member=p)


# -- frames -----------------------------------------------------------------------------------------
def test_frames_of_ten_thousand_labels():
    frame = Frame(range(10_000))
    assert frame.n == 10_000 and frame.full == 2**10_000 - 1
    mask = frame.subset({3, 9_999})
    assert mask == 2**3 + 2**9_999
    assert frame.labels_of(mask) == (3, 9_999)
    assert frame.mask(mask) == mask
    assert frame.format_subset(frame.full) == "Ω"
    assert pickle.loads(pickle.dumps(frame)) == frame


# -- construction --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", NS)
def test_construction_forms_agree(n):
    rng = np.random.default_rng(n)
    m = random_mass(rng, n, 15, allow_empty=True)
    frame = Frame(range(n))
    keys = list(m)
    masses = [m[k] for k in keys]
    by_dict = MassFunction({as_key(k): v for k, v in m.items()}, frame=frame)
    by_ints = MassFunction.from_focal_sets([sum(1 << i for i in k) for k in keys], masses, frame)
    member = np.zeros((len(keys), n), dtype=bool)
    for row, k in enumerate(keys):
        member[row, list(k)] = True
    by_members = MassFunction.from_focal_sets(member, masses, frame)
    assert not by_dict.is_dense
    assert by_dict == by_ints == by_members
    assert_same(as_ref(by_dict), m)
    order = [sum(1 << i for i in k) for k in by_dict.focal_sets()]
    assert order == sorted(order)  # in bitmask order, as on smaller frames
    for k in keys:
        assert by_dict.mass(frozenset(k)) == pytest.approx(m[k], abs=1e-15)
        assert by_dict.mass(frozenset(frame.labels_of(sum(1 << i for i in k)))) == by_dict.mass(frozenset(k))
    assert by_dict.conflict == pytest.approx(m.get(frozenset(), 0.0), abs=1e-15)
    assert by_dict.mass({0, 1, 2, n - 1}) == m.get(frozenset({0, 1, 2, n - 1}), 0.0)


def test_repeated_focal_sets_are_summed_and_bad_masses_refused():
    frame = Frame(range(100))
    m = MassFunction.from_focal_sets([1 << 99, 1 << 99, frame.full], [0.25, 0.25, 0.5], frame)
    assert m.focal_sets() == {frozenset({99}): 0.5, frozenset(range(100)): 0.5}
    with pytest.raises(InvalidMassError):
        MassFunction.from_focal_sets([1 << 99, frame.full], [0.5, 0.6], frame)
    with pytest.raises(Exception, match="outside"):
        MassFunction.from_focal_sets([1 << 100], [1.0], frame)


def test_vacuous_categorical_and_from_array():
    frame = Frame(range(300))
    assert MassFunction.vacuous(frame).focal_sets() == {frozenset(range(300)): 1.0}
    cat = MassFunction.categorical({5, 299}, frame, batch_shape=(2,))
    assert np.array_equal(cat.mass({5, 299}), [1.0, 1.0])
    with pytest.raises(FrameTooLargeError):
        MassFunction.from_array(np.ones(4), frame)
    with pytest.raises(FrameTooLargeError):
        cat.to_array("m")


# -- queries --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", NS)
def test_bel_pl_q_b_of_given_sets(n):
    rng = np.random.default_rng(10 + n)
    m = random_mass(rng, n, 40, allow_empty=True)
    mf = wide(m, Frame(range(n)))
    queries = [frozenset(np.flatnonzero(rng.random(n) < p).tolist()) for p in (0.1, 0.5, 0.9)]
    queries += list(m)[:3] + [frozenset(range(n))]
    for a in queries:
        key = as_key(a)
        assert mf.bel(key) == pytest.approx(ref_bel(m, a), abs=1e-12)
        assert mf.pl(key) == pytest.approx(ref_pl(m, a), abs=1e-12)
        assert mf.q(key) == pytest.approx(ref_q(m, a), abs=1e-12)
        assert mf.b(key) == pytest.approx(ref_bel(m, a) + m.get(frozenset(), 0.0), abs=1e-12)


@pytest.mark.parametrize("n", NS)
def test_pignistic_contour_and_plausibility_transform(n):
    rng = np.random.default_rng(20 + n)
    m = random_mass(rng, n, 30, allow_empty=True)
    mf = wide(m, Frame(range(n)))
    assert np.allclose(mf.pignistic(), ref_betp(m, n), atol=1e-12)
    contour = np.array([ref_pl(m, frozenset([i])) for i in range(n)])
    assert np.allclose(mf.contour(), contour, atol=1e-12)
    assert np.allclose(mf.plausibility_transform(), contour / contour.sum(), atol=1e-12)
    with pytest.raises(InvalidMassError):
        MassFunction({(): 1.0}, frame=Frame(range(n))).pignistic()


# -- combination ------------------------------------------------------------------------------------------
def ref_yager(m1, m2):
    out = ref_combine(m1, m2, frozenset.__and__)
    k = out.pop(frozenset(), 0.0)
    omega = frozenset().union(*m1, *m2)
    return {**out, omega: out.get(omega, 0.0) + k}


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("rule", ["conjunctive", "dempster", "disjunctive", "yager", "average"])
def test_rules_match_frozensets(n, rule):
    rng = np.random.default_rng(30 + n)
    m1, m2 = pair(rng, n)
    frame = Frame(range(n))
    omega = frozenset(range(n))
    m1[omega] = m2[omega] = 0.0  # the frame as a focal set of both (Yager's target); masses unchanged
    got, kappa = combine_with_conflict([wide(m1, frame), wide(m2, frame)], rule=rule)
    conj = ref_combine(m1, m2, frozenset.__and__)
    if rule == "conjunctive":
        want = conj
    elif rule == "dempster":
        want = ref_dempster(m1, m2)
    elif rule == "disjunctive":
        want = ref_combine(m1, m2, frozenset.__or__)
    elif rule == "yager":
        want = ref_yager(m1, m2)
    else:
        want = defaultdict(float)
        for m in (m1, m2):
            for k, v in m.items():
                want[k] += v / 2
    assert_same(as_ref(got), dict(want))
    if rule in ("conjunctive", "dempster", "yager"):
        assert kappa == pytest.approx(conj.get(frozenset(), 0.0), abs=1e-12)


def test_many_sources_batches_and_operators():
    n = 150
    rng = np.random.default_rng(40)
    frame = Frame(range(n))
    sources = [random_mass(rng, n, 6, p_member=0.97) for _ in range(4)]
    want = sources[0]
    for m in sources[1:]:
        want = ref_dempster(want, m)
    got = combine([wide(m, frame) for m in sources], rule="dempster")
    assert_same(as_ref(got), want)
    # one batched mass function, the sources on axis 0, a batch of 2 on axis 1
    stacked = MassFunction.stack([MassFunction.stack([wide(m, frame)] * 2) for m in sources])
    assert stacked.batch_shape == (4, 2)
    along = combine(stacked, axis=0, rule="dempster")
    assert along.batch_shape == (2,)
    for row in along:
        assert_same(as_ref(row), want)
    a, b = wide(sources[0], frame), wide(sources[1], frame)
    assert_same(as_ref(a & b), ref_combine(sources[0], sources[1], frozenset.__and__))
    assert_same(as_ref(a | b), ref_combine(sources[0], sources[1], frozenset.__or__))


def test_total_conflict_policy_and_rules_without_a_wide_form():
    frame = Frame(range(70))
    a = MassFunction({frozenset({0}): 1.0}, frame=frame)
    b = MassFunction({frozenset({69}): 1.0}, frame=frame)
    with pytest.raises(TotalConflictError):
        combine([a, b], rule="dempster")
    with pytest.warns(Warning):
        out = combine([a, b], rule="dempster", on_conflict="vacuous")
    assert out.focal_sets() == {frozenset(range(70)): 1.0}
    for rule in ("cautious", "bold", "dubois_prade", "pcr6"):
        with pytest.raises(FrameTooLargeError, match="'dempster'"):
            combine([a.discount(0.1), b.discount(0.1)], rule=rule)


@pytest.mark.parametrize("n", [200, 1000])
def test_rules_match_pyds(n):
    pyds = pytest.importorskip("pyds")
    rng = np.random.default_rng(50 + n)
    m1, m2 = pair(rng, n, 40, 30, p=0.97)
    frame = Frame(range(n))
    p1, p2 = pyds.MassFunction(dict(m1)), pyds.MassFunction(dict(m2))
    cases = {
        "conjunctive": p1.combine_conjunctive(p2, normalization=False),
        "dempster": p1.combine_conjunctive(p2, normalization=True),
        "disjunctive": p1.combine_disjunctive(p2),
    }
    for rule, want in cases.items():
        got = combine([wide(m1, frame), wide(m2, frame)], rule=rule)
        assert_same(as_ref(got), {frozenset(k): float(v) for k, v in want.items()})


masses_on_wide = st.integers(0, 2**31 - 1).map(np.random.default_rng)


@settings(max_examples=20, deadline=None)
@given(masses_on_wide, st.sampled_from([65, 130, 700]))
def test_conjunctive_laws_and_dempster_normalisation(rng, n):
    frame = Frame(range(n))
    m1, m2, m3 = (wide(random_mass(rng, n, 5, p_member=0.9), frame) for _ in range(3))
    assert (m1 & m2).allclose(m2 & m1, atol=1e-14)
    assert ((m1 & m2) & m3).allclose(m1 & (m2 & m3), atol=1e-14)
    assert (m1 | m2).allclose(m2 | m1, atol=1e-14)
    assert (m1 & MassFunction.vacuous(frame)).allclose(m1, atol=1e-15)
    try:
        d = combine([m1, m2, m3], rule="dempster")
    except TotalConflictError:
        return
    assert d.conflict == 0.0
    assert sum(d.focal_sets().values()) == pytest.approx(1.0, abs=1e-12)
    conj = (m1 & m2) & m3
    kept = {k: v for k, v in as_ref(conj).items() if k}
    total = sum(kept.values())
    assert_same(as_ref(d), {k: v / total for k, v in kept.items()})


# -- transforms --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", NS)
def test_discount_condition_normalize(n):
    rng = np.random.default_rng(60 + n)
    m = random_mass(rng, n, 20, allow_empty=True)
    frame = Frame(range(n))
    mf = wide(m, frame)
    omega = frozenset(range(n))
    rates = np.array([0.0, 0.3, 1.0])
    batch = mf.discount(rates)
    for rate, row in zip(rates, batch):
        want = defaultdict(float, {a: (1 - rate) * v for a, v in m.items()})
        want[omega] += rate
        assert_same(as_ref(row), dict(want))
    a = frozenset(np.flatnonzero(rng.random(n) < 0.6).tolist())
    assert_same(as_ref(mf.condition(a)), ref_dempster(m, {a: 1.0}))
    assert_same(as_ref(mf.condition(a, normalize=False)), ref_combine(m, {a: 1.0}, frozenset.__and__))
    k = m.get(frozenset(), 0.0)
    assert_same(as_ref(mf.normalize()), {b: v / (1 - k) for b, v in m.items() if b})


def test_contextual_discount_on_a_few_labels():
    n = 120
    rng = np.random.default_rng(70)
    m = random_mass(rng, n, 8)
    rates = np.zeros(n)
    rates[[3, 64, 119]] = [0.2, 0.5, 0.1]
    want = m
    for k in (3, 64, 119):  # disjunction with m_k(empty) = 1 - rate, m_k({k}) = rate (Mercier et al. 2008)
        want = ref_combine(want, {frozenset(): 1 - rates[k], frozenset({k}): rates[k]}, frozenset.__or__)
    assert_same(as_ref(wide(m, Frame(range(n))).contextual_discount(rates)), want)


@pytest.mark.parametrize("n", [40, 1000])
def test_contextual_discount_too_large_is_refused_at_once(n):
    # singletons and the frame (an EkNN output): each {k} united with every subset of the other
    # labels, 2**(n - 1) focal sets; refused from the count, before any combination runs
    frame = Frame(range(n))
    m = MassFunction.from_focal_sets(
        [1 << k for k in range(n)] + [(1 << n) - 1], np.full(n + 1, 1 / (n + 1)), frame
    )
    with pytest.raises(FrameTooLargeError, match=rf"at least 2\*\*{n - 1} focal sets"):
        m.contextual_discount(np.full(n, 0.1))
    rates = np.zeros(n)
    rates[:3] = [0.2, 0.5, 0.1]
    want = {frozenset({k}): 1 / (n + 1) for k in range(n)} | {frozenset(range(n)): 1 / (n + 1)}
    for k in range(3):
        want = ref_combine(want, {frozenset(): 1 - rates[k], frozenset({k}): rates[k]}, frozenset.__or__)
    assert_same(as_ref(m.contextual_discount(rates)), want)


def test_maximin_and_maximax_on_wide_frames_in_bounded_memory():
    # singletons and the frame (an EkNN output): with 0-1 utilities the lower expectation of act a is
    # m({a}), the upper m({a}) + m(frame); the focal sets x acts x labels table (216 MB here, 8 GB on
    # 1,000 labels) is built in blocks of 32 MB
    n = 300
    rng = np.random.default_rng(5)
    masses = rng.dirichlet(np.ones(n + 1), 3)
    m = MassFunction.from_focal_sets([1 << k for k in range(n)] + [(1 << n) - 1], masses, Frame(range(n)))
    singles = masses[:, :n]
    upper = singles + masses[:, n:]
    assert np.array_equal(m.decide(criterion="maximin"), singles.argmax(axis=1))
    assert np.array_equal(m.decide(criterion="maximax"), upper.argmax(axis=1))
    mix = 0.4 * upper + 0.6 * singles
    assert np.array_equal(m.decide(criterion="hurwicz", optimism=0.4), mix.argmax(axis=1))


def test_extend_product_and_extend_to_wide_frames():
    m = MassFunction({"a": 0.7, "a,b": 0.3}, frame=list("abcdefghij"))
    product = m.extend_product(range(10))  # 100 labels
    assert product.frame.n == 100
    want = {frozenset((x, t) for x in "a" for t in range(10)): 0.7}
    want[frozenset((x, t) for x in "ab" for t in range(10))] = 0.3
    assert product.focal_sets() == want
    bigger = m.extend(list("abcdefghij") + list(range(90)))
    assert bigger.focal_sets()[frozenset(["a", *range(90)])] == pytest.approx(0.7)


def test_inverse_pignistic_and_consonant_from_contour():
    from dstk import consonant_from_contour, inverse_pignistic

    n = 150
    rng = np.random.default_rng(75)
    p = rng.dirichlet(np.ones(n), size=3)
    p[2, :] = 1.0 / n  # all tied: the whole frame
    contour = rng.random((3, n))
    got_p, got_c = inverse_pignistic(p), consonant_from_contour(contour)
    for row in range(3):
        # nested sets of the labels by decreasing value (Dubois, Prade & Smets 2008, Eq. 9)
        order = sorted(range(n), key=lambda i: -p[row, i])
        want = defaultdict(float)
        for i in range(n):
            nxt = p[row, order[i + 1]] if i + 1 < n else 0.0
            if p[row, order[i]] - nxt > 0:
                want[frozenset(order[: i + 1])] += (i + 1) * (p[row, order[i]] - nxt)
        assert_same(as_ref(got_p.batch[row]), dict(want))
        order = sorted(range(n), key=lambda i: -contour[row, i])
        want = defaultdict(float, {frozenset(): 1.0 - contour[row, order[0]]})
        for i in range(n):
            nxt = contour[row, order[i + 1]] if i + 1 < n else 0.0
            want[frozenset(order[: i + 1])] += contour[row, order[i]] - nxt
        assert_same(as_ref(got_c.batch[row]), dict(want))


# -- decisions and uncertainty ----------------------------------------------------------------------------------
def ref_expectations(m, u):
    k = m.get(frozenset(), 0.0)
    lo = sum(v * u[:, sorted(a)].min(axis=1) for a, v in m.items() if a) / (1 - k)
    hi = sum(v * u[:, sorted(a)].max(axis=1) for a, v in m.items() if a) / (1 - k)
    return lo, hi


@pytest.mark.parametrize("n", [65, 400])
def test_decisions(n):
    rng = np.random.default_rng(80 + n)
    m = random_mass(rng, n, 25, p_member=0.05, allow_empty=True)
    for i in range(5):
        m[frozenset({i})] = m.get(frozenset({i}), 0.0) + 0.1 * (i + 1)
    total = sum(m.values())
    m = {a: v / total for a, v in m.items()}
    mf = wide(m, Frame(range(n)))
    assert mf.decide("pignistic") == np.argmax(ref_betp(m, n))
    assert mf.decide("plausibility") == np.argmax([ref_pl(m, frozenset([i])) for i in range(n)])
    assert mf.decide("belief") == np.argmax([m.get(frozenset([i]), 0.0) for i in range(n)])
    u = rng.random((4, n))
    lo, hi = ref_expectations(m, u)
    assert mf.decide("maximin", utility=u) == np.argmax(lo)
    assert mf.decide("maximax", utility=u) == np.argmax(hi)
    assert mf.decide("hurwicz", utility=u, optimism=0.3) == np.argmax(0.3 * hi + 0.7 * lo)
    # interval dominance: an act is left out when another's lower expectation beats its upper one
    want = np.array([not np.any(lo > hi[a] + 1e-9) for a in range(4)])
    assert np.array_equal(mf.admissible_actions("interval_dominance", utility=u), want)
    # maximality: no other act has a positive lower expectation of its gain (Troffaes 2007)
    gain = np.array([[ref_expectations(m, (u[b] - u[a])[None, :])[0][0] for a in range(4)] for b in range(4)])
    np.fill_diagonal(gain, -np.inf)
    assert np.array_equal(mf.admissible_actions("maximality", utility=u), gain.max(axis=0) <= 1e-9)


@pytest.mark.parametrize("n", [65, 300])
def test_uncertainty_measures(n):
    rng = np.random.default_rng(90 + n)
    m = random_mass(rng, n, 20)
    mf = wide(m, Frame(range(n)))
    assert mf.nonspecificity() == pytest.approx(sum(v * np.log2(len(a)) for a, v in m.items()), abs=1e-12)
    assert mf.specificity() == pytest.approx(sum(v / len(a) for a, v in m.items()), abs=1e-12)
    ref_discord = -sum(v * np.log2(sum(w * len(a & b) / len(b) for b, w in m.items())) for a, v in m.items())
    ref_strife = -sum(v * np.log2(sum(w * len(a & b) / len(a) for b, w in m.items())) for a, v in m.items())
    assert discord(mf) == pytest.approx(max(ref_discord, 0.0), abs=1e-12)
    assert strife(mf) == pytest.approx(max(ref_strife, 0.0), abs=1e-12)
    contour = np.array([ref_pl(m, frozenset([i])) for i in range(n)])
    p = contour / contour.sum()
    entropy = -np.sum(p[p > 0] * np.log2(p[p > 0]))
    nonspecificity = sum(v * np.log2(len(a)) for a, v in m.items())
    assert jirousek_shenoy_entropy(mf) == pytest.approx(entropy + nonspecificity, abs=1e-10)
    from dstk.core import aggregate_uncertainty

    with pytest.raises(FrameTooLargeError):
        aggregate_uncertainty(mf)


def test_jousselme_distance():
    n = 90
    rng = np.random.default_rng(100)
    m1, m2 = pair(rng, n, 10, 8)
    keys = sorted(set(m1) | set(m2), key=sorted)
    d = np.array([m1.get(k, 0.0) - m2.get(k, 0.0) for k in keys])
    jac = np.array([[len(a & b) / len(a | b) for b in keys] for a in keys])
    want = np.sqrt(0.5 * d @ jac @ d)
    frame = Frame(range(n))
    assert jousselme_distance(wide(m1, frame), wide(m2, frame)) == pytest.approx(want, abs=1e-12)


def test_opinions_at_a_thousand_classes():
    k = 1000
    rng = np.random.default_rng(110)
    evidence = rng.gamma(1.0, size=(3, k))
    opinion = Opinion.from_evidence(evidence)
    m = opinion.to_mass()
    assert m.frame.n == k and m.batch_shape == (3,)
    s = evidence.sum(axis=1) + k
    assert np.allclose(m.mass({7}), evidence[:, 7] / s, atol=1e-15)
    assert np.allclose(m.mass(range(k)), k / s, atol=1e-15)
    assert np.allclose(m.pignistic(), (evidence + 1) / s[:, None], atol=1e-12)  # b_k + u / K
    back = Opinion.from_mass(m)
    assert np.allclose(back.belief, opinion.belief) and np.allclose(back.uncertainty, opinion.uncertainty)


# -- storage: batches, round trips, memory ---------------------------------------------------------------
def test_batches_index_reshape_broadcast_stack():
    n = 100
    rng = np.random.default_rng(120)
    frame = Frame(range(n))
    rows = [random_mass(rng, n, 5) for _ in range(6)]
    batch = MassFunction.stack([wide(m, frame) for m in rows]).reshape(2, 3)
    assert batch.batch_shape == (2, 3)
    assert_same(as_ref(batch.batch[1, 2]), rows[5])
    assert [len(list(r)) for r in batch] == [3, 3]
    wider = wide(rows[0], frame).broadcast_to((4,))
    assert wider.batch_shape == (4,)
    assert_same(as_ref(wider.batch[3]), rows[0])
    with pytest.raises(FrameTooLargeError):
        wide(rows[0], frame).broadcast_to((10**9,))


@pytest.mark.parametrize("n", [65, 1000])
def test_dict_json_pickle_skops_round_trips(n):
    rng = np.random.default_rng(130 + n)
    frame = Frame([f"c{i}" for i in range(n)])
    masses = rng.dirichlet(np.ones(4), size=2)
    member = rng.random((4, n)) < 0.3
    m = MassFunction.from_focal_sets(member, masses, frame)
    assert MassFunction.from_dict(m.to_dict()) == m
    assert MassFunction.from_json(m.to_json()) == m
    data = json.loads(m.to_json())
    assert sorted(len(s) for s in data["focal_sets"]) == sorted(member.sum(axis=1))
    assert pickle.loads(pickle.dumps(m)) == m
    sio = pytest.importorskip("skops.io")
    blob = sio.dumps(m)
    assert sio.loads(blob, trusted=sio.get_untrusted_types(data=blob)) == m


def test_tampered_state_is_refused():
    frame = Frame(range(70))
    m = MassFunction({frozenset({1}): 0.5, frozenset({69}): 0.5}, frame=frame)
    state = m.__getstate__()
    bad = dict(state, focal=state["focal"][::-1].copy())  # not in the stored order
    with pytest.raises(InvalidMassError):
        MassFunction.__new__(MassFunction).__setstate__(bad)
    outside = state["focal"].copy()
    outside[0, 1] |= np.uint64(1 << 10)  # label 74 of a 70-label frame
    with pytest.raises(InvalidMassError):
        MassFunction.__new__(MassFunction).__setstate__(dict(state, focal=outside))


def _refused_before_allocating(call):
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(FrameTooLargeError):
            call()
        assert tracemalloc.get_traced_memory()[1] < 200 * 2**20
    finally:
        tracemalloc.stop()


def test_memory_limits_are_checked_before_allocating():
    n = 10_000
    frame = Frame(range(n))
    # 3,000 focal sets of 157 words on each side: 9 * 10**6 pairs of 157 words, about 35 GiB
    member = np.zeros((3000, n), dtype=bool)
    member[np.arange(3000), np.arange(3000)] = True
    m = MassFunction.from_focal_sets(member, np.full(3000, 1 / 3000), frame)
    _refused_before_allocating(lambda: m & m)
    # BetP of a batch of 10**6 on 10,000 labels: 80 GB
    big = MassFunction.vacuous(frame).broadcast_to((10**5,))
    _refused_before_allocating(big.pignistic)
    _refused_before_allocating(big.contour)
    _refused_before_allocating(lambda: MassFunction.from_array(np.zeros(8), frame))
    # 1,000 sources of 3,000 focal sets each, broadcast to a batch of 1,000: 3 * 10**9 masses a source
    _refused_before_allocating(lambda: MassFunction.stack([m.broadcast_to((1000,))] * 1000))


# -- frames of at most 64 labels: bit-identical to the code before the wide form ----------------------------
#: sha256 (16 hex digits) of each result of ``_narrow_workload.results()`` computed by dstk before the
#: wide form was wired into MassFunction (main at 0f93bcd): the <= 64-label paths must not move a bit.
PINS = {
    "16/b": "66687aadf862bd77",
    "16/bel": "66687aadf862bd77",
    "16/combine/average": "fe0dd7b4a92249d7",
    "16/combine/conjunctive": "f09e78f5fcc7294b",
    "16/combine/dempster": "508fef4bf734da0a",
    "16/combine/disjunctive": "6dafb17c9976f2dd",
    "16/combine/yager": "708223dbeb3d7570",
    "16/condition": "0c2060c7f1b2cb58",
    "16/conflict": "66687aadf862bd77",
    "16/contextual": "4000eb0ed3aea97a",
    "16/contour": "6314057c393353f3",
    "16/decide": "c776bf74822e1cea",
    "16/decide/belief": "66687aadf862bd77",
    "16/decide/maximin": "66687aadf862bd77",
    "16/discord": "dd0eb4b7cb01789b",
    "16/discount": "f7e37b162861f42e",
    "16/extend_product": "0afe8681badc2470",
    "16/focal_sets": "66193397a1a18f55",
    "16/jousselme": "a6cbb278ef09ab43",
    "16/kappa": "6de9540f33090604",
    "16/mass": "66687aadf862bd77",
    "16/nonspecificity": "fb66af88f1ea8c32",
    "16/normalize": "61e07f42cc01a930",
    "16/pignistic": "fe979c999f2b01ea",
    "16/pl": "301b987a2a45cd84",
    "16/q": "8fc68644a8f25985",
    "16/specificity": "f5230dbc5ceb2607",
    "16/strife": "4bfae4d5c785eaff",
    "17/b": "66687aadf862bd77",
    "17/bel": "66687aadf862bd77",
    "17/combine/average": "8c1e5d230ff71a1e",
    "17/combine/conjunctive": "ba001dc2fb03020b",
    "17/combine/dempster": "aa0cbcd837931cf5",
    "17/combine/disjunctive": "9c5b059e479169e6",
    "17/combine/yager": "ba001dc2fb03020b",
    "17/condition": "a4cde4eea650579e",
    "17/conflict": "66687aadf862bd77",
    "17/contextual": "32d76196b5d03898",
    "17/contour": "1ebe0814cb14ea98",
    "17/decide": "81a0ea5b364c6442",
    "17/decide/belief": "66687aadf862bd77",
    "17/decide/maximin": "66687aadf862bd77",
    "17/discord": "9b4d86cced24f486",
    "17/discount": "88f210571690edda",
    "17/extend_product": "4f0d606579794f9b",
    "17/focal_sets": "2302f262c707a46b",
    "17/jousselme": "01afbe0c2729f325",
    "17/kappa": "66687aadf862bd77",
    "17/mass": "66687aadf862bd77",
    "17/nonspecificity": "3771ae61691787e8",
    "17/normalize": "5c445d9254a746c8",
    "17/pignistic": "a9610c45ca757374",
    "17/pl": "c914e8188e43fff1",
    "17/q": "10f4aeed2feb3c41",
    "17/specificity": "cd4f57f9a769596b",
    "17/strife": "9cbafc07bc2844e9",
    "3/b": "b2c35a5ea8c08d5d",
    "3/bel": "b2c35a5ea8c08d5d",
    "3/combine/average": "449389c566dc49ed",
    "3/combine/conjunctive": "b6d410e7308c7574",
    "3/combine/dempster": "fc73806718c0e073",
    "3/combine/disjunctive": "c6c3e0b448bd577b",
    "3/combine/yager": "5d464190f861e5ef",
    "3/condition": "8db541867736caf1",
    "3/conflict": "66687aadf862bd77",
    "3/contextual": "a45092c8fddf702e",
    "3/contour": "73b615e40ca93e5b",
    "3/decide": "5778f985db754c66",
    "3/decide/belief": "66687aadf862bd77",
    "3/decide/maximin": "66687aadf862bd77",
    "3/discord": "14713084052b011d",
    "3/discount": "c7aafb79312da4f5",
    "3/extend_product": "068f3b3730e0f750",
    "3/focal_sets": "15c569d229c9d5cc",
    "3/jousselme": "e8cf7abfd0bf30de",
    "3/kappa": "ff7c934d335a8fc6",
    "3/mass": "b2c35a5ea8c08d5d",
    "3/nonspecificity": "bdee6fb7a7540017",
    "3/normalize": "8db541867736caf1",
    "3/pignistic": "c64663bb990b00eb",
    "3/pl": "1cbba9ff5ee6b1a5",
    "3/q": "d5f026c85be59b7e",
    "3/specificity": "66498d31904bbbb3",
    "3/strife": "899db2e23deaac13",
    "40/b": "66687aadf862bd77",
    "40/bel": "66687aadf862bd77",
    "40/combine/average": "a7f310dea24ba75d",
    "40/combine/conjunctive": "03bd4ade8b12e25c",
    "40/combine/dempster": "cbe4c4b751859094",
    "40/combine/disjunctive": "fe6bb14f50f10eda",
    "40/combine/yager": "03bd4ade8b12e25c",
    "40/condition": "a7dbde43907bc6a1",
    "40/conflict": "66687aadf862bd77",
    "40/contextual": "0783220ee494807f",
    "40/contour": "fb1e034ee7fa937c",
    "40/decide": "42f133b7add798a2",
    "40/decide/belief": "66687aadf862bd77",
    "40/decide/maximin": "66687aadf862bd77",
    "40/discord": "13edd9d1db1fa52e",
    "40/discount": "7b828ce8d734f572",
    "40/focal_sets": "ec29833072a29f54",
    "40/jousselme": "61ab772f8b657cd1",
    "40/kappa": "66687aadf862bd77",
    "40/mass": "66687aadf862bd77",
    "40/nonspecificity": "5083b2a2d8f06b9d",
    "40/normalize": "301a704ef76b780a",
    "40/pignistic": "0f0349d04b74ab67",
    "40/pl": "06903073dadcb36e",
    "40/q": "270bafa3299168f5",
    "40/specificity": "71ffff175b15e2e8",
    "40/strife": "2117e5fdbe054129",
    "64/b": "66687aadf862bd77",
    "64/bel": "66687aadf862bd77",
    "64/combine/average": "33ca4c589792fdea",
    "64/combine/conjunctive": "3efb9c9ba769cd4c",
    "64/combine/dempster": "3a6b64f7bdbe48fb",
    "64/combine/disjunctive": "afdbc7efb26db9c8",
    "64/combine/yager": "3efb9c9ba769cd4c",
    "64/condition": "80625a84f64ac112",
    "64/conflict": "66687aadf862bd77",
    "64/contextual": "e1da812acab7160f",
    "64/contour": "b57ad08e610f3c22",
    "64/decide": "9ba7b0049a7c7350",
    "64/decide/belief": "66687aadf862bd77",
    "64/decide/maximin": "66687aadf862bd77",
    "64/discord": "173f97ed26db5769",
    "64/discount": "a276609258df9b23",
    "64/focal_sets": "7215469c77196e0b",
    "64/jousselme": "ff568b23b89f2018",
    "64/kappa": "66687aadf862bd77",
    "64/mass": "66687aadf862bd77",
    "64/nonspecificity": "22fc921331383a2e",
    "64/normalize": "da3b98161bffd14f",
    "64/pignistic": "382feda089d4af20",
    "64/pl": "d733bed01833da52",
    "64/q": "ef32dcacfde7e097",
    "64/specificity": "2765112e8f577e0b",
    "64/strife": "04a3ccc04faa9958",
    "opinion": "b192188c88fc1a88",
}


#: Results that go through BLAS (matrix products of the uncertainty measures and the pignistic
#: transform): OpenBLAS picks its kernel by CPU (OPENBLAS_CORETYPE), and its kernels sum in different
#: orders, so their last bits depend on the machine (measured: Haswell, SkylakeX, Nehalem and Core2
#: differ by up to 6e-16 relative). They are pinned by value (``_narrow_blas_values.json``, float.hex,
#: written on a SkylakeX kernel) to a few units in the last place instead of by digest.
BLAS_DEPENDENT = ("discord", "strife", "nonspecificity", "specificity", "pignistic")


def test_frames_of_at_most_64_labels_are_bit_identical():
    import json
    from pathlib import Path

    results = _narrow_workload.results()
    got = _narrow_workload.digest()
    assert got.keys() == PINS.keys()
    by_value = json.loads((Path(__file__).parent / "_narrow_blas_values.json").read_text())
    assert set(by_value) == {name for name in PINS if name.split("/")[-1] in BLAS_DEPENDENT}
    changed = sorted(name for name in PINS if name not in by_value and got[name] != PINS[name])
    assert not changed, changed
    for name, hexes in by_value.items():
        expected = np.array([float.fromhex(h) for h in hexes])
        np.testing.assert_allclose(np.frombuffer(results[name]), expected, rtol=4e-15, atol=0, err_msg=name)
