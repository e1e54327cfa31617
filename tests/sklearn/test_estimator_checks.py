"""scikit-learn's own estimator checks on every dstk estimator that takes X.

Checks that cannot pass by design are listed once, with their reason, in
``tests/sklearn/_estimators.py::EXPECTED_FAILED_CHECKS`` (they are run and
must fail, so the list cannot go stale).
"""

import warnings

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks

from ._estimators import expected_failed_checks, x_estimators


@parametrize_with_checks(x_estimators(), expected_failed_checks=expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(estimator)
