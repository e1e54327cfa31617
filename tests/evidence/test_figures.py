"""Tests of the Figure 4 data of Xu et al. (2016)."""

import numpy as np
import pytest

from dstk.evidence._counts import _binary_mass_array as counts_to_mass_array
from dstk.evidence._figures import figure4_data


def test_figure4_panels():
    data = figure4_data(max_sample_size=60)
    panel = data["by_sample_size"]
    np.testing.assert_array_equal(panel["n"], np.arange(3, 61, 3))
    np.testing.assert_array_equal(panel["k"] * 3, panel["n"] * 2)
    for model in (
        "bayes",
        "inverse_pignistic",
        "dempster",
        "confidence_interval",
        "likelihood",
        "plausibility",
    ):
        belief, plausibility = panel["belief"][model], panel["plausibility"][model]
        masses = counts_to_mass_array(panel["k"], panel["n"], model)
        np.testing.assert_allclose(belief, masses[:, 2])
        np.testing.assert_allclose(plausibility, masses[:, 2] + masses[:, 3])
        assert np.all(belief <= plausibility + 1e-15)
    # Bayes and inverse pignistic ignore the sample size; Dempster narrows fastest
    assert np.ptp(panel["belief"]["bayes"]) == 0 and np.ptp(panel["plausibility"]["inverse_pignistic"]) == 0
    width = {
        m: panel["plausibility"][m] - panel["belief"][m]
        for m in ("dempster", "likelihood", "confidence_interval")
    }
    assert np.all(width["dempster"] < width["likelihood"]) and np.all(
        width["likelihood"] < width["confidence_interval"]
    )
    proportion = data["by_proportion"]
    np.testing.assert_allclose(proportion["x"], np.arange(11) / 10)
    # at tau_hat in {0, 1} the likelihood model equals Dempster's model (paper, end of section 4.1)
    for model_a, model_b in (("likelihood", "dempster"),):
        for key in ("belief", "plausibility"):
            np.testing.assert_allclose(proportion[key][model_a][[0, -1]], proportion[key][model_b][[0, -1]])


def test_figure4_bad_input():
    with pytest.raises(ValueError, match="proportion"):
        figure4_data(proportion=(4, 3))
    with pytest.raises(ValueError, match="max_sample_size"):
        figure4_data(max_sample_size=2)
    with pytest.raises(ValueError, match="level"):
        figure4_data(level=1.5)
