"""Probes of the decision criteria with the inputs a careless user would give.

Each test pins a defect that a review found, with the answer the definitions
give (Denoeux 2019, IJAR 109, Eqs. 13-14 and 26, Sec. 4.1) computed in exact
rationals.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dstk import MassFunction, decide
from dstk.core._decisions import CRITERIA


def test_identical_acts_tie_to_the_smallest_index_under_every_criterion():
    # acts 0 and 2 are the same row; a matrix product may round their expectations apart
    # (2.727272727272727 against 2.7272727272727275 here), which picked act 2
    m = MassFunction({"l0": 2 / 11, "l1": 1 / 11, "l0,l1": 8 / 11})
    utility = np.array([[3.0, 0.0], [-1.0, 1.0], [3.0, 0.0]])
    # exact expectations: act 0 has lower 2/11 * 3 = 6/11 and upper (2/11 + 8/11) * 3 = 30/11; act 1 has
    # lower -2/11 + 1/11 - 8/11 = -9/11 and upper -2/11 + 1/11 + 8/11 = 7/11: act 0 (= act 2) wins both
    third = Fraction(1, 11)
    assert 6 * third > -9 * third and 30 * third > 7 * third
    for criterion in CRITERIA:
        for optimism in (0.25, 0.5, 0.75):
            options = {"orness": optimism} if criterion == "owa" else {"optimism": optimism}
            chosen = decide(m, criterion=criterion, utility=utility, **options)
            assert int(chosen) == 0, (criterion, optimism)
