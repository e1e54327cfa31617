"""Second review of ``from_counts``: counts at the edges of float64.

References are the definitions: Dempster's model m({c}) = n_c / (N + 1) and the
imprecise Dirichlet model m({c}) = n_c / (N + s) (Walley 1996), and the
binary models of Xu et al. (2016), Eqs. 24-32, whose masses are finite and sum
to one.
"""

import warnings

import numpy as np
import pytest

from dstk.evidence import COUNT_MODELS, from_counts


@pytest.mark.parametrize("model", COUNT_MODELS)
def test_counts_whose_total_overflows_are_refused_clearly(model):
    # 1e308 + 1e308 is inf in float64: every mass n_c / (N + 1) would be 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"`counts` sum to more than float64 holds"):
            from_counts([1e308, 1e308], model=model, allow_fractional=True)


@pytest.mark.parametrize(
    ("model", "counts"),
    [
        ("confidence_interval", [1e200, 1.0]),
        ("confidence_interval", [1e100, 1e99]),
        ("likelihood", [1e200, 1e200]),
        ("plausibility", [1e16, 1.0]),
        ("plausibility", [1e100, 1.0]),
    ],
)
def test_counts_beyond_a_models_range_raise_not_nan(model, counts):
    with pytest.raises(ValueError, match=rf"model={model!r} cannot compute"):
        from_counts(counts, model=model)


@pytest.mark.parametrize("model", COUNT_MODELS)
@pytest.mark.parametrize("counts", [[1e15, 1e15 + 2], [1e15, 3.0], [2.0**53, 1.0], [0.0, 1e15]])
def test_counts_up_to_1e15_give_valid_masses(model, counts):
    values = from_counts(counts, model=model).to_array()
    assert np.isfinite(values).all()
    assert values.min() >= 0.0
    assert values.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.xfail(
    reason="dstk/_kernels/counts.likelihood_mass_kernel: tiny fractional counts (n < ~1e-200) give "
    "[0.5, 0.5, 0] instead of the near-vacuous limit; 1e-100 gives masses of -6e-15",
    strict=True,
)
@pytest.mark.parametrize("tiny", [1e-100, 1e-300])
def test_likelihood_of_tiny_fractional_counts_tends_to_vacuous(tiny):
    # pl(tau) = tau^k (1 - tau)^(n - k) / L(k / n) -> 1 on [0, 1] as n -> 0: the vacuous mass function
    values = from_counts([tiny, tiny], model="likelihood", allow_fractional=True).to_array()
    assert values.min() >= 0.0
    assert values[3] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("flag", ["no", "False", 0.5, None])
def test_allow_fractional_that_is_not_a_bool_is_refused(flag):
    from dstk.evidence import clopper_pearson_interval, plausibility_degrees

    # "no" is truthy: weighted counts were accepted silently
    for function in (from_counts, plausibility_degrees, clopper_pearson_interval):
        with pytest.raises(ValueError, match=r"`allow_fractional` must be True or False"):
            function([0.5, 1.5], allow_fractional=flag)


@pytest.mark.parametrize("flag", [True, np.True_, 1])
def test_allow_fractional_takes_bools(flag):
    values = from_counts([0.5, 1.5], model="dempster", allow_fractional=flag).to_array()
    assert values.tolist() == [0.0, 0.5 / 3.0, 1.5 / 3.0, 1.0 / 3.0]


@pytest.mark.parametrize("counts", [[1e200, 1.0], [[3.0, 7.0], [1e100, 1e99]]])
def test_clopper_pearson_interval_beyond_scipy_raises_not_nan(counts):
    from dstk.evidence import clopper_pearson_interval

    with pytest.raises(ValueError, match=r"Clopper-Pearson interval cannot be computed"):
        clopper_pearson_interval(counts)


def test_clopper_pearson_interval_up_to_1e15_is_finite():
    from dstk.evidence import clopper_pearson_interval

    lower, upper = clopper_pearson_interval([[1e15, 1e15 + 2], [0, 0], [3, 7]])
    assert np.isfinite(lower).all() and np.isfinite(upper).all()
    assert (lower <= upper).all()
