"""The MT19937 generator of :class:`numpy.random.RandomState`, drawn from numba kernels.

A state is a ``uint32`` array of 625 entries: the 624 words of the key and,
in the last entry, the position of the next word (as in ``RandomState.get_state()``:
``("MT19937", key, pos, ...)``).  :func:`random_below` draws an integer in
``[0, bound)`` exactly as the legacy ``RandomState.randint(bound)`` does (masked
rejection sampling on 32-bit words; ``bound = 1`` draws nothing), so a kernel
that makes the same calls in the same order as Python code using
``RandomState`` sees the same numbers.

References
----------
Matsumoto, M. and Nishimura, T. (1998). Mersenne twister: a 623-dimensionally
equidistributed uniform pseudo-random number generator. ACM Transactions on
Modeling and Computer Simulation 8(1), 3-30.
"""

import numpy as np

from dstk._kernels._jit import njit

STATE_SIZE = 625  # 624 key words + the position

_N = 624
_M = 397
_MATRIX_A = np.uint64(0x9908B0DF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_WORD = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)


def state_from_random_state(random_state):
    """Copy the MT19937 state of a :class:`numpy.random.RandomState` into a kernel state array."""
    name, key, position = random_state.get_state()[:3]
    if name != "MT19937":  # pragma: no cover - RandomState always uses MT19937
        raise ValueError(f"Expected an MT19937 RandomState, got {name!r}.")
    state = np.empty(STATE_SIZE, dtype=np.uint32)
    state[:_N] = key
    state[_N] = position
    return state


def restore_random_state(random_state, state):
    """Write a kernel state array back into a :class:`numpy.random.RandomState` (advancing it)."""
    random_state.set_state(("MT19937", state[:_N].copy(), int(state[_N]), 0, 0.0))


@njit(cache=True, nogil=True)
def _twist(state):
    for i in range(_N):
        y = (np.uint64(state[i]) & _UPPER) | (np.uint64(state[(i + 1) % _N]) & _LOWER)
        value = np.uint64(state[(i + _M) % _N]) ^ (y >> _ONE)
        if y & _ONE:
            value ^= _MATRIX_A
        state[i] = np.uint32(value & _WORD)
    state[_N] = 0


@njit(cache=True, nogil=True)
def next_word(state):
    """The next tempered 32-bit output (as a uint64)."""
    if state[_N] >= _N:
        _twist(state)
    position = np.int64(state[_N])
    y = np.uint64(state[position])
    state[_N] = position + 1
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & _WORD


@njit(cache=True, nogil=True)
def random_below(state, bound):
    """A uniform integer in ``[0, bound)``, ``1 <= bound <= 2**32``, as ``RandomState.randint(bound)``."""
    top = np.uint64(bound - 1)
    if top == 0:
        return 0
    mask = top
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    while True:
        value = next_word(state) & mask
        if value <= top:
            return np.int64(value)
