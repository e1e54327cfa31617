"""Second probe of EvidentialNeuralNetworkClassifier and logistic_evidence: a careless user's options."""

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.linear_model import LogisticRegression

from dstk.classifiers import EvidentialNeuralNetworkClassifier, logistic_evidence
from dstk.exceptions import ConvergenceWarning

_X = np.random.default_rng(0).normal(size=(20, 2))
_Y = np.arange(20) % 2


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("max_iter", True),
        ("max_iter", np.bool_(True)),
        ("tol", True),
        ("tol", np.inf),
        ("tol", np.nan),
        ("regularization", True),
        ("regularization", np.inf),
    ],
)
def test_network_option_of_the_wrong_kind_is_refused(option, value):
    clf = EvidentialNeuralNetworkClassifier(2, random_state=0, **{option: value})
    with pytest.raises(ValueError, match=f"`{option}` must be a"):
        clf.fit(_X, _Y)


def test_network_valid_numpy_options_still_fit():
    clf = EvidentialNeuralNetworkClassifier(
        2, random_state=0, max_iter=np.int64(20), tol=np.float32(1e-4), regularization=np.float64(0.1)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a short run
        clf.fit(_X, _Y)
    assert clf.predict_proba(_X).shape == (20, 2)


@pytest.mark.parametrize("flag", ["no", "False", 0, None])
def test_logistic_evidence_return_contributions_must_be_a_bool(flag):
    model = LogisticRegression().fit(_X, _Y)
    with pytest.raises(ValueError, match="`return_contributions` must be True or False"):
        logistic_evidence(model, _X, return_contributions=flag)


@pytest.mark.parametrize("flag", [True, False, np.bool_(True)])
def test_logistic_evidence_bool_flags_still_work(flag):
    model = LogisticRegression().fit(_X, _Y)
    out = logistic_evidence(model, _X, return_contributions=flag)
    m = out[0] if flag else out
    np.testing.assert_allclose(m.plausibility_transform(), model.predict_proba(_X), atol=1e-12)
