"""A fixed workload on frames of at most 64 labels whose results are pinned by ``test_wide_mass.py``.

Every public operation that the wide focal-set form touched is run on
random mass functions of 3, 16, 17, 40 and 64 labels; the results are
hashed, so that a change of a single bit on these frames shows.
"""

import hashlib
import json

import numpy as np

from dstk import Frame, MassFunction, combine
from dstk.core import Opinion, conflict, jousselme_distance
from dstk.core._uncertainty import discord, strife

RULES = ("conjunctive", "dempster", "disjunctive", "yager", "average")


def _random(rng, n, n_focal, batch=()):
    masks = sorted({int(x) for x in rng.integers(1, 2**n - 1 if n < 64 else 2**63, size=n_focal)})
    masks.append((1 << n) - 1)
    masses = rng.random(batch + (len(masks),))
    masses /= masses.sum(axis=-1, keepdims=True)
    return MassFunction.from_focal_sets(masks, masses, Frame(range(n)))


def results():
    """``{name: bytes}`` of every result of the workload."""
    out = {}
    rng = np.random.default_rng(20261128)
    for n in (3, 16, 17, 40, 64):
        frame = Frame(range(n))
        m1 = _random(rng, n, 6, (4,))
        m2 = _random(rng, n, 5, (4,))
        single = m1.batch[0]
        mask = int(rng.integers(1, 2**n - 1 if n < 64 else 2**63))
        query = frozenset(frame.labels_of(mask))
        for name in ("bel", "pl", "q", "b", "mass"):
            out[f"{n}/{name}"] = np.asarray(getattr(m1, name)(query)).tobytes()
        out[f"{n}/conflict"] = np.asarray(m1.conflict).tobytes()
        out[f"{n}/pignistic"] = m1.pignistic().tobytes()
        out[f"{n}/contour"] = m1.contour().tobytes()
        out[f"{n}/discount"] = json.dumps(m1.discount(0.1).to_dict()).encode()
        out[f"{n}/condition"] = json.dumps(m1.condition(query | {0}).to_dict()).encode()
        out[f"{n}/normalize"] = json.dumps(m1.normalize().to_dict()).encode()
        rates = np.zeros(n)
        rates[: min(n, 2)] = 0.2
        out[f"{n}/contextual"] = json.dumps(m1.contextual_discount(rates).to_dict()).encode()
        for rule in RULES:
            combined = combine([m1, m2], rule=rule)
            out[f"{n}/combine/{rule}"] = json.dumps(combined.to_dict()).encode()
        out[f"{n}/focal_sets"] = repr(sorted((sorted(k), v) for k, v in single.focal_sets().items())).encode()
        out[f"{n}/decide"] = np.asarray(m1.decide("pignistic")).tobytes()
        out[f"{n}/decide/belief"] = np.asarray(m1.decide("belief")).tobytes()
        out[f"{n}/decide/maximin"] = np.asarray(m1.decide("maximin", utility=np.eye(n))).tobytes()
        out[f"{n}/specificity"] = np.asarray(m1.specificity()).tobytes()
        out[f"{n}/nonspecificity"] = np.asarray(m1.nonspecificity()).tobytes()
        out[f"{n}/discord"] = np.asarray(discord(m1)).tobytes()
        out[f"{n}/strife"] = np.asarray(strife(m1)).tobytes()
        out[f"{n}/jousselme"] = np.asarray(jousselme_distance(m1, m2)).tobytes()
        out[f"{n}/kappa"] = np.asarray(conflict(m1, m2)).tobytes()
        if n * 2 <= 64:
            out[f"{n}/extend_product"] = json.dumps(single.extend_product(["x", "y"]).to_dict()).encode()
    opinion = Opinion.from_mass(MassFunction({"a": 0.5, "b": 0.2, "a,b,c": 0.3}))
    out["opinion"] = np.concatenate([opinion.belief, np.atleast_1d(opinion.uncertainty)]).tobytes()
    return out


def digest():
    """sha256 of each result, hex."""
    return {name: hashlib.sha256(value).hexdigest()[:16] for name, value in results().items()}


if __name__ == "__main__":
    print(json.dumps(digest(), indent=1, sort_keys=True))
