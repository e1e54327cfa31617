"""Second review of the ensemble layer: yes/no options given as text or numbers."""

import numpy as np
import pytest

from dstk.ensemble import RandomDecisionTreesClassifier, combine_leaves_to_mass

COUNTS = np.array([[[3, 1], [0, 2]], [[0, 0], [5, 5]]], dtype=float)


@pytest.mark.parametrize("flag", ["no", "False", 0.5, None, [False]])
def test_combine_leaves_to_mass_refuses_a_normalize_that_is_not_a_bool(flag):
    # "no" is truthy: it silently normalised
    with pytest.raises(ValueError, match=r"`normalize` must be True or False"):
        combine_leaves_to_mass(COUNTS, combiner="dempster", normalize=flag)


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_, 0, 1])
def test_combine_leaves_to_mass_takes_bools(flag):
    masses = combine_leaves_to_mass(COUNTS, combiner="cautious", normalize=flag).to_array()
    assert masses.shape == (2, 4)
    assert np.allclose(masses.sum(axis=1), 1.0)


def test_predict_mass_refuses_a_normalize_that_is_not_a_bool():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    model = RandomDecisionTreesClassifier(5, combiner="dempster", random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"`normalize` must be True or False"):
        model.predict_mass(X[:3], normalize="false")
    assert np.array_equal(
        model.predict_mass(X[:3], normalize=np.False_).to_array(),
        model.predict_mass(X[:3], normalize=False).to_array(),
    )
