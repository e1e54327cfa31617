"""Brute-force reference implementations, straight from the definitions.

Pure Python over all subsets (bitmasks) and pairs of focal sets: slow,
obviously correct, and independent of dstk's fast Moebius transforms.
"""

import itertools
import math

import numpy as np


def subsets(n):
    return range(1 << n)


def is_subset(a, b):
    return a & ~b == 0


def card(a):
    return bin(a).count("1")


def q(m):
    n = len(m)
    return np.array([sum(m[b] for b in range(n) if is_subset(a, b)) for a in range(n)])


def b(m):
    n = len(m)
    return np.array([sum(m[c] for c in range(n) if is_subset(c, a)) for a in range(n)])


def bel(m):
    n = len(m)
    return np.array([sum(m[c] for c in range(1, n) if is_subset(c, a)) for a in range(n)])


def pl(m):
    n = len(m)
    return np.array([sum(m[c] for c in range(n) if c & a) for a in range(n)])


def pairwise(m1, m2, op):
    out = np.zeros(len(m1))
    for a, x in enumerate(m1):
        if x == 0:
            continue
        for c, y in enumerate(m2):
            if y:
                out[op(a, c)] += x * y
    return out


def conjunctive(*ms):
    out = ms[0]
    for m in ms[1:]:
        out = pairwise(out, m, lambda a, c: a & c)
    return out


def disjunctive(*ms):
    out = ms[0]
    for m in ms[1:]:
        out = pairwise(out, m, lambda a, c: a | c)
    return out


def dempster(*ms):
    out = conjunctive(*ms)
    k = out[0]
    res = out.copy()
    res[0] = 0
    return res / res.sum(), k


def yager(*ms):
    out = conjunctive(*ms)
    out[-1] += out[0]
    out[0] = 0
    return out


def dubois_prade(m1, m2):
    out = np.zeros(len(m1))
    for a, x in enumerate(m1):
        for c, y in enumerate(m2):
            if x * y == 0:
                continue
            if a & c:
                out[a & c] += x * y
            else:
                out[a | c] += x * y
    return out


def pcr6(*ms):
    size = len(ms[0])
    out = np.zeros(size)
    focal = [[a for a in range(size) if m[a] > 0] for m in ms]
    for tup in itertools.product(*focal):
        vals = [m[a] for m, a in zip(ms, tup)]
        prod = math.prod(vals)
        inter = size - 1
        for a in tup:
            inter &= a
        if inter:
            out[inter] += prod
        else:
            s = sum(vals)
            for a, v in zip(tup, vals):
                out[a] += v * prod / s
    return out


def conjunctive_weights(m):
    """ln w(A) = -sum_{B >= A} (-1)^{|B|-|A|} ln q(B), for A != frame (Denoeux 2008, Eq. 13)."""
    n = len(m)
    lq = np.log(q(m))
    w = np.ones(n)
    for a in range(n - 1):
        s = sum((-1) ** (card(c) - card(a)) * lq[c] for c in range(n) if is_subset(a, c))
        w[a] = math.exp(-s)
    return w


def disjunctive_weights(m):
    n = len(m)
    lb = np.log(b(m))
    v = np.ones(n)
    for a in range(1, n):
        s = sum((-1) ** (card(a) - card(c)) * lb[c] for c in range(n) if is_subset(c, a))
        v[a] = math.exp(-s)
    return v


def from_conjunctive_weights(w):
    """Conjunctive combination of the (generalised) simple mass functions A^w(A)."""
    n = len(w)
    out = np.zeros(n)
    out[n - 1] = 1.0
    for a in range(n - 1):
        s = np.zeros(n)
        s[a] = 1 - w[a]
        s[n - 1] = w[a]
        out = pairwise(out, s, lambda x, y: x & y)
    return out


def from_disjunctive_weights(v):
    n = len(v)
    out = np.zeros(n)
    out[0] = 1.0
    for a in range(1, n):
        s = np.zeros(n)
        s[a] = 1 - v[a]
        s[0] = v[a]
        out = pairwise(out, s, lambda x, y: x | y)
    return out


def cautious(*ms):
    w = np.min([conjunctive_weights(m) for m in ms], axis=0)
    return from_conjunctive_weights(w)


def bold(*ms):
    v = np.min([disjunctive_weights(m) for m in ms], axis=0)
    return from_disjunctive_weights(v)


def pignistic(m, n_labels):
    out = np.zeros(n_labels)
    for a in range(1, len(m)):
        for i in range(n_labels):
            if a >> i & 1:
                out[i] += m[a] / card(a)
    return out / (1 - m[0])


def jousselme(m1, m2):
    d = np.asarray(m1) - np.asarray(m2)
    n = len(d)
    tot = 0.0
    for a in range(n):
        for c in range(n):
            u = card(a | c)
            jac = 1.0 if u == 0 else card(a & c) / u
            tot += d[a] * jac * d[c]
    return math.sqrt(max(0.5 * tot, 0.0))


def random_mass(rng, n, n_focal=None, normal=False, dogmatic=False, empty=None):
    size = 1 << n
    m = np.zeros(size)
    if n_focal is None or n_focal >= size:
        m = rng.random(size) ** 3
    else:
        idx = rng.choice(size, size=n_focal, replace=False)
        m[idx] = rng.random(n_focal)
    if normal:
        m[0] = 0
    if dogmatic:
        m[-1] = 0
    if empty is not None:
        m[0] = empty * m.sum() if m.sum() else empty
    if m.sum() == 0:
        m[-1] = 1
    return m / m.sum()
