"""The C/W/L family (Moffat et al.; cwl_eval): user models given by C_r, the chance a user at rank r goes on.

From the continuation probabilities C_r, cwl_eval derives W_r = \\prod_{s<r} C_s / \\sum_t \\prod_{s<t} C_s (the
attention rank r gets) and L_r = \\prod_{s<r} C_s (1 - C_r) (the chance the user stops at r), and reports five
numbers: the expected utility per item EU = \\sum_r W_r g_r (the measure itself), the expected total utility ETU =
\\sum_r L_r \\sum_{s \\le r} g_s, the expected cost per item EC = \\sum_r W_r c_r, the expected total cost ETC =
\\sum_r L_r \\sum_{s \\le r} c_s, and the expected depth ED = 1 / W_1. Each residual (ResEU, ...) is the same
number with every unjudged document given the largest gain 1, minus it with gain 0.

cwl_eval's conventions, as ir_measures' cwl_eval provider runs it: a grade g becomes the gain (clip(max(g, 0),
min_rel, max_rel) - min_rel) / (max_rel - min_rel) (a document in the qrels with a negative grade is judged, with
gain 0); the ranking is padded to :data:`CWL_DEPTH` ranks (cwl_eval's ``--max_depth``) with unjudged documents;
every document costs 1 (no cost file); documents keep the order given (the engine's tie order decides ties). An
empty ranking (a judged query the run lacks, with -c) scores 0 in every quantity.

Cost: one pass per user model (measure, parameters, cut-off), shared by its ten quantities through the context (the
residuals: a second pass, with unjudged gains 1). A pass covers only the ranks that can still be reached: a model
that stops at its cut-off k (SDCG, NERR8, NERR9, BPM@K) is computed to rank k, and the best case of a model whose
continuation is 0 at a gain of 1 (NERR8, NERR9) or once T is reached (BPM) one rank or T ranks past the longest
ranking; past those every term is exactly 0, so the sums are the same to the bit. The models that go on past the
ranking (INST, INSQ, NERR10, NERR11) are run over each query's own ranked documents only, and the tail from there to
:data:`CWL_DEPTH` (every gain the unjudged one, 0 or 1) is summed in closed form, O(1) per query (:func:`_tail`):
the sums differ from cwl_eval's loop over 1,000 ranks in the last digits only, and a query's value is the same alone
and in a batch (its sums stop at its own length, whatever the batch's width).

A pass runs rank-major, over (ranks, rankings) arrays: every sum over the ranks is one vectorised step per rank over
all rankings, in rank order (:func:`_rank_sums`), and the temporaries go into one workspace per batch
(:func:`_workspace`); the running product of NERR10 and NERR11 ends once every ranking's user has stopped (C_r = 0
at a gain of 1, :func:`_running_product`). The values are the same to the bit as the row-major passes'.
"""

from __future__ import annotations

import numpy as np

from .context import Context

#: cwl_eval's --max_depth (ir_measures passes max_n=1000): every ranking is cut or padded to this many ranks.
CWL_DEPTH = 1000
#: What a C/W/L measure reports: cwl_eval's output columns, EU (the measure) first.
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")


def cwl_gains(ctx: Context, min_rel: float, max_rel: float, best_case: bool, depth: int = CWL_DEPTH) -> np.ndarray:
    """(depth, n) gains in [0, 1] at ranks 1..depth, rank-major (one row per rank, one column per ranking): each
    grade scaled by (min_rel, max_rel); an unjudged document (outside the qrels) and every rank past the ranking gets
    0 (``best_case``: 1). Shared (read-only) by every model of the context with the same scale, case and depth; the
    scaled grades by every model with the same scale.

    Rank-major because a pass steps over the ranks: a running product or sum is then one vectorised operation over
    all rankings per rank (a sum over ranks, :func:`_rank_sums`, runs 10x faster than a cumulative sum along each
    row, and adds in the same order)."""

    def scaled_grades() -> tuple[np.ndarray, np.ndarray]:
        batch = ctx.batch
        width = min(batch.width, CWL_DEPTH)
        known = (batch.judged | ctx.pooled_unjudged)[:, :width] & ctx.retrieved[:, :width]
        scaled = np.maximum(batch.grades[:, :width], 0.0)
        np.clip(scaled, min_rel, max_rel, out=scaled)
        np.subtract(scaled, min_rel, out=scaled)
        np.divide(scaled, max_rel - min_rel, out=scaled)
        return np.ascontiguousarray(known.T), np.ascontiguousarray(scaled.T)

    def gains() -> np.ndarray:
        known, scaled = ctx.shared(("cwl-scaled", min_rel, max_rel), scaled_grades)
        width = min(known.shape[0], depth)
        unknown = 1.0 if best_case else 0.0
        if width == depth:
            return np.where(known[:depth], scaled[:depth], unknown)
        out = np.full((depth, ctx.batch.size), unknown)
        out[:width] = np.where(known[:width], scaled[:width], unknown)
        return out

    return ctx.shared(("cwl-gains", min_rel, max_rel, best_case, depth), gains)


def _reached_depth(name: str, cutoff: int, parameter: float, best_case: bool, width: int) -> int:
    """The ranks a pass of model ``name`` must cover: past them its continuation has been 0, so every term is 0.

    ``width``: the batch's longest ranking; ``cutoff``: k, or CWL_DEPTH + 1 without one."""
    depth = CWL_DEPTH
    if name in ("SDCG", "NERR8", "NERR9", "BPM"):  # C_r = 0 from rank k on
        depth = min(depth, cutoff)
    if best_case and name in ("NERR8", "NERR9"):  # C_r has the factor 1 - g_r, 0 past the ranking
        depth = min(depth, width + 1)
    if best_case and name == "BPM" and np.isfinite(parameter):  # the gain so far reaches T within ceil(T) ranks
        depth = min(depth, width + max(0, int(np.ceil(parameter))) + 1)
    return max(1, depth)


def _ranks(depth: int) -> np.ndarray:
    """(depth, 1): the ranks 1..depth as a column, against rank-major arrays."""
    return np.arange(1, depth + 1, dtype=np.float64)[:, None]


def _workspace(ctx: Context, depth: int) -> np.ndarray:
    """(3, depth + 1, n): the buffers the C/W/L passes over ``depth`` ranks of one context write their temporaries
    into, allocated once per context. A pass runs to its end before the next one starts and returns only arrays of
    its own, so no buffer outlives the pass that filled it. (A fresh temporary of 1,000 ranks per query costs more
    in page faults than in arithmetic, and a pass made about ten.)"""
    return ctx.shared(("cwl-workspace", depth), lambda: np.empty((3, depth + 1, ctx.batch.size)))


def _product(left: np.ndarray, right: np.ndarray, buffer: np.ndarray) -> np.ndarray:
    """left * right, written into ``buffer`` when it has the product's shape (a column times a column stays one)."""
    fits = np.broadcast_shapes(left.shape, right.shape) == buffer.shape
    return np.multiply(left, right, out=buffer if fits else None)


def _continuation(name: str, gains: np.ndarray, so_far: np.ndarray, cutoff: int, parameter: float,
                  out: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """C_r at ranks 1..depth (the rows of ``gains``, rank-major) for each ranking: the user model of measure
    ``name``; ``so_far`` the gain up to each rank (the cumulative sum of ``gains``). Written into ``out`` (and
    ``scratch``, both shaped as ``gains``); a model whose C_r depends on the rank alone (SDCG, INSQ) gives one
    column, (depth, 1), for every ranking."""
    ranks = _ranks(gains.shape[0])
    before_k = ranks < cutoff
    if name == "SDCG":  # DCG's discount 1 / log2(r + 1) as a stopping model, cut at k
        return np.where(before_k, (np.log(ranks + 1) / np.log(2.0)) / (np.log(ranks + 2) / np.log(2.0)), 0.0)
    if name == "INSQ":
        return ((ranks + 2.0 * parameter - 1.0) / (ranks + 2.0 * parameter)) ** 2.0
    if name == "INST":  # x_r = r + T + T_r, T_r = T - (the gain so far): the gain still wanted after rank r
        x = np.add(ranks + parameter, np.subtract(parameter, so_far, out=out), out=out)
        return np.square(np.divide(np.subtract(x, 1.0, out=scratch), x, out=out), out=out)
    if name == "BPM":  # go on while the gain so far is below T and the cost so far (r) below K
        np.copyto(out, (so_far < parameter) & before_k)
        return out
    leave = np.subtract(1.0, gains, out=out)  # 1 - g_r
    if name == "NERR8":
        out[~before_k[:, 0]] = 0.0
        return leave
    if name == "NERR9":
        np.multiply(ranks / (ranks + 1.0), leave, out=out)
        out[~before_k[:, 0]] = 0.0
        return out
    if name == "NERR10":
        return np.multiply(parameter, leave, out=out)
    if name == "NERR11":
        return np.multiply(((ranks + 2.0 * parameter - 1.0) / (ranks + 2.0 * parameter)) ** 2.0, leave, out=out)
    raise KeyError(name)


#: The models whose tail past the ranking is summed in closed form (:func:`_tail`).
CLOSED_TAIL = ("INST", "INSQ", "NERR10", "NERR11")


def _trigamma(x: np.ndarray) -> np.ndarray:
    """psi_1(x) = \\sum_{j \\ge 0} 1 / (x + j)^2 for x > 0: the recurrence psi_1(x) = 1 / x^2 + psi_1(x + 1) up to
    x >= 20, then the asymptotic series (its first omitted term below 1e-17 of the value there)."""
    x = np.asarray(x, dtype=np.float64)
    shift = np.maximum(0, np.ceil(20.0 - x)).astype(np.int64)
    head = np.zeros_like(x)
    for j in range(int(shift.max(initial=0))):
        head += np.where(j < shift, 1.0 / (x + j) ** 2, 0.0)
    y = x + shift
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv * (1.0 + inv * (0.5 + inv * (1.0 / 6.0 + inv2 * (-1.0 / 30.0 + inv2 * (1.0 / 42.0 + inv2 * (
        -1.0 / 30.0 + inv2 * (5.0 / 66.0 + inv2 * (-691.0 / 2730.0 + inv2 * 7.0 / 6.0))))))))
    return head + series


def _tail(name: str, parameter: float, best_case: bool, ranked: np.ndarray, so_far_n: np.ndarray,
          reach_next: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sum_{r=n+1}^{D} prod_{s<r} C_s, prod_{s \\le D} C_s) over the ranks past each query's ``ranked`` documents
    (n, at most D = CWL_DEPTH), every gain there the unjudged one (0, ``best_case``: 1); ``so_far_n`` the gain up to
    rank n, ``reach_next`` prod_{s \\le n} C_s.

    With g = 0 the gain so far stays G_n, so INST's, INSQ's and NERR11's C_r = ((x_r - 1) / x_r)^2 with x_r = r + c
    (c = 2T, INST: 2T - G_n): the product telescopes to (x_n / x_{r-1})^2, a sum of inverse squares, a difference of
    trigammas. NERR10's C_r = p, and INST's with g = 1 (x_r stays n + 2T - G_n) is constant: a geometric series; the
    NERR models with g = 1 stop at rank n + 1 (C = 0 there)."""
    m = (CWL_DEPTH - ranked).astype(np.float64)  # ranks in the tail
    n = ranked.astype(np.float64)
    if name == "INSQ" or (not best_case and name in ("INST", "NERR11")):
        c = 2.0 * parameter - (so_far_n if name == "INST" else 0.0)
        start = n + c  # x_n
        sums = reach_next * start ** 2 * (_trigamma(start) - _trigamma(start + m))
        return np.where(m > 0, sums, 0.0), reach_next * (start / (start + m)) ** 2
    if name == "INST":
        x = n + 2.0 * parameter - so_far_n
        q = ((x - 1.0) / x) ** 2
        one_minus_q = (2.0 * x - 1.0) / (x * x)
    elif best_case:  # NERR10, NERR11: 1 - g = 0
        q = np.zeros_like(n)
        one_minus_q = np.ones_like(n)
    else:  # NERR10
        q = np.full_like(n, parameter)
        one_minus_q = np.full_like(n, 1.0 - parameter)
    with np.errstate(divide="ignore", invalid="ignore"):
        power = q ** m
        series = np.where(one_minus_q == 0.0, m, -np.expm1(m * np.log(q)) / one_minus_q)
    series = np.where(q == 0.0, np.minimum(m, 1.0), series)
    return reach_next * series, reach_next * power


def _rank_sums(values: np.ndarray, size: int) -> np.ndarray:
    """(size,) each ranking's sum over the rows (ranks) of rank-major ``values``, in rank order; a single column
    (one ranking, or a term that depends on the rank alone) is every ranking's.

    In rank order so that a ranking's sum does not depend on the batch: a plain sum along a row adds pairwise, in
    an order set by the width, and a query alone and in a batch would differ in the last digit. numpy sums the
    rows of a (depth, n >= 2) array in order, one rank after the other (vectorised over the rankings; the same
    bits as a cumulative sum's last entry, 10x faster); one column it sums pairwise, so that takes the
    cumulative sum."""
    if values.shape[1] == 1:
        return np.broadcast_to(np.cumsum(values[:, 0])[-1:], (size,))
    return np.add.reduce(values, axis=0)


#: The models of :data:`CLOSED_TAIL` whose C_r has the factor 1 - g_r: 0 at a gain of 1, where the user stops.
STOPPING = ("NERR10", "NERR11")
#: Ranks per step of a running product that may end early (:func:`_running_product`).
_PRODUCT_BLOCK = 64


def _running_product(continuation: np.ndarray, products: np.ndarray, stops: bool) -> int:
    """Fill ``products[j]`` = prod_{s <= j} C_s (``products[0]`` = 1) over the rows of ``continuation`` and return
    how many ranks d were reached: with d below the depth, ``products[d]`` is 0 for every ranking, and so is every
    product after it (those rows are left unwritten). ``stops``: C_r can be 0, so the product runs in blocks of
    ranks (each block carrying on from the last product before it, the same multiplications in the same order)
    and ends at the first block after which every ranking's product is 0."""
    depth = continuation.shape[0]
    products[0] = 1.0
    if not stops:
        np.cumprod(continuation, axis=0, out=products[1:])
        return depth
    for start in range(0, depth, _PRODUCT_BLOCK):
        end = min(depth, start + _PRODUCT_BLOCK)
        block = products[start:end + 1]
        block[1:] = continuation[start:end]
        np.cumprod(block, axis=0, out=block)
        if end < depth and not products[end].any():
            return end
    return depth


def _closed_tail_model(name: str, gains: np.ndarray, so_far: np.ndarray, parameter: float, best_case: bool,
                       ranked: np.ndarray, work: np.ndarray) -> np.ndarray:
    """(n, 5) EU, ETU, EC, ETC, ED of a model of :data:`CLOSED_TAIL`: the sums over each query's ``ranked``
    documents (``gains`` and ``so_far`` rank-major, as wide as the longest), then the tail from there to CWL_DEPTH
    by :func:`_tail` (stop_r = reach_r - reach_{r+1}, so the tail's sum of stop_r r is n reach_{n+1} + sum reach -
    D reach_{D+1}). ``work``: :func:`_workspace` of the width."""
    width, size = gains.shape
    continuation = _continuation(name, gains, so_far, CWL_DEPTH + 1, parameter, work[0, :width], work[1, :width])
    columns = np.arange(size)
    full = continuation.shape[1] == size
    # prod_{s<=j} C_s, j = 0..width; past the ranks reached every one is 0, and so is every term of the sums
    products = work[2] if full else np.empty((width + 1, 1))
    reached = _running_product(continuation, products, full and name in STOPPING)
    reach_next = products[np.minimum(ranked, reached), columns if products.shape[1] > 1 else 0]
    reach = products[:reached]
    if (ranked < reached).any():  # a shorter ranking's sums stop at its own length: its reach past it is 0 in them
        reach = np.multiply(reach, np.arange(reached)[:, None] < ranked, out=work[2, :reached])
    leave = np.subtract(1.0, continuation[:reached], out=continuation[:reached])  # 1 - C_r
    stop = _product(reach, leave, work[0, :reached])
    scratch = work[1, :reached]
    so_far_n = np.where(ranked > 0, so_far[np.maximum(ranked - 1, 0), columns], 0.0)
    tail, reach_end = _tail(name, parameter, best_case, ranked, so_far_n, reach_next)
    unknown = 1.0 if best_case else 0.0
    depth = float(CWL_DEPTH)
    total = _rank_sums(reach, size) + tail
    eu = (_rank_sums(_product(reach, gains[:reached], scratch), size) + unknown * tail) / total
    etu = _rank_sums(_product(stop, so_far[:reached], scratch), size) + so_far_n * (reach_next - reach_end) \
        + unknown * (tail - (depth - ranked) * reach_end)
    etc = _rank_sums(_product(stop, _ranks(reached), scratch), size) + ranked * reach_next + tail - depth * reach_end
    return np.stack([eu, etu, total / total, etc, total], axis=1)


def _expectations(continuation: np.ndarray, gains: np.ndarray, so_far: np.ndarray, work: np.ndarray) -> np.ndarray:
    """(n, 5) EU, ETU, EC, ETC, ED of each ranking under ``continuation`` (rank-major, as ``gains``; or one
    column for all), every document costing 1. ``work``: :func:`_workspace` of the depth."""
    depth, size = gains.shape
    # prod_{s<r} C_s: 1 at rank 1, then the running product
    reach = work[2, :depth] if continuation.shape[1] == size else np.empty_like(continuation)
    reach[0] = 1.0
    np.cumprod(continuation[:-1], axis=0, out=reach[1:])
    first = 1.0 / _rank_sums(reach, size)
    attention = _product(reach, first, work[1, :depth])
    expected_cost = _rank_sums(attention, size)
    expected_utility = _rank_sums(np.multiply(attention, gains, out=attention), size)
    stop = _product(reach, np.subtract(1.0, continuation, out=continuation), work[0, :depth])
    scratch = work[1, :depth]
    return np.stack([expected_utility, _rank_sums(_product(stop, so_far, scratch), size), expected_cost,
                     _rank_sums(_product(stop, _ranks(depth), scratch), size), 1.0 / first], axis=1)


def _user_model(ctx: Context, name: str, cutoff: int, parameter: float, min_rel: float, max_rel: float,
                best_case: bool) -> np.ndarray:
    """(n, 5) EU, ETU, EC, ETC, ED of model ``name``: one pass, shared by every quantity of the model."""
    closed = name in CLOSED_TAIL
    width = min(ctx.batch.width, CWL_DEPTH)
    depth = max(1, width) if closed else _reached_depth(name, cutoff, parameter, best_case, ctx.batch.width)
    gains = cwl_gains(ctx, min_rel, max_rel, best_case, depth)
    so_far = ctx.shared(("cwl-gain-so-far", min_rel, max_rel, best_case, depth), lambda: np.cumsum(gains, axis=0))
    work = _workspace(ctx, depth)
    if closed:
        ranked = np.minimum(ctx.batch.lengths, width).astype(np.int64)
        return _closed_tail_model(name, gains, so_far, parameter, best_case, ranked, work)
    continuation = _continuation(name, gains, so_far, cutoff, parameter, work[0, :depth], work[1, :depth])
    return _expectations(continuation, gains, so_far, work)


def cwl_measure(name: str, default: float):
    """The kernel of C/W/L measure ``name``: params (T or p, min_rel, max_rel, index into :data:`QUANTITIES`),
    ``default`` the first when none are given (INST's T = 1, NERR10's p = 0.9)."""

    def kernel(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] | None = None) -> np.ndarray:
        parameter, min_rel, max_rel, quantity = params if params is not None else (default, 0.0, 1.0, 0.0)
        out = np.zeros((ctx.batch.size, cutoffs.shape[0]))
        residual = quantity >= 5
        for j, cutoff in enumerate(cutoffs):
            k = int(cutoff) if cutoff > 0 else CWL_DEPTH + 1
            values = [ctx.shared(model, lambda model=model: _user_model(ctx, *model[1:]))
                      for model in [("cwl", name, k, parameter, min_rel, max_rel, best_case)
                                    for best_case in ((False, True) if residual else (False,))]]
            column = int(quantity) % 5
            out[:, j] = values[-1][:, column] - values[0][:, column] if residual else values[0][:, column]
        # An empty ranking is a judged query the run lacks (-c): 0, as ir_measures counts it, not a user model run
        # over 1000 unjudged ranks.
        out[ctx.batch.lengths == 0] = 0.0
        return out

    kernel.__name__ = f"cwl_{name.lower()}"
    return kernel


bejewelled_player_model = cwl_measure("BPM", 1.0)
bejewelled_player_model.__doc__ = (r"BPM@K: C_r = 1 while \sum_{s \le r} g_s < T and r < K, else 0 (Zhang et al. "
                                   r"2017, static; T = 1); EU = \sum_r W_r g_r (C/W/L).")
inst = cwl_measure("INST", 1.0)
inst.__doc__ = (r"INST: C_r = \left(\frac{r + T + T_r - 1}{r + T + T_r}\right)^2, T_r = T - \sum_{s \le r} g_s "
                r"(Moffat et al. 2015; T = 1); EU = \sum_r W_r g_r (C/W/L).")
insq = cwl_measure("INSQ", 1.0)
insq.__doc__ = (r"INSQ: C_r = \left(\frac{r + 2T - 1}{r + 2T}\right)^2 (Moffat et al. 2012; T = 1); "
                r"EU = \sum_r W_r g_r (C/W/L).")
scaled_dcg = cwl_measure("SDCG", 0.0)
scaled_dcg.__doc__ = (r"SDCG@k: C_r = \log_2(r + 1) / \log_2(r + 2) for r < k, else 0: DCG@k over the DCG@k of k "
                      r"documents of gain 1 (cwl_eval's NDCG-k); EU = \sum_r W_r g_r (C/W/L).")
nerr_eq8 = cwl_measure("NERR8", 0.0)
nerr_eq8.__doc__ = (r"NERR8@k: C_r = 1 - g_r for r < k, else 0 (Azzopardi et al. 2021, eq. 8); "
                    r"EU = \sum_r W_r g_r (C/W/L).")
nerr_eq9 = cwl_measure("NERR9", 0.0)
nerr_eq9.__doc__ = (r"NERR9@k: C_r = \frac{r}{r + 1}(1 - g_r) for r < k, else 0 (Azzopardi et al. 2021, eq. 9); "
                    r"EU = \sum_r W_r g_r (C/W/L).")
nerr_eq10 = cwl_measure("NERR10", 0.9)
nerr_eq10.__doc__ = (r"NERR10: C_r = p (1 - g_r) (Azzopardi et al. 2021, eq. 10; p = 0.9); "
                     r"EU = \sum_r W_r g_r (C/W/L).")
nerr_eq11 = cwl_measure("NERR11", 1.0)
nerr_eq11.__doc__ = (r"NERR11: C_r = \left(\frac{r + 2T - 1}{r + 2T}\right)^2 (1 - g_r) (Azzopardi et al. 2021, "
                     r"eq. 11; T = 1); EU = \sum_r W_r g_r (C/W/L).")

#: INST's smallest T: from it on C_r = ((x - 1) / x)^2, x = r + 2T - (the gain so far) >= 2T, lies in [0, 1].
INST_MIN_T = 0.25
#: Each C/W/L measure's own parameter as ir_measures names it, with its default (None: only a cut-off).
CWL_PARAMETER: dict[str, tuple[str, float] | None] = {
    "BPM": ("T", 1.0), "INST": ("T", 1.0), "INSQ": ("T", 1.0), "SDCG": None, "NERR8": None, "NERR9": None,
    "NERR10": ("p", 0.9), "NERR11": ("T", 1.0),
}
