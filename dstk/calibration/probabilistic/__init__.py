"""Binary probabilistic calibrators (Gebel 2009, Chapter 4).

Probabilistic baselines for dstk's evidential calibrators.  Every calibrator
follows the same pattern: ``fit(scores, y)``, ``predict_proba(scores)`` of
shape ``(N, 2)`` (column 1 = the larger label) and ``predict(scores)``.  The
assignment-value and Bayes calibrators also offer ``predict_interval`` and
``predict_mass``; their evidential reading is dstk's own extension.

* :class:`SimpleNormalization` (Eq. 4.1) and :class:`SoftmaxCalibrator` (Eq. 4.2)
* :class:`PlattCalibrator` (Sec. 4.2.1, smoothed targets)
* :class:`PiecewiseLogisticCalibrator` (Sec. 4.2.2)
* :class:`IsotonicRegressionCalibrator` (Sec. 4.2.3, PAV)
* :class:`GaussianBayesCalibrator`, :class:`AsymmetricLaplaceBayesCalibrator` (Sec. 4.3)
* :class:`AssignmentValueCalibrator` (Sec. 4.4, Garczarek)
"""

from ._assignment_value import AssignmentValueCalibrator
from ._bayes import AsymmetricLaplaceBayesCalibrator, GaussianBayesCalibrator
from ._isotonic import IsotonicRegressionCalibrator
from ._normalization import SimpleNormalization, SoftmaxCalibrator
from ._piecewise_logistic import PiecewiseLogisticCalibrator
from ._platt import PlattCalibrator

__all__ = [
    "AssignmentValueCalibrator",
    "AsymmetricLaplaceBayesCalibrator",
    "GaussianBayesCalibrator",
    "IsotonicRegressionCalibrator",
    "PiecewiseLogisticCalibrator",
    "PlattCalibrator",
    "SimpleNormalization",
    "SoftmaxCalibrator",
]
