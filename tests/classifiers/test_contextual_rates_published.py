"""Closed-form contextual discount rates against a published value.

The R package evCorr (S. Mutmainah, D. Mercier, F. Pichon, S. Hachour) documents ``tuningCD``, the rates
minimising the plausibility error E_pl by Eq. 33 of Mercier, Quost & Denoeux (2008), on the four outputs
of sensor 1 of Elouedi, Mellouli & Smets (2004), with the result alpha = (0.2413793, 0, 0).
"""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from dstk import Frame, MassFunction
from dstk.classifiers._combiner import separate_contextual_rates

#: masses of the four outputs on the subsets of {a, b, c} in bitmask order (empty, a, b, ab, c, ac, bc, abc)
SENSOR_1 = np.array(
    [
        [0, 0, 0, 0, 0.5, 0, 0.3, 0.2],
        [0, 0, 0.5, 0, 0.2, 0, 0, 0.3],
        [0, 0, 0.4, 0, 0, 0.6, 0, 0],
        [0, 0, 0, 0, 0, 0.6, 0.4, 0],
    ]
)
TRUTH = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=float)


def test_rates_of_elouedi_sensor_1_match_evcorr():
    masses = MassFunction.from_array(SENSOR_1, Frame("abc"))
    contour = masses.to_array("pl")[:, [1, 2, 4]]
    np.testing.assert_allclose(contour[0], [0.2, 0.5, 1.0], atol=1e-12)
    rates = separate_contextual_rates(contour, TRUTH)
    np.testing.assert_allclose(rates, [0.2413793, 0.0, 0.0], atol=5e-8)
