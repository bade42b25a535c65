"""NVFP4 stochastic rounding (qs.quantize ... rng(...)): every byte of every
inner tensor equals the independent numpy reference (qs_reference.py:
randomgen's Philox4x32-10 with the documented counter assignment, the E2M1
grid rounding written from its definition) on random inputs with specials,
for each usage, 1-D and 2-D blocks, RHT, 3-D shapes and rng states using
all 64 bits of seed and offset, and a GEMM's product (whose amax the GEMM
kernel takes on the GPU); plus the properties stochastic rounding is for:
unbiased on average, reproducible for one state, independent across
offsets and between the row-wise and column-wise codes."""

import numpy as np
import pytest

import harness as h
import qs_reference as ref

USAGES = {"row": dict(columnwise=False), "col": dict(rowwise=False), "both": {}}
RNG = "tensor<2xi64>"


def sr_module(shape, nominal, q):
    t, qt = h.ttype(shape, nominal), h.qtype(shape, nominal, q)
    return f"""func.func @quantize(%x: {t}, %rng: {RNG}) -> {qt} {{
  %q = qs.quantize %x rng(%rng : {RNG}) : {t} -> {qt}
  return %q : {qt}
}}"""


def run_sr(x, q, shape, nominal, state):
    expected, _ = ref.quantize(x, q, nominal, rng=state)
    outs = h.run(sr_module(shape, nominal, q), "quantize",
                 [h.to_npy(x, nominal), np.array(state, dtype=np.int64)], len(expected))
    return expected, outs


def check(rng, params, shape, nominal, state):
    q = h.quantizer("nvfp4", stochastic_rounding=True, **params)
    x = h.random_input(rng, shape, nominal)
    with np.errstate(all="ignore"):
        expected, outs = run_sr(x, q, shape, nominal, state)
    for (name, want), got in zip(expected.items(), outs):
        h.assert_bytes_equal(got, want, f"nvfp4 SR {params} {shape} {nominal} {state} {name}")


STATES = [(0, 0), (2026, 7), (-1, 2**63 - 1), (0x123456789ABCDEF, -0x5555555555555556)]


@pytest.mark.parametrize("usage", list(USAGES))
@pytest.mark.parametrize("nominal", ["bf16", "f32"])
def test_random_inputs(rng, usage, nominal):
    for shape, state in [((64, 128), STATES[1]), ((48, 80), STATES[2]), ((2, 32, 64), STATES[3])]:
        check(rng, USAGES[usage], shape, nominal, state)


@pytest.mark.parametrize("params", [dict(with_2d_quantization=True),
                                    dict(with_rht=True),
                                    dict(with_rht=True, with_2d_quantization=True),
                                    dict(optimize_for_gemm=True)],
                         ids=["2d", "rht", "rht-2d", "swizzled"])
def test_options(rng, params):
    check(rng, params, (64, 96) if "with_2d_quantization" in params else (64, 128), "bf16", STATES[0])


def half_way_input(rows, cols):
    """Every 16th row and column 6 (the global amax and every row-wise and
    column-wise block's: the encode multiplier is 1 up to rounding), the
    other values half way between two E2M1 values: 1.25 (1 or 1.5) and, in
    every other row, -2.5 (-2 or -3)."""
    x = np.full((rows, cols), 1.25, dtype=np.float32)
    x[::2, 1::16] = -2.5
    x[:, ::16] = 6.0
    x[::16, :] = 6.0
    return x


def test_unbiased_and_independent():
    rows, cols = 256, 512
    x = half_way_input(rows, cols)
    q = h.quantizer("nvfp4", stochastic_rounding=True)
    expected, outs = run_sr(x, q, (rows, cols), "f32", (11, 0))
    names = list(expected)
    row = ref.unpack_nibbles(outs[names.index("rowwise_data")])
    col = ref.unpack_nibbles(outs[names.index("columnwise_data")])
    values = ref.decode(row, ref.E2M1)
    mid = x != 6.0
    pos = mid & (x > 0)
    neg = mid & (x < 0)
    # Each half-way value rounds up with probability 1/2: means within 5
    # standard deviations (0.25 / sqrt(n) for the 1.0/1.5 choice).
    assert set(np.unique(values[pos])) == {1.0, 1.5}
    assert set(np.unique(values[neg])) == {-2.0, -3.0}
    assert abs(values[pos].mean() - 1.25) < 5 * 0.25 / np.sqrt(pos.sum())
    assert abs(values[neg].mean() + 2.5) < 5 * 0.5 / np.sqrt(neg.sum())
    # Row-wise and column-wise codes draw from different streams: the same
    # element rounds the same way in both only about half the time.
    agree = (row[pos] == col.T[pos]).mean()
    assert 0.45 < agree < 0.55, agree
    # One state reproduces the codes; another offset changes about half.
    _, again = run_sr(x, q, (rows, cols), "f32", (11, 0))
    for got, want in zip(again, outs):
        h.assert_bytes_equal(got, want, "same rng state")
    _, other = run_sr(x, q, (rows, cols), "f32", (11, 1))
    changed = (ref.unpack_nibbles(other[names.index("rowwise_data")])[pos] != row[pos]).mean()
    assert 0.45 < changed < 0.55, changed


def test_grid_values_are_exact():
    # Values already on the E2M1 grid (after scaling) never move.
    rows, cols = 32, 64
    grid = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=np.float32)
    x = np.resize(np.concatenate([grid, -grid]), (rows, cols)).astype(np.float32)
    x[:, ::16] = 6.0
    q = h.quantizer("nvfp4", stochastic_rounding=True, columnwise=False)
    for state in STATES:
        _, outs = run_sr(x, q, (rows, cols), "f32", state)
        want = ref.e2m1_rn_sat(x)
        h.assert_bytes_equal(ref.unpack_nibbles(outs[0]), want, f"grid values {state}")


def test_rounding_thresholds():
    # Values on either side of their rounding threshold: element i of the
    # row-wise codes (random byte b_i) holds sign * f32(g + U_i s), U_i =
    # (b_i + 1/2) * 2^-8, or its neighbour 1 ulp below or above, for every
    # lower grid value g (spacing s): up iff U_i < (|v| - g) / s, strictly.
    # The global amax 2688 (= 6 * 448, so S_enc = 1) and a 6 in every other
    # 16-block (block scale 1) make the scaled values x itself.
    rows, cols, state = 16, 256, STATES[1]
    rbytes = ref.philox_bytes(*state, 0, rows * cols)
    u = (rbytes.astype(np.float64) + 0.5) * 2.0 ** -8
    grid = ref.E2M1_GRID.astype(np.float64)
    flat = np.zeros(rows * cols, dtype=np.float32)
    ties = []
    for i in range(rows * cols):
        if i % 16 == 0:
            flat[i] = 2688.0 if i == 0 else 6.0
            continue
        k, step = (i // 3) % 7, i % 3 - 1
        g, s = grid[k], grid[k + 1] - grid[k]
        a = np.float32(g + u[i] * s)
        a = np.nextafter(a, np.float32(np.inf if step > 0 else -np.inf)) if step else a
        flat[i] = -a if (i // 21) % 2 else a
        if i >= 16 and (float(a) - g) / s == u[i]:
            ties.append(i)
    x = flat.reshape(rows, cols)
    q = h.quantizer("nvfp4", stochastic_rounding=True, columnwise=False)
    expected, outs = run_sr(x, q, (rows, cols), "f32", state)
    got = ref.unpack_nibbles(outs[0]).reshape(-1)
    h.assert_bytes_equal(outs[0], expected["rowwise_data"], "threshold values")
    # The scaled values are x: blocks 1.. round x by the definition.
    want = ref.e2m1_stochastic(flat, rbytes)
    h.assert_bytes_equal(got[16:], want[16:], "threshold values, v = x")
    # Exact ties (frac == U) round down; both directions occur.
    assert len(ties) > 100, len(ties)
    down = ref.e2m1_rn_sat(np.copysign(grid[(np.arange(rows * cols) // 3) % 7],
                                       flat).astype(np.float32))
    h.assert_bytes_equal(got[ties], down[ties], "ties round down")
    assert 0.2 < (got[16:] != ref.e2m1_rn_sat(flat)[16:]).mean() < 0.8


def test_gemm_product():
    # A GEMM's product quantized with stochastic rounding: on the GPU the
    # GEMM's epilogue takes the product's amax for the cast kernel (no amax
    # pass). The codes equal the reference's quantize of the same product
    # (returned by a second run of the GEMM alone).
    q = h.quantizer("nvfp4", stochastic_rounding=True)
    rng = np.random.default_rng(5)
    m, n, k = 128, 192, 256
    x = h.random_input(rng, (m, k), "bf16", specials=False, exponents=(-2, 2))
    w = h.random_input(rng, (n, k), "bf16", specials=False, exponents=(-2, 2))
    a, b = "!qs.tensor<128x256xbf16, #qs.nvfp4>", "!qs.tensor<192x256xbf16, #qs.nvfp4>"
    qt = h.qtype((m, n), "bf16", q)
    body = f"""  %qa = qs.quantize %x : tensor<128x256xbf16> -> {a}
  %qb = qs.quantize %w : tensor<192x256xbf16> -> {b}
  %y = qs.gemm %qa, %qb transpose_b : {a}, {b} -> tensor<128x192xbf16>"""
    product_module = f"""func.func @f(%x: tensor<128x256xbf16>, %w: tensor<192x256xbf16>) -> tensor<128x192xbf16> {{
{body}
  return %y : tensor<128x192xbf16>
}}"""
    module = f"""func.func @f(%x: tensor<128x256xbf16>, %w: tensor<192x256xbf16>, %rng: {RNG}) -> {qt} {{
{body}
  %q = qs.quantize %y rng(%rng : {RNG}) : tensor<128x192xbf16> -> {qt}
  return %q : {qt}
}}"""
    inputs = [h.to_npy(x, "bf16"), h.to_npy(w, "bf16")]
    (product,) = h.run(product_module, "f", inputs, 1)
    state = (77, 3)
    expected, _ = ref.quantize(h.from_npy(product, "bf16"), q, "bf16", rng=state)
    outs = h.run(module, "f", inputs + [np.array(state, np.int64)], len(expected))
    for (name, want), got in zip(expected.items(), outs):
        h.assert_bytes_equal(got, want, f"SR quantize of a GEMM product: {name}")
