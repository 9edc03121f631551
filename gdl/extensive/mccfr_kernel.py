"""The numba kernel of :mod:`gdl.extensive.mccfr` (importing this module imports numba); compiled once
per installation (``cache=True``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])
_jit = cast(Callable[[F], F], numba.njit(cache=True, nogil=True))


@_jit
def _uniform(rng: Any) -> float:  # pragma: no cover (numba)
    """A number in [0, 1) from xorshift64* (its state in ``rng[0]``, never 0)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return float((x * np.uint64(2685821657736338717)) >> np.uint64(11)) / 9007199254740992.0


@_jit
def _matched(regrets: Any, first: int, k: int, out: Any) -> None:  # pragma: no cover (numba)
    """Regret matching: each action in proportion to its positive regret (uniform if none)."""
    total = 0.0
    for b in range(k):
        total += max(regrets[first + b], 0.0)
    for b in range(k):
        out[b] = max(regrets[first + b], 0.0) / total if total > 0 else 1.0 / k


@_jit
def _pick(weights: Any, k: int, mix: float, rng: Any) -> int:  # pragma: no cover (numba)
    """An action drawn from ``(1 - mix) * weights + mix * uniform``."""
    u = _uniform(rng)
    for b in range(k - 1):
        u -= (1.0 - mix) * weights[b] + mix / k
        if u < 0:
            return b
    return k - 1


@_jit
def sample(  # pragma: no cover (numba)
    kind: Any, first: Any, count: Any, sequence: Any, player: Any, probability: Any, payoff: Any,
    constant: float, regrets0: Any, regrets1: Any, average0: Any, average1: Any, start: int, batch: int,
    exploration: float, rng: Any, depth: int,
) -> None:
    """``batch`` iterations of outcome sampling, iteration ``start + t`` updating player
    ``(start + t) % 2`` (see :mod:`gdl.extensive.mccfr`)."""
    widest = max(1, int(count.max()))
    sigma = np.zeros((depth + 1, widest))
    path_first = np.zeros(depth + 1, dtype=np.int64)
    path_count = np.zeros(depth + 1, dtype=np.int64)
    path_action = np.zeros(depth + 1, dtype=np.int64)
    reach = np.ones(3)
    for t in range(batch):
        updating = (start + t) % 2
        regrets = regrets0 if updating == 0 else regrets1
        node = 0
        steps = 0
        reach[:] = 1.0
        while kind[node] != 0:
            k = count[node]
            if kind[node] == 1:
                a = _pick(probability[first[node] :], k, 0.0, rng)
                reach[SAMPLING] *= probability[first[node] + a]
                node = first[node] + a
                continue
            p = player[node]
            s = sequence[node]
            a = decide(
                regrets0 if p == 0 else regrets1, average0 if p == 0 else average1, s, k, sigma[steps],
                p == updating, exploration, rng, reach, path_first, path_count, path_action, steps,
            )
            if p == updating:
                steps += 1
            node = first[node] + a
        value = payoff[first[node]] if updating == 0 else constant - payoff[first[node]]
        update_regrets(regrets, path_first, path_count, path_action, sigma, steps, value / reach[OWN])


#: Fields of the reach array of :func:`decide`: the updating player's sampling probability so far, the
#: other player's reach under its strategy, the probability of sampling the play so far.
OWN, OTHER, SAMPLING = range(3)


@_jit
def decide(  # pragma: no cover (numba)
    regrets: Any, average: Any, s: int, k: int, row: Any, updating: bool, exploration: float, rng: Any,
    reach: Any, path_first: Any, path_count: Any, path_action: Any, steps: int,
) -> int:
    """Outcome sampling at a decision whose information set's ``k`` sequences start at ``s``: the
    current strategy (regret matching) in ``row``, and the action sampled. The updating player explores
    and records the decision at ``steps`` of the path; the other adds its current strategy, weighted by
    its reach over the sampling probability, to its average. ``reach`` is updated (see :data:`OWN`)."""
    _matched(regrets, s, k, row)
    if updating:
        a = _pick(row, k, exploration, rng)
        q = (1.0 - exploration) * row[a] + exploration / k
        reach[OWN] *= q
        reach[SAMPLING] *= q
        path_first[steps] = s
        path_count[steps] = k
        path_action[steps] = a
        return a
    for b in range(k):
        average[s + b] += reach[OTHER] * row[b] / reach[SAMPLING]
    a = _pick(row, k, 0.0, rng)
    reach[OTHER] *= row[a]
    reach[SAMPLING] *= row[a]
    return a


@_jit
def update_regrets(  # pragma: no cover (numba)
    regrets: Any, path_first: Any, path_count: Any, path_action: Any, sigma: Any, steps: int, weight: float
) -> None:
    """Outcome sampling's regret update along the updating player's ``steps`` sampled decisions (its
    information set's first sequence, its actions, the action taken, its strategy in ``sigma``), the
    sampled value ``weight`` carried back through the strategy's probabilities of what followed."""
    tail = 1.0
    for j in range(steps - 1, -1, -1):
        s = path_first[j]
        a = path_action[j]
        chosen = sigma[j, a]
        for b in range(path_count[j]):
            if b == a:
                regrets[s + b] += weight * tail * (1.0 - chosen)
            else:
                regrets[s + b] -= weight * tail * chosen
        tail *= chosen
