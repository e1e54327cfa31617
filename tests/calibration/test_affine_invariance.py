"""Affine invariance of every calibrator: fitting on a (s + b) and predicting a (t + b) changes nothing.

Every calibrator of dstk whose definition depends on the scores only through their order or through a
location-scale model must give the same outputs after an affine change of the scores, for scales a from
1e-8 to 1e8 and shifts b up to 1e6 calibration spreads (Xu et al.'s logistic model: theta_1 absorbs a,
theta_0 absorbs b).  The only exceptions are those that are not invariant by definition: the simple
normalisation (divides by max |s|) and the softmax calibrator (a fixed logistic link of the raw score),
both scale- and shift-dependent in Gebel (2009), Eqs. 4.1-4.2, and the piecewise logistic calibrator,
whose penalty on slope changes is in score units (shift-invariant only); the Venn machine and explicit bin edges
are tested with their edges transformed too.
"""

import numpy as np
import pytest

from dstk.calibration import (
    BinningCalibrator,
    IsotonicCalibrator,
    LogisticCalibrator,
    VennAbersCalibrator,
    VennMachineCalibrator,
)
from dstk.calibration._base import BINARY_COUNT_MODELS as COUNT_MODELS
from dstk.calibration._logistic import LOGISTIC_MODELS
from dstk.calibration.probabilistic import (
    AsymmetricLaplaceBayesCalibrator,
    GaussianBayesCalibrator,
    IsotonicRegressionCalibrator,
    PiecewiseLogisticCalibrator,
    PlattCalibrator,
)

# (scale a, shift b in calibration spreads): extremes of each and combined
TRANSFORMS = [(1e-8, 0.0), (1e8, 0.0), (1.0, 1e6), (1e-8, -1e6), (1e8, 1e6), (1e-3, 37.5)]


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    scores = rng.normal(1.2 * y - 0.6, 1.0)
    test = np.concatenate([np.linspace(-4.0, 4.0, 17), rng.normal(0.0, 1.5, 20), [-40.0, 25.0]])
    return scores, y, test


def _outputs(calibrator, test):
    if hasattr(calibrator, "predict_mass"):
        return calibrator.predict_mass(test).to_array()
    return calibrator.predict_proba(test)


def _check(make, transform, atol, edges=None):
    scores, y, test = _data()
    reference = _outputs(make(edges).fit(scores, y) if edges is not None else make().fit(scores, y), test)
    a, b = transform

    def moved(values):
        return a * (np.asarray(values) + b)

    calibrator = make(moved(edges)) if edges is not None else make()
    got = _outputs(calibrator.fit(moved(scores), y), moved(test))
    np.testing.assert_allclose(got, reference, atol=atol, rtol=0)


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("model", LOGISTIC_MODELS)
@pytest.mark.parametrize("targets", ["smoothed", "labels"])
def test_logistic_calibrator(model, targets, transform):
    # the masses depend on the standardised scores only; 1e-7 covers the rounding of a (s + b) at b = 1e6
    _check(lambda: LogisticCalibrator(model=model, targets=targets), transform, atol=1e-7)


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("model", COUNT_MODELS)
def test_isotonic_and_binning_calibrators(model, transform):
    _check(lambda: IsotonicCalibrator(model=model), transform, atol=1e-12)
    _check(lambda: BinningCalibrator(bins=6, model=model), transform, atol=1e-12)
    _check(lambda: BinningCalibrator(bins=5, strategy="quantile", model=model), transform, atol=1e-12)
    _check(
        lambda edges: BinningCalibrator(bins=edges, model=model, empty_bins="vacuous"),
        transform,
        atol=1e-12,
        edges=np.array([-2.0, -0.5, 0.1, 0.7, 2.5]),
    )


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_venn_calibrators(transform):
    _check(VennAbersCalibrator, transform, atol=1e-12)
    _check(
        lambda edges: VennMachineCalibrator(edges=edges),
        transform,
        atol=1e-12,
        edges=np.array([-1.0, -0.5, 0.0, 0.5, 1.0]),
    )


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize(
    "make, atol",
    [
        (PlattCalibrator, 1e-7),
        (lambda: PlattCalibrator(targets="labels"), 1e-7),
        (IsotonicRegressionCalibrator, 1e-12),
        (lambda: IsotonicRegressionCalibrator(interpolation="linear"), 1e-7),
        (GaussianBayesCalibrator, 1e-7),
        (AsymmetricLaplaceBayesCalibrator, 1e-7),
    ],
)
def test_probabilistic_calibrators(make, atol, transform):
    _check(make, transform, atol=atol)


@pytest.mark.parametrize("shift", [-1e6, 37.5, 1e6])
def test_piecewise_logistic_is_shift_invariant(shift):
    """Its penalty is on slope changes per score unit (Gebel 2009, Eq. 4.6): shift- but not scale-invariant."""
    _check(PiecewiseLogisticCalibrator, (1.0, shift), atol=1e-6)


def test_logistic_fit_is_finite_or_raises_for_huge_and_tiny_scores():
    scores, y, test = _data()
    for a, b in [(1e150, 0.0), (1e-150, 0.0), (1.0, 1e12), (1e300, 1e5)]:
        moved = a * (scores + b)
        calibrator = LogisticCalibrator().fit(moved, y)
        masses = calibrator.predict_mass(a * (test + b)).to_array()
        assert np.all(np.isfinite(masses))
        np.testing.assert_allclose(masses.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="not finite in the units of the scores"):
        LogisticCalibrator().fit(1e-320 * scores, y)  # subnormal spread: theta_1 overflows


@pytest.mark.parametrize("scale", [1e155, 1e-155, 1e300])
@pytest.mark.parametrize(
    "make",
    [
        GaussianBayesCalibrator,
        AsymmetricLaplaceBayesCalibrator,
        IsotonicRegressionCalibrator,
        VennAbersCalibrator,
    ],
)
def test_density_and_order_calibrators_at_the_edges_of_float64(make, scale):
    """Scores near the overflow and underflow of their squares: the same outputs as at unit scale, never a
    ZeroDivisionError or NaN (the asymmetric Laplace fit multiplies two sums of deviations)."""
    _check(make, (scale, 0.0), atol=1e-7)


def test_scale_dependent_calibrators_say_so_and_are():
    """VennMachineCalibrator and PiecewiseLogisticCalibrator depend on the score scale, as documented."""
    from dstk.calibration import VennMachineCalibrator
    from dstk.calibration.probabilistic import PiecewiseLogisticCalibrator

    rng = np.random.default_rng(0)
    scores = rng.normal(size=400)
    labels = (scores + rng.normal(size=400) > 0).astype(int)
    for calibrator in (VennMachineCalibrator(), PiecewiseLogisticCalibrator()):
        assert "scale of the scores" in " ".join(type(calibrator).__doc__.split())
        plain = calibrator.fit(scores, labels).predict_proba(scores)
        scaled = type(calibrator)().fit(1000 * scores, labels).predict_proba(1000 * scores)
        assert np.max(np.abs(plain - scaled)) > 1e-3
