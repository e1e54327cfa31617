"""Numba kernels for the probabilistic calibrators of :mod:`dstk.calibration.probabilistic`.

* :func:`asymmetric_laplace_fit`: maximum-likelihood fit of an asymmetric
  Laplace density by searching the mode over the observed values with the
  closed-form scales given the mode (Gebel 2009, Section 4.3.3; Bennett 2002).

Kernels take and return plain float64 arrays; validation is done by callers.  The
pool-adjacent-violators algorithm is :func:`dstk._kernels.calibration.pool_adjacent_violators`.
"""

import numpy as np

from dstk._kernels._jit import njit

__all__ = ["asymmetric_laplace_fit"]


@njit(cache=True)
def asymmetric_laplace_fit(sorted_values):
    """Maximum-likelihood asymmetric Laplace parameters ``(mode, beta, gamma, loglik)``.

    The density is ``beta*gamma/(beta+gamma) * exp(-beta*(mode - s))`` for
    ``s <= mode`` and ``beta*gamma/(beta+gamma) * exp(-gamma*(s - mode))`` for
    ``s > mode``.  Every observed value is a candidate mode; given a mode the
    scales are ``beta = n / (D_l + sqrt(D_l D_r))`` and
    ``gamma = n / (D_r + sqrt(D_l D_r))`` with ``D_l = N_l*mode - sum_{s<=mode} s``
    and ``D_r = sum_{s>mode} s - N_r*mode`` (Gebel 2009, Sec. 4.3.3).
    Candidates with ``D_l = 0`` or ``D_r = 0`` (an infinite scale) are skipped.
    Returns ``loglik = -inf`` when no candidate is valid.

    Parameters
    ----------
    sorted_values : ndarray of shape (n,)
        The sample, sorted ascending.
    """
    n = sorted_values.shape[0]
    total = 0.0
    for i in range(n):
        total += sorted_values[i]
    best_ll = -np.inf
    best_mode = 0.0
    best_beta = 0.0
    best_gamma = 0.0
    prefix = 0.0
    i = 0
    while i < n:
        mode = sorted_values[i]
        # all values equal to the mode belong to the left part (s <= mode)
        j = i
        while j < n and sorted_values[j] == mode:
            prefix += sorted_values[j]
            j += 1
        n_left = j
        n_right = n - j
        d_left = n_left * mode - prefix
        d_right = (total - prefix) - n_right * mode
        if d_left > 0.0 and d_right > 0.0:
            root = np.sqrt(d_left * d_right)
            beta = n / (d_left + root)
            gamma = n / (d_right + root)
            ll = n * np.log(beta * gamma / (beta + gamma)) - beta * d_left - gamma * d_right
            if ll > best_ll:
                best_ll = ll
                best_mode = mode
                best_beta = beta
                best_gamma = gamma
        i = j
    return best_mode, best_beta, best_gamma, best_ll
