"""``interval_score``'s ``alpha`` is a number in (0, 1): strings, booleans, NaN and percentages are refused."""

import pytest

from dstk.metrics import interval_score


@pytest.mark.parametrize("alpha", ["0.1", b"0.1", True, float("nan"), 0.0, 1.0, -0.5, None, [0.1]])
def test_a_bad_alpha_is_refused_with_its_name(alpha):
    with pytest.raises(ValueError, match="`alpha`"):
        interval_score([0.2], [0.4], [0.5], alpha=alpha)


def test_a_percentage_gets_the_hint():
    with pytest.raises(ValueError, match=r"alpha=0\.05"):
        interval_score([0.2], [0.4], [0.5], alpha=5)


def test_a_valid_alpha_gives_gneiting_and_rafterys_score():
    # width 0.2 plus (2 / 0.5) * (0.5 - 0.4) for the miss above the interval
    assert interval_score([0.2], [0.4], [0.5], alpha=0.5) == pytest.approx(0.6, abs=1e-15)
