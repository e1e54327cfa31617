"""Dempster's rule for mass functions whose focal sets are singletons and the frame, in closed form.

Both the evidential k-NN rule (Denoeux 1995) and the evidential neural network (Denoeux 2000) combine, for
each sample, ``k`` mass functions of the form

    m_i({w_q}) = u_iq * s_i  (q = 1..M),     m_i(Omega) = 1 - s_i,

with supports ``s_i`` in [0, 1) and memberships ``u_i`` on the simplex (one-hot for the k-NN rule).  Their
commonalities are ``q_i({w_q}) = 1 - s_i (1 - u_iq)`` and ``q_i(Omega) = 1 - s_i``; the conjunctive
combination multiplies commonalities (Shafer 1976, Theorem 3.3), and since the result keeps the same focal
sets its unnormalised masses are

    m({w_q}) = a_q - b,   m(Omega) = b,   a_q = prod_i q_i({w_q}),   b = prod_i q_i(Omega),

which Dempster's rule divides by ``K = sum_q a_q - (M - 1) b``.  This is the pooling of the k nearest
neighbours of Denoeux (1995) and of the prototypes of Denoeux (2000), written as one product per class
instead of the papers' fold over the sources.
Everything is computed in logarithms, ``a_q - b = a_q (1 - exp(log b - log a_q))`` with ``expm1``, so
neither underflow of long products nor cancellation in ``a_q - b`` loses precision.

The gradient of a loss of the normalised masses with respect to the supports and memberships is the chain
rule through these closed forms; it is the gradient Zouhal & Denoeux (1998) and Denoeux (2000) derive
for their recursive formulation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "SingletonCombination",
    "combine_singleton_supports",
    "mass_gradient_to_support",
    "pignistic_output_gradient",
]


@dataclass
class SingletonCombination:
    """Normalised masses and the intermediate quantities the gradient needs."""

    singletons: np.ndarray  # (n, M) normalised m({w_q})
    frame: np.ndarray  # (n,) normalised m(Omega)
    log_a: np.ndarray  # (n, M) log q({w_q}) of the unnormalised combination
    log_b: np.ndarray  # (n,) log q(Omega)
    log_scale: np.ndarray  # (n,) log K, the normaliser (same scale as log_a, log_b)


def _log1m(x):
    return np.log1p(-x)


def combine_singleton_supports(
    support: np.ndarray,
    *,
    labels: np.ndarray | None = None,
    membership: np.ndarray | None = None,
    n_classes: int,
) -> SingletonCombination:
    """Combine by Dempster's rule the mass functions ``m_i({w_q}) = u_iq s_i``, ``m_i(Omega) = 1 - s_i``.

    Parameters
    ----------
    support : ndarray of shape (n, k)
        ``s_i`` in [0, 1): the total mass each source gives to the singletons.
    labels : ndarray of int of shape (n, k), optional
        Crisp memberships (``u_iq = [q == labels_i]``): the k-NN case.
    membership : ndarray of shape (k, M) or (n, k, M), optional
        Soft memberships (rows on the simplex): the neural-network case.
    n_classes : int
        ``M``.

    Returns
    -------
    SingletonCombination
    """
    log_frame_terms = _log1m(support)  # (n, k)
    log_b = log_frame_terms.sum(axis=1)
    n = support.shape[0]
    if labels is not None:
        # log q({w_q}) = sum over the sources of another class of log(1 - s_i)
        cells = (np.arange(n)[:, None] * n_classes + labels).ravel()
        within = np.bincount(cells, weights=log_frame_terms.ravel(), minlength=n * n_classes).reshape(
            n, n_classes
        )
        log_a = log_b[:, None] - within
        log_ratio = within  # log b - log a_q
    else:
        assert membership is not None
        terms = _log1m(support[..., None] * (1.0 - membership))  # (n, k, M)
        log_a = terms.sum(axis=1)
        log_ratio = log_b[:, None] - log_a
    top = log_a.max(axis=1)
    a = np.exp(log_a - top[:, None])
    unnormalised_singletons = a * (0.0 - np.expm1(np.minimum(log_ratio, 0.0)))
    unnormalised_frame = np.exp(log_b - top)
    total = unnormalised_singletons.sum(axis=1) + unnormalised_frame
    return SingletonCombination(
        singletons=unnormalised_singletons / total[:, None],
        frame=unnormalised_frame / total,
        log_a=log_a - top[:, None],
        log_b=log_b - top,
        log_scale=np.log(total),
    )


def mass_gradient_to_support(
    combination: SingletonCombination,
    grad_singletons: np.ndarray,
    grad_frame: np.ndarray,
    support: np.ndarray,
    *,
    labels: np.ndarray | None = None,
    membership: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Back-propagate ``dE/dm`` (normalised masses) to ``dE/ds_i`` and, for soft memberships, ``dE/du_iq``.

    Returns
    -------
    grad_support : ndarray of shape (n, k)
    grad_membership : ndarray of shape (n, k, M) or None
    """
    m_s, m_f = combination.singletons, combination.frame
    n_classes = m_s.shape[1]
    inverse_total = np.exp(-combination.log_scale)  # 1 / K on the scaled axis
    mean_grad = (grad_singletons * m_s).sum(axis=1) + grad_frame * m_f
    # A_r = a_r dE/da_r, B = b dE/db (scale-free products)
    a = np.exp(combination.log_a)
    b = np.exp(combination.log_b)
    A = a * (grad_singletons - mean_grad[:, None]) * inverse_total[:, None]
    B = b * (-grad_singletons.sum(axis=1) + grad_frame + (n_classes - 1) * mean_grad) * inverse_total
    if labels is not None:
        own = np.take_along_axis(A, labels, axis=1)  # (n, k): A at each source's class
        grad_support = -(A.sum(axis=1)[:, None] - own + B[:, None]) / (1.0 - support)
        return grad_support, None
    assert membership is not None
    other = 1.0 - membership  # (.., k, M)
    denominator = 1.0 - support[..., None] * other  # (n, k, M)
    grad_support = -(A[:, None, :] * other / denominator).sum(axis=2) - B[:, None] / (1.0 - support)
    grad_membership = A[:, None, :] * support[..., None] / denominator
    return grad_support, grad_membership


def pignistic_output_gradient(
    combination: SingletonCombination, targets: np.ndarray, frame_share: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """Squared error ``sum_n sum_q (m_q + frame_share * m(Omega) - t_q)^2`` and its gradient in the masses.

    ``frame_share = 1/M`` compares the pignistic probabilities with the targets, ``frame_share = 1`` the
    plausibilities: the training criteria of Zouhal & Denoeux (1998) and Denoeux (2000), without their
    constant factor ``1 / (2 N)``.
    """
    output = combination.singletons + frame_share * combination.frame[:, None]
    residual = output - targets
    loss = float((residual**2).sum())
    grad_singletons = 2.0 * residual
    grad_frame = frame_share * grad_singletons.sum(axis=1)
    return loss, grad_singletons, grad_frame
