"""A safeguarded Newton solver for small (penalised) logistic regressions with soft targets."""

import warnings

import numpy as np

from ...exceptions import ConvergenceWarning


def cross_entropy(z, targets):
    """``sum_i -t_i log sigma(z_i) - (1 - t_i) log(1 - sigma(z_i))`` computed stably."""
    return float(np.sum(targets * np.logaddexp(0.0, -z) + (1.0 - targets) * np.logaddexp(0.0, z)))


def sigmoid(z):
    """Logistic function, stable for large ``|z|``."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64)))


def fit_logistic(
    design, targets, penalty=None, max_iter=100, tol=1e-10, name="logistic regression", warn=True, start=None
):
    """Minimise ``cross_entropy(design @ w, targets) + 0.5 * w' penalty w`` by Newton's method.

    Backtracking (Armijo) line search and a small ridge on the Hessian keep
    each step a descent step (the safeguards of Lin, Lin & Weng 2007 for
    Platt's problem).

    Returns
    -------
    w : ndarray of shape (n_features,)
    objective : float
    converged : bool
    """
    X = np.asarray(design, dtype=np.float64)
    t = np.asarray(targets, dtype=np.float64)
    d = X.shape[1]
    R = np.zeros((d, d)) if penalty is None else np.asarray(penalty, dtype=np.float64)
    w = np.zeros(d) if start is None else np.array(start, dtype=np.float64)

    def objective(v):
        return cross_entropy(X @ v, t) + 0.5 * v @ R @ v

    f = objective(w)
    converged = False
    scale = max(1.0, float(len(t)))
    for _ in range(max_iter):
        z = X @ w
        p = sigmoid(z)
        grad = X.T @ (p - t) + R @ w
        if np.max(np.abs(grad)) <= tol * scale:
            converged = True
            break
        weights = p * (1.0 - p)
        H = (X * weights[:, None]).T @ X + R + 1e-12 * np.eye(d)
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        slope = grad @ step
        if not np.isfinite(slope) or slope <= 0:
            step = grad
            slope = grad @ grad
        size = 1.0
        improved = False
        while size > 1e-12:
            candidate = w - size * step
            f_new = objective(candidate)
            if f_new <= f - 1e-4 * size * slope:
                improved = True
                break
            size *= 0.5
        if not improved:
            # no further decrease is representable: at the optimum up to rounding
            converged = np.max(np.abs(grad)) <= 1e-6 * scale
            break
        if abs(f - f_new) <= 1e-15 * max(1.0, abs(f)):
            w, f = candidate, f_new
            converged = True
            break
        w, f = candidate, f_new
    if not converged and warn:
        warnings.warn(
            f"{name}: Newton's method stopped after {max_iter} iterations without reaching the tolerance; "
            "the scores may be perfectly separable or badly scaled.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return w, f, converged
