"""Regression tests for defects found by probing the metrics."""

import numpy as np
import pytest

from dstk.metrics import brier_score, roc_auc


@pytest.mark.parametrize("metric", [brier_score, roc_auc])
def test_missing_label_is_named_as_missing(metric):
    pd = pytest.importorskip("pandas")
    y = pd.Series([0, 1, None, 0], dtype="Int64")
    # a missing label was reported as a "non-integer value"
    with pytest.raises(ValueError, match="NaN or missing") as info:
        metric(y, np.array([0.2, 0.8, 0.6, 0.4]))
    assert "index 2" in str(info.value)
