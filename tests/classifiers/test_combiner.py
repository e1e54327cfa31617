"""ContextualDiscountingCombiner: closed-form rates against a bounded least-squares solver, joint gradient
against finite differences, predictions against dstk's own contextual discounting and combination."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime, lsq_linear

pytest.importorskip("sklearn")

from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from dstk import Frame, MassFunction, combine
from dstk.classifiers import ContextualDiscountingCombiner, EvidentialKNNClassifier
from dstk.classifiers._combiner import joint_contextual_rates, separate_contextual_rates
from dstk.exceptions import ConflictWarning


def test_separate_rates_solve_the_bounded_least_squares_problem():
    rng = np.random.default_rng(0)
    contour = rng.uniform(size=(50, 3))
    contour[:, 1] = np.where(rng.uniform(size=50) < 0.5, 1.0, contour[:, 1])
    indicators = np.eye(3)[rng.integers(0, 3, 50)]
    rates = separate_contextual_rates(contour, indicators)
    for k in range(3):
        # pl' = pl + a (1 - pl): least squares in a over [0, 1]
        solution = lsq_linear((1 - contour[:, k])[:, None], indicators[:, k] - contour[:, k], bounds=(0, 1))
        assert rates[k] == pytest.approx(solution.x[0], abs=1e-9)


def test_discounted_contour_is_linear_in_the_rates():
    """The formula the closed form relies on, checked on dstk.core's contextual_discount."""
    rng = np.random.default_rng(1)
    m = MassFunction.from_array(rng.dirichlet(np.ones(8), size=5), Frame("abc"))
    rates = rng.uniform(size=3)
    contour = m.to_array("pl")[:, [1, 2, 4]]
    discounted = m.contextual_discount(rates).to_array("pl")[:, [1, 2, 4]]
    np.testing.assert_allclose(discounted, contour + rates * (1 - contour), atol=1e-12)


def test_joint_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    contours = rng.uniform(size=(3, 40, 4))
    indicators = np.eye(4)[rng.integers(0, 4, 40)]
    start = rng.uniform(0.2, 0.8, size=(3, 4))
    from scipy import optimize

    captured = {}

    def spy(fun, x0, **kwargs):
        captured["fun"] = fun
        return optimize.OptimizeResult(x=x0)

    original = optimize.minimize
    optimize.minimize = spy
    try:
        joint_contextual_rates(contours, indicators, start)
    finally:
        optimize.minimize = original
    fun = captured["fun"]
    _, grad = fun(start.ravel())
    numeric = approx_fprime(start.ravel(), lambda x: fun(x)[0], 1e-7)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


def test_joint_rates_do_not_increase_the_combined_error():
    X, y = load_breast_cancer(return_X_y=True)
    kwargs = {"prefit": False, "random_state": 0}
    members = [
        make_pipeline(StandardScaler(), LogisticRegression()),
        GaussianNB(),
        DecisionTreeClassifier(random_state=0),
    ]
    separate = ContextualDiscountingCombiner(members, training="separate", **kwargs).fit(X, y)
    joint = ContextualDiscountingCombiner(members, training="joint", **kwargs).fit(X, y)

    def error(c):
        from sklearn.model_selection import train_test_split

        _, validation = train_test_split(np.arange(y.size), test_size=0.3, stratify=y, random_state=0)
        indicators = (y[validation][:, None] == c.classes_).astype(float)
        contours = [c._source_mass(e, X[validation]) @ c._membership() for e in c.estimators_]
        product = np.prod([p + r * (1 - p) for p, r in zip(contours, c.rates_)], axis=0)
        return ((product - indicators) ** 2).sum()

    assert error(joint) <= error(separate) + 1e-9


def test_prediction_is_dstk_contextual_discount_then_combine():
    X, y = load_iris(return_X_y=True)
    members = [LogisticRegression(max_iter=2000).fit(X, y), EvidentialKNNClassifier(n_neighbors=5).fit(X, y)]
    for rule in ("dempster", "conjunctive", "cautious"):
        c = ContextualDiscountingCombiner(members, prefit=True, rule=rule).fit(X[::3], y[::3])
        frame = Frame([0, 1, 2])
        proba = members[0].predict_proba(X[:7])
        bayesian = np.zeros((7, 8))
        bayesian[:, [1, 2, 4]] = proba
        sources = [
            MassFunction.from_array(bayesian, frame).contextual_discount(c.rates_[0]),
            members[1].predict_mass(X[:7]).contextual_discount(c.rates_[1]),
        ]
        if rule == "cautious":
            # the cautious rule needs non-dogmatic sources: only compare when the rates make them so
            if not np.all(c.rates_ > 0):
                continue
        expected = combine(sources, rule=rule).to_array()
        np.testing.assert_allclose(c.predict_mass(X[:7]).to_array(), expected, atol=1e-10)


def test_reliable_source_gets_small_rates_and_noise_gets_large_rates():
    rng = np.random.default_rng(0)
    X, y = load_breast_cancer(return_X_y=True)
    good = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    noise = DecisionTreeClassifier(random_state=0).fit(X, rng.permutation(y))
    c = ContextualDiscountingCombiner([good, noise], prefit=True).fit(X, y)
    assert c.rates_[0].max() < 0.2
    # a crisp classifier independent of the truth: pl_ik in {0, 1}, and the closed form gives
    # alpha_k = P(class k | k not predicted) = the frequency of class k
    frequencies = np.bincount(y) / y.size
    np.testing.assert_allclose(c.rates_[1], frequencies, atol=0.06)
    assert c.score(X, y) >= noise.score(X, y)


def test_total_conflict_policy():
    X, y = load_iris(return_X_y=True)
    a = DecisionTreeClassifier(random_state=0).fit(X, y)
    b = DecisionTreeClassifier(random_state=0).fit(X, (y + 1) % 3)  # always disagrees with a
    c = ContextualDiscountingCombiner([a, b], prefit=True).fit(X[::50], y[::50])
    c.rates_ = np.zeros_like(c.rates_)  # no discounting: categorical, disjoint outputs
    with pytest.warns(ConflictWarning, match="Total conflict"):
        m = c.predict_mass(X[:4])
    np.testing.assert_allclose(m.to_array()[:, -1], 1.0)
    c.set_params(on_conflict="raise")
    with pytest.raises(ValueError, match="total conflict"):
        c.predict_mass(X[:4])


def test_bad_parameters_name_the_argument():
    X, y = load_iris(return_X_y=True)
    for params, match in [
        ({"estimators": []}, "estimators"),
        ({"estimators": [GaussianNB()], "rule": "sum"}, "rule"),
        ({"estimators": [GaussianNB()], "training": "x"}, "training"),
        ({"estimators": [GaussianNB()], "validation_fraction": 1.5}, "validation_fraction"),
        ({"estimators": [GaussianNB()], "on_conflict": "ignore"}, "on_conflict"),
    ]:
        with pytest.raises(ValueError, match=match):
            ContextualDiscountingCombiner(**params).fit(X, y)


def test_string_columns_reach_the_classifiers_unchanged():
    """The classifiers take X as it is: a pipeline that encodes a string column fits through the combiner."""
    pandas = pytest.importorskip("pandas")
    from sklearn.compose import make_column_transformer
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    n = 120
    frame = pandas.DataFrame({"number": rng.normal(size=n), "word": rng.choice(["a", "b", "c"], size=n)})
    y = ((frame["number"] > 0) ^ (frame["word"] == "b")).astype(int).to_numpy()
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["word"]), remainder="passthrough"),
        DecisionTreeClassifier(max_depth=3, random_state=0),
    )
    c = ContextualDiscountingCombiner([pipe, pipe], random_state=0).fit(frame, y)
    assert list(c.feature_names_in_) == ["number", "word"]
    assert c.predict_mass(frame).batch_shape == (n,)
    assert c.score(frame, y) > 0.8
    with pytest.raises(ValueError, match="NaN"):
        c.predict_mass(frame.assign(number=np.where(np.arange(n) == 3, np.nan, frame["number"])))
