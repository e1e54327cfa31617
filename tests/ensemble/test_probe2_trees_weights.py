"""Second review of the ensemble layer: sample weights that leave a single class."""

import numpy as np
import pytest

from dstk.ensemble import RandomDecisionTreesClassifier


def test_zero_weights_on_all_but_one_class_say_so():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.array(["a", "b"] * 15)
    weights = (y == "b").astype(float)
    # y has two classes: the message must blame the weights, not y
    with pytest.raises(ValueError, match=r"`sample_weight` is zero for every sample of class 'a'"):
        RandomDecisionTreesClassifier(3, random_state=0).fit(X, y, sample_weight=weights)


def test_a_single_class_in_y_keeps_its_message():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(ValueError, match=r"`y` contains a single class"):
        RandomDecisionTreesClassifier(3, random_state=0).fit(X, [1, 1, 1], sample_weight=[1, 2, 3])
