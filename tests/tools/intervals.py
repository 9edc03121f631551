"""The confidence interval the strength tools print."""

from __future__ import annotations

import math
import statistics

from scipy import stats


def mean_interval(sample: list[float]) -> tuple[float, float]:
    """A 95 % confidence interval of the mean of ``sample`` (Student's t); the mean alone for fewer than
    two values."""
    mean = statistics.fmean(sample)
    if len(sample) < 2:
        return mean, mean
    half = float(stats.t.ppf(0.975, len(sample) - 1)) * statistics.stdev(sample) / math.sqrt(len(sample))
    return mean - half, mean + half
