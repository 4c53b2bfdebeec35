"""Calibration statistics of vireo_quantize: least-squared-error (mse), min-max, percentile and
entropy (KL) ranges.

Each collector sees one activation tensor sample after sample and keeps only its statistics
(the range, and for the histogram methods one fixed-size histogram), never the activations.

    c = RangeCollector("percentile", percentile=99.99)
    for x in activations: c.add(x)
    lo, hi = c.range(symmetric=False)
"""
import math

import numpy as np

METHODS = ("minmax", "percentile", "entropy", "mse")
DEFAULT_BINS = 2048
# The ends the mse method tries, as fractions of the observed ones (steps of 1 %).
MSE_FRACTIONS = np.linspace(0.05, 1.0, 96)
# The mse method clips only tensors with a light tail: |x| at the 99.99th percentile at most
# twice |x| at the 99th (a normal distribution: 1.51, a Laplace one: about 2). A heavier tail is
# a few large values that, in a trained network, carry signal (PP-OCR's detector and recognizer
# have many such tensors; clipping them too cost the detector 2.3 % of its pages); the extremes
# of a light tail are only the largest of many draws, and clipping them buys a finer grid for
# the rest (docs/quantization.md).
MSE_TAIL_LIMIT = 2.0


class Histogram:
    """Counts of x over [-r, r] in `bins` (even) bins of width 2r / bins, symmetric about 0.

    r starts at the first sample's max |x| and grows by an integer factor k when a later sample
    goes beyond it: a bin edge of the old grid at w * j is then one of the new grid's whenever k
    divides j, so k old bins merge into one new bin with no count moved across an edge.
    """

    def __init__(self, bins=DEFAULT_BINS):
        if bins < 4 or bins % 2:
            raise ValueError(f"histogram bins must be an even number >= 4, got {bins}")
        self.bins = bins
        self.r = 0.0
        self.counts = np.zeros(bins, np.int64)

    def add(self, x):
        x = np.asarray(x, np.float64).ravel()
        x = x[np.isfinite(x)]
        if x.size == 0:
            return
        m = float(np.max(np.abs(x)))
        if self.r == 0.0:
            # An all-zero first sample still needs a grid: any positive r puts zeros in the two
            # middle bins' edge, and the first wider sample merges them.
            self.r = m if m > 0 else 1e-30
        elif m > self.r:
            self._grow(int(math.ceil(m / self.r)))
            while self.r < m:  # ceil's float rounding
                self._grow(2)
        half = self.bins // 2
        width = self.r / half
        idx = np.floor(x / width).astype(np.int64) + half
        np.clip(idx, 0, self.bins - 1, out=idx)
        self.counts += np.bincount(idx, minlength=self.bins)

    def _grow(self, k):
        half = self.bins // 2
        offset = np.arange(self.bins) - half  # old bin j covers [offset * w, (offset + 1) * w)
        # k >= half merges every bin into the middle two, as any larger k does (no overflow).
        merged = np.floor_divide(offset, min(k, half)) + half
        self.counts = np.bincount(merged, weights=self.counts, minlength=self.bins).astype(np.int64)
        self.r *= k

    @property
    def width(self):
        return self.r / (self.bins // 2)

    def magnitudes(self):
        """Counts of |x| in bins/2 bins of the same width over [0, r]."""
        half = self.bins // 2
        return self.counts[half:] + self.counts[:half][::-1]


def percentile_abs(hist, percentile, zeros=0):
    """Upper edge of the first |x| bin at which the cumulative count reaches percentile %;
    `zeros` values exactly 0 are left out (taken from the first bin)."""
    counts = hist.magnitudes().copy()
    counts[0] -= min(zeros, counts[0])
    cum = np.cumsum(counts)
    if cum[-1] == 0:
        return 0.0
    i = int(np.searchsorted(cum, cum[-1] * percentile / 100.0, side="left"))
    return (min(i, len(counts) - 1) + 1) * hist.width


def percentile_tails(hist, percentile):
    """(lower, upper) edges leaving (100 - percentile) % of the counts out on each side."""
    cum = np.cumsum(hist.counts)
    total = cum[-1]
    if total == 0:
        return 0.0, 0.0
    half = hist.bins // 2
    tail = total * (100.0 - percentile) / 100.0
    lower = int(np.searchsorted(cum, tail, side="right"))  # first bin whose cumulative count > tail
    upper = int(np.searchsorted(cum, total - tail, side="left"))
    upper = min(upper, hist.bins - 1)
    return (lower - half) * hist.width, (upper + 1 - half) * hist.width


def entropy_abs(hist, levels, eps=1e-4, side=None):
    """|x| threshold whose `levels`-level quantization loses the least information (KL).

    side: None searches the |x| histogram; "positive" or "negative" only that side's values.

    For each candidate i (in bins of |x|): P is the first i bins with everything beyond added to
    the last one (what clipping at i does to the distribution); Q is the first i bins alone
    merged into `levels` groups of about i / levels bins, each group's count spread evenly over
    its non-empty bins (what `levels` levels over [0, i) can still tell apart). The threshold is
    the i with the smallest KL(P || Q), at the upper edge of bin i - 1. Where Q is 0 and P is
    not (counts clipped into an empty bin), Q gets `eps` before both are normalized, so KL stays
    finite but large.
    """
    half = hist.bins // 2
    counts = {None: hist.magnitudes, "positive": lambda: hist.counts[half:],
              "negative": lambda: hist.counts[:half][::-1]}[side]().astype(np.float64)
    nonzero = np.nonzero(counts)[0]
    if nonzero.size == 0:
        return 0.0
    last = int(nonzero[-1]) + 1
    if last <= levels:
        return last * hist.width  # fewer bins than levels: nothing to gain by clipping
    suffix = np.cumsum(counts[::-1])[::-1]  # suffix[i] = counts[i:].sum()
    best_kl, best_i = math.inf, last
    for i in range(levels, last + 1):
        kept = counts[:i]
        if not kept.any():
            continue
        p = kept.copy()
        if i < len(counts):
            p[-1] += suffix[i]
        starts = (np.arange(levels) * i) // levels
        used = kept > 0
        group_sum = np.add.reduceat(kept, starts)
        group_used = np.add.reduceat(used.astype(np.float64), starts)
        group_of = np.repeat(np.arange(levels), np.diff(np.append(starts, i)))
        q = np.where(used, (group_sum / np.maximum(group_used, 1.0))[group_of], 0.0)
        p /= p.sum()
        q /= q.sum()
        mask = p > 0
        q[mask & (q == 0)] = eps
        q /= q.sum()
        kl = float(np.sum(p[mask] * np.log(p[mask] / q[mask])))
        if kl < best_kl:
            best_kl, best_i = kl, i
    return best_i * hist.width


def mse_range(hist, lo, hi, steps, symmetric, zeros=0):
    """(lo, hi) within the observed [lo, hi] whose uniform grid of `steps` steps leaves the least
    expected squared error over the histogram: each value inside the range is off by a rounding
    error of step^2 / 12 on average (the grid is several bins wide), each value outside it by its
    distance to the range (at its bin's centre). Candidates are MSE_FRACTIONS of each end: with
    `symmetric` [-t, t] (s8, zero point 0), for a non-negative tensor [0, t], else every pair of
    fractions of the two ends (they are searched independently)."""
    centers = (np.arange(hist.bins) - hist.bins // 2 + 0.5) * hist.width
    counts = hist.counts.astype(np.float64)
    total = counts.sum()
    if total == 0:
        return lo, hi
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if symmetric:
        top = max(-lo, hi)
        ends_lo, ends_hi = -MSE_FRACTIONS * top, MSE_FRACTIONS * top
    else:
        ends_lo, ends_hi = MSE_FRACTIONS * lo, MSE_FRACTIONS * hi
    # Squared distance and count of the values below each lower end and above each upper end.
    below = np.clip(ends_lo[:, None] - centers[None, :], 0.0, None)
    above = np.clip(centers[None, :] - ends_hi[:, None], 0.0, None)
    below_err, below_n = (below ** 2) @ counts, (below > 0) @ counts
    above_err, above_n = (above ** 2) @ counts, (above > 0) @ counts
    if symmetric:
        step = (ends_hi - ends_lo) / steps
        err = below_err + above_err + (total - zeros - below_n - above_n) * step ** 2 / 12.0
        k = int(np.argmin(err))
        return float(ends_lo[k]), float(ends_hi[k])
    step = (ends_hi[None, :] - ends_lo[:, None]) / steps
    inside = total - zeros - below_n[:, None] - above_n[None, :]
    err = below_err[:, None] + above_err[None, :] + inside * step ** 2 / 12.0
    i, j = np.unravel_index(int(np.argmin(err)), err.shape)
    return float(ends_lo[i]), float(ends_hi[j])


class RangeCollector:
    """The calibrated range of one tensor by `method` (one of METHODS), fed sample by sample."""

    def __init__(self, method="minmax", percentile=99.999, bins=DEFAULT_BINS):
        check_method(method, percentile)
        self.method = method
        self.percentile = percentile
        self.lo, self.hi = math.inf, -math.inf
        self.hist = Histogram(bins) if method != "minmax" else None
        # Whether a sample held an infinity or a NaN: such a tensor cannot be quantized (an
        # attention mask's -inf would saturate to a finite value and stop masking).
        self.nonfinite = False
        self.zeros = 0  # values exactly 0: the zero point represents them with no rounding error

    def add(self, x):
        x = np.asarray(x)
        finite = x[np.isfinite(x)] if x.dtype.kind == "f" else x
        if finite.size != x.size:
            self.nonfinite = True
        if finite.size:
            self.zeros += int(np.count_nonzero(finite == 0))
            self.lo = min(self.lo, float(np.min(finite)))
            self.hi = max(self.hi, float(np.max(finite)))
        if self.hist is not None:
            self.hist.add(x)

    def tail_ratio(self):
        """|x| at the 99.99th percentile over |x| at the 99th, exact zeros left out: 1.51 for a
        normal distribution (or a Relu'd one), 2.0 for a Laplace one; larger for heavier tails."""
        p99 = percentile_abs(self.hist, 99.0, self.zeros)
        return percentile_abs(self.hist, 99.99, self.zeros) / p99 if p99 > 0 else 1.0

    def range(self, symmetric):
        """(lo, hi) to quantize to: within the observed min and max, clipped by the method.

        symmetric: the tensor becomes s8 with zero point 0, so one |x| threshold is wanted.
        Non-negative tensors are clipped at |x| too; tensors of both signs going to u8 by their
        two tails (percentile) or each side at its own KL threshold (entropy).
        """
        if self.lo > self.hi:
            raise ValueError("no finite value was seen in the calibration samples")
        if self.hist is None:
            return self.lo, self.hi
        one_sided = symmetric or self.lo >= 0.0
        if self.method == "mse" and self.tail_ratio() > MSE_TAIL_LIMIT:
            lo, hi = self.lo, self.hi  # a heavy tail: its rare large values are kept
        elif self.method == "mse":
            lo, hi = mse_range(self.hist, self.lo, self.hi, 254 if symmetric else 255, symmetric, self.zeros)
        elif self.method == "percentile":
            if one_sided:
                t = percentile_abs(self.hist, self.percentile)
                lo, hi = -t, t
            else:
                lo, hi = percentile_tails(self.hist, self.percentile)
        elif one_sided:
            # A u8 tensor of non-negative values has 256 levels over [0, t]; an s8 one 128 on
            # each side of zero.
            t = entropy_abs(self.hist, 128 if symmetric else 256)
            lo, hi = -t, t
        else:
            # A u8 tensor of both signs: its 255 steps are shared by the two sides in proportion
            # to their extents, so each side is searched with its share of the levels (a mostly
            # positive tensor, as after HardSwish, keeps nearly 256 on its positive side; with
            # 128 there the search clipped its long tail hard).
            share = self.hi / (self.hi - self.lo)
            positive = max(8, int(round(255 * share)))
            negative = max(8, 255 - positive)
            lo = -entropy_abs(self.hist, negative, side="negative")
            hi = entropy_abs(self.hist, positive, side="positive")
        return max(self.lo, lo), min(self.hi, hi)


def check_method(method, percentile):
    if method not in METHODS:
        raise ValueError(f"unknown calibration method {method!r}: expected one of {', '.join(METHODS)}")
    if not (isinstance(percentile, (int, float)) and 0.0 < percentile <= 100.0):
        raise ValueError(f"percentile must be in (0, 100], got {percentile!r}")
