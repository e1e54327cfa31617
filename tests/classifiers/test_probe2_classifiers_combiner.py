"""Second probe of ContextualDiscountingCombiner (deprecated): a careless user's arguments."""

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.linear_model import LogisticRegression

from dstk.classifiers import ContextualDiscountingCombiner

_X = np.random.default_rng(0).normal(size=(30, 2)) + (np.arange(30) % 3)[:, None]
_Y = np.arange(30) % 3


def _fit(combiner):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated
        return combiner.fit(_X, _Y)


@pytest.mark.parametrize("prefit", ["no", 0, None])
def test_combiner_prefit_must_be_a_bool(prefit):
    # before: prefit="no" was truthy and an unfitted list would be used as fitted
    combiner = ContextualDiscountingCombiner([LogisticRegression().fit(_X, _Y)], prefit=prefit)
    with pytest.raises(ValueError, match="`prefit` must be True or False"):
        _fit(combiner)


def test_combiner_one_classifier_instead_of_a_list_is_refused_clearly():
    # before: TypeError "object of type 'LogisticRegression' has no len()"
    with pytest.raises(ValueError, match="`estimators` must be a non-empty list of classifiers"):
        _fit(ContextualDiscountingCombiner(LogisticRegression()))


def test_combiner_list_and_tuple_of_classifiers_still_fit():
    for estimators in ([LogisticRegression()], (LogisticRegression(),), [("lr", LogisticRegression())]):
        combiner = _fit(ContextualDiscountingCombiner(estimators, random_state=0))
        assert combiner.predict_proba(_X).shape == (30, 3)
