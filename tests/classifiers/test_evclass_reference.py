"""EvidentialKNNClassifier against a line-by-line transcription of R's evclass (Denoeux's own code).

evclass computes the EkNN output by folding Dempster's rule over the neighbours (``EkNNval``) and the
training criterion and its gradient by the recursion of Zouhal & Denoeux (1998) (``gradientds``), with
``gamma_R = sqrt(gamma)`` and the criterion ``0.5 * mean(sum(Q^2))``.  dstk uses closed forms per class
instead; both must agree.
"""

import numpy as np
import pytest

pytest.importorskip("sklearn")

from dstk.classifiers import EvidentialKNNClassifier
from dstk.classifiers._knn import _simple_loss


def evclass_eknnval(labels, nn_index, nn_squared, gamma_r, alpha, n_classes):
    """R: EkNNval's loop (m normalised after each neighbour); returns (N, M + 1) masses."""
    N, K = nn_index.shape
    m = np.vstack([np.zeros((n_classes, N)), np.ones(N)])
    for i in range(N):
        for j in range(K):
            c = labels[nn_index[i, j]]
            m1 = np.zeros(n_classes + 1)
            m1[c] = alpha * np.exp(-(gamma_r[c] ** 2) * nn_squared[i, j])
            m1[n_classes] = 1 - m1[c]
            m[:n_classes, i] = (
                m1[:n_classes] * m[:n_classes, i]
                + m1[:n_classes] * m[n_classes, i]
                + m[:n_classes, i] * m1[n_classes]
            )
            m[n_classes, i] = m1[n_classes] * m[n_classes, i]
            m[:, i] /= m[:, i].sum()
    return m.T


def evclass_gradientds(y, nn_index, nn_squared, gamma_r, alpha, lam):
    """R: gradientds (cost and gradient in gamma_R), transcribed statement by statement."""
    N, K = nn_index.shape
    M = gamma_r.size
    T = np.eye(M)[:, y]
    is_, ds = nn_index.T, nn_squared.T
    mk = np.vstack([np.zeros((M, N)), np.ones(N)])
    s = np.zeros((K, N))
    tks = []
    for k in range(K):
        Is = y[is_[k]]
        Tk = np.zeros((M, N))
        Tk[Is, np.arange(N)] = 1
        tks.append(Tk)
        gam = (gamma_r[:, None] ** 2 * Tk).max(axis=0)
        s[k] = alpha * np.exp(-gam * ds[k])
        m = np.vstack([Tk * s[k], 1 - s[k]])
        mk = np.vstack([mk[:M] * (m[:M] + m[M]) + m[:M] * mk[M], mk[M] * m[M]])
    Kn = mk.sum(axis=0)
    mkn = mk / Kn
    Q = mkn[:M] + lam * mkn[M] - T
    err = 0.5 * np.mean((Q**2).sum(axis=0))
    Dsgama = np.zeros((M, N))
    mm = np.zeros_like(mk)
    for k in range(K):
        Tk = tks[k]
        m = np.vstack([Tk * s[k], 1 - s[k]])
        mm[M] = mk[M] / m[M]
        H = mm[M]
        mm[:M] = (mk[:M] - H * m[:M]) / (m[:M] + m[M])
        v = (mm[:M] + mm[M]) * Tk - mm[:M]
        DsK = v.sum(axis=0) - mm[M]
        Dsm_top = (Kn * v - mk[:M] * DsK) / Kn**2
        Dsm_frame = (-Kn * mm[M] - mk[M] * DsK) / Kn**2
        Ds = (Q * (Dsm_top + lam * Dsm_frame)).sum(axis=0)
        Dsgama = Dsgama - 2 * np.outer(gamma_r, Ds * ds[k] * s[k]) * Tk
    return err, Dsgama.mean(axis=1)


def _data(seed=0, n=50, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    return rng.normal(size=(n, 3)) + y[:, None], y


def test_predictions_match_evclass_eknnval():
    X, y = _data()
    gamma = np.array([0.4, 1.1, 2.3])
    clf = EvidentialKNNClassifier(n_neighbors=6, gamma=gamma).fit(X, y)
    Xt = _data(seed=1, n=12)[0]
    squared, indices = clf._neighbours(Xt)
    reference = evclass_eknnval(y, indices, squared, np.sqrt(gamma), 0.95, 3)
    m = clf.predict_mass(Xt).to_array()
    np.testing.assert_allclose(m[:, [1, 2, 4, 7]], reference, atol=1e-12)


@pytest.mark.parametrize("lam", [1 / 3, 1.0])
def test_criterion_and_gradient_match_evclass_gradientds(lam):
    X, y = _data(n=60)
    clf = EvidentialKNNClassifier(n_neighbors=5, gamma=1.0).fit(X, y)
    distances, indices = clf.nearest_neighbors_.kneighbors(n_neighbors=5)  # leave-one-out, as get.knn
    squared = distances**2
    gamma = np.array([0.5, 1.3, 0.8])
    err, grad_r = evclass_gradientds(y, indices, squared, np.sqrt(gamma), 0.95, lam)
    loss, grad = _simple_loss(gamma, 0.95, squared, y[indices], np.eye(3)[y], lam)
    n = y.size
    assert loss / (2 * n) == pytest.approx(err, rel=1e-12)
    # d/d gamma_R = d/d gamma * 2 gamma_R
    np.testing.assert_allclose(grad / (2 * n) * 2 * np.sqrt(gamma), grad_r, rtol=1e-9, atol=1e-14)
