"""Everyday ergonomics of MassFunction: labelled decisions and pignistic, iteration, equality, extension."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstk import Frame, MassFunction, decide


def random_mass(rng, labels, n_focal=4, batch=()):
    frame = Frame(labels)
    focal = rng.choice(np.arange(1, frame.full + 1), size=min(n_focal, frame.full), replace=False)
    masses = rng.dirichlet(np.ones(focal.size), size=batch or None)
    return MassFunction.from_focal_sets(focal.astype(np.int64), masses, frame)


@pytest.mark.parametrize("labels", [("a", "b", "c"), (3, 7, 11), (("x", 1), ("y", 2), ("z", 3))])
@pytest.mark.parametrize("criterion", ["pignistic", "plausibility", "belief"])
def test_decide_returns_labels_and_indices_on_request(labels, criterion):
    rng = np.random.default_rng(0)
    m = random_mass(rng, labels, batch=(20,))
    indices = decide(m, criterion=criterion, return_indices=True)
    chosen = decide(m, criterion=criterion)
    assert indices.dtype.kind in "iu"
    assert [tuple(c) if isinstance(c, (tuple, list, np.ndarray)) else c for c in chosen.tolist()] == [
        labels[i] for i in indices.tolist()
    ]
    # the index is the argmax of the criterion's scores
    np.testing.assert_array_equal(m.decide(criterion, return_indices=True), indices)


def test_decide_with_utility_returns_action_indices():
    m = MassFunction({"a": 0.4, "b": 0.3, "a,b,c": 0.3})
    utility = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.6, 0.6]])
    assert int(m.decide("belief", utility=utility)) == 2


def test_iteration_over_the_batch():
    rng = np.random.default_rng(1)
    m = random_mass(rng, "abc", batch=(5,))
    rows = list(m)
    assert len(rows) == 5 and all(isinstance(r, MassFunction) and r.batch_shape == () for r in rows)
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(row.to_array(), m.to_array()[i])
    with pytest.raises(TypeError, match="not iterable"):
        list(MassFunction({"a": 1.0}, frame="ab"))


def test_equality_is_exact_and_mass_functions_are_unhashable():
    m = MassFunction({"a": 0.6, "a,b": 0.4})
    assert m == MassFunction({"a,b": 0.4, "a": 0.6})
    assert m != MassFunction({"a": 0.6 + 1e-12, "a,b": 0.4 - 1e-12})
    assert m != MassFunction({"a": 0.6, "a,b": 0.4}, frame="abc")
    assert m != "not a mass function"
    with pytest.raises(TypeError):
        hash(m)
    big = random_mass(np.random.default_rng(2), [f"l{i}" for i in range(20)], batch=(3,))
    assert big == MassFunction.from_dict(big.to_dict())


def test_pignistic_by_label_follows_the_frame_order():
    m = MassFunction({"b": 0.5, "a,b": 0.2, "a,b,c": 0.3})
    labelled = m.pignistic_by_label()
    assert list(labelled) == list(m.frame.labels)
    np.testing.assert_allclose(list(labelled.values()), m.pignistic())
    batch = random_mass(np.random.default_rng(3), "abc", batch=(4,))
    np.testing.assert_allclose(
        np.stack(list(batch.pignistic_by_label().values()), axis=-1), batch.pignistic()
    )


def brute_extend(m, target, new_labels):
    """Focal sets as frozensets, mapped by the definition."""
    added = frozenset(target) - frozenset(m.frame.labels)
    out = {}
    for focal, mass in m.focal_sets().items():
        image = focal | added if (new_labels == "possible" and focal) else focal
        out[image] = out.get(image, 0.0) + mass
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), new_labels=st.sampled_from(["possible", "impossible"]))
def test_extend_matches_the_definition_and_conditions_back(seed, new_labels):
    rng = np.random.default_rng(seed)
    m = random_mass(rng, "abc", n_focal=5)
    target = ["d", "c", "a", "e", "b"]
    extended = m.extend(target, new_labels=new_labels)
    expected = brute_extend(m, target, new_labels)
    got = extended.focal_sets()
    assert set(got) == set(expected)
    for focal, mass in expected.items():
        assert got[focal] == pytest.approx(mass, abs=1e-15)
    if new_labels == "possible":
        # deconditioning: conditioning on the old labels gives the original back (Smets 1993)
        back = extended.condition({"a", "b", "c"})
        for subset in itertools.chain.from_iterable(itertools.combinations("abc", r) for r in range(1, 4)):
            assert back.bel(set(subset)) == pytest.approx(m.bel(set(subset)), abs=1e-12)


def test_extend_errors_and_batches():
    m = random_mass(np.random.default_rng(4), "ab", batch=(3,))
    assert m.extend("abz").batch_shape == (3,)
    with pytest.raises(Exception, match="lacks labels"):
        m.extend("bz")
    with pytest.raises(ValueError, match="new_labels"):
        m.extend("abz", new_labels="maybe")


def test_extend_product_is_the_vacuous_extension():
    m = MassFunction({"a": 0.7, "a,b": 0.3})
    product = m.extend_product(["x", "y", "z"])
    assert len(product.frame.labels) == 6
    for subset in [{"a"}, {"b"}, {"a", "b"}]:
        cylinder = {(s, t) for s in subset for t in "xyz"}
        assert product.bel(cylinder) == pytest.approx(m.bel(subset))
        assert product.pl(cylinder) == pytest.approx(m.pl(subset))
    # nothing is known about the second component
    assert product.pl({("a", "x")}) == pytest.approx(1.0)
    assert product.bel({("a", "x"), ("b", "x")}) == pytest.approx(0.0)
    # a product of 72 labels (wide form): the cylinder of {l0} on the first component
    wide = MassFunction({"l0": 1.0}, frame=[f"l{i}" for i in range(9)]).extend_product(range(8))
    assert wide.frame.n == 72
    assert wide.focal_sets() == {frozenset(("l0", t) for t in range(8)): 1.0}


def test_decide_returns_the_frame_s_own_labels_when_they_mix_types():
    from dstk import Frame, MassFunction

    mixed = MassFunction({0: 0.7, "a": 0.3}, frame=Frame([0, "a"]))
    assert mixed.decide() == 0 and type(mixed.decide()) is int
    numbers = MassFunction({1: 0.7, 2.5: 0.3}, frame=Frame([1, 2.5]))
    assert type(numbers.decide()) is int
    batch = MassFunction.from_array([[0, 0.2, 0.8, 0], [0, 0.9, 0.1, 0]], Frame([0, "a"]))
    assert batch.decide().tolist() == ["a", 0]
    assert MassFunction.from_array([[0, 0.7, 0.3, 0]], Frame([3, 4])).decide().dtype.kind == "i"


def test_html_of_a_batch_on_a_wide_frame_shows_twenty_label_columns():
    frame = Frame([f"c{i}" for i in range(100)])
    rows = [{(f"c{i}",): 0.5, tuple(frame.labels): 0.5} for i in range(3)]
    batch = MassFunction.stack([MassFunction(row, frame=frame) for row in rows])
    text = batch._repr_html_()
    assert text.count("<th>BetP(") == 20 and "(80 more)" in text
