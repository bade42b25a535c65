"""Independent reference of TransformerEngine's quantized formats.

Written from ../shared/spec/te-formats.md (sections 0.3, 2-5, 6, 8) with numpy
and ml_dtypes, not from the C++ lowering: conversions use ml_dtypes' own
round-to-nearest-even casts with explicit saturation, scale rules are the
spec's formulas evaluated in numpy float32, the GEMM is computed in float64.
Used only by the tests, to check `qs-run` (the CPU reference lowering) byte
for byte.

Conventions shared with the compiler (documented in docs/Numerics.md): NaN
inputs do not contribute to amax (fmaxf); every NaN quantizes to the
format's positive canonical NaN (0x7F for FP8, 0x7 (=+6) for E2M1); padding
of scale buffers is zero.
"""

import math

import ml_dtypes
import numpy as np

F32 = np.float32
FLT_MAX = F32(np.finfo(np.float32).max)
BF16_MAX = F32(3.3895313892515355e38)
E4M3 = ml_dtypes.float8_e4m3fn
E5M2 = ml_dtypes.float8_e5m2
E2M1 = ml_dtypes.float4_e2m1fn
FP8 = {"f8E4M3FN": (E4M3, F32(448.0)), "f8E5M2": (E5M2, F32(57344.0))}


def roundup(a, b):
    return -(-a // b) * b


def ceil_div(a, b):
    return -(-a // b)


def flat2d(x):
    """TE's 2-D view: K = last dim, M = product of the others."""
    return x.reshape(-1, x.shape[-1])


# --- rounding primitives (spec 0.3) -----------------------------------------

def cast_rn_sat(v, dtype, max_value):
    """f32 -> FP8/FP4 codes (uint8), RNE, saturating, NaN -> canonical."""
    v = np.asarray(v, dtype=F32)
    nan = np.isnan(v)
    clipped = np.clip(v, -max_value, max_value)
    codes = clipped.astype(dtype).view(np.uint8).copy()
    codes[nan] = 0x7 if dtype is E2M1 else 0x7F
    return codes


def fp8_rn_sat(v, fp8):
    dtype, max_value = FP8[fp8]
    return cast_rn_sat(v, dtype, max_value)


def e2m1_rn_sat(v):
    return cast_rn_sat(v, E2M1, F32(6.0))


def philox_bytes(seed, offset, stream, n):
    """The random bytes of elements 0 .. n-1 of a representation under
    stochastic rounding (docs/Numerics.md): Philox4x32-10 (randomgen's) with
    key (lo32(seed), hi32(seed)) and, for group g, counter (lo32(g), hi32(g)
    + 2^31 * stream, lo32(offset), hi32(offset)); element i takes byte i % 4
    (little-endian) of word (i // 4) % 4 of group i // 16: the byte stream
    of the groups' words. As 128-bit integers the groups' counters are
    consecutive from stream * 2^63 + offset * 2^64 (randomgen increments
    before its first block)."""
    from randomgen import Philox
    groups = ceil_div(n, 16)
    start = (stream << 63) | ((int(offset) % 2**64) << 64)
    g = Philox(key=int(seed) % 2**64, counter=(start - 1) % 2**128, number=4, width=32)
    words = g.random_raw(4 * groups).astype("<u4")
    return words.view(np.uint8)[:n].copy()


E2M1_GRID = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=F32)


def e2m1_stochastic(v, rbytes):
    """f32 -> E2M1 codes rounding |v| to its lower or upper grid neighbour,
    up iff (byte + 1/2) * 2^-8 < (|v| - lower) / (upper - lower); |v| >= 6
    saturates, NaN -> 0x7, the sign is kept (-0 -> 0x8)."""
    v = np.asarray(v, dtype=F32)
    a = np.abs(v)
    finite = ~np.isnan(a)
    idx = np.clip(np.searchsorted(E2M1_GRID, np.where(finite, a, 0), side="right") - 1, 0, 6)
    lower, upper = E2M1_GRID[idx], E2M1_GRID[idx + 1]
    p = ((a - lower) / (upper - lower)).astype(F32)
    u = (np.asarray(rbytes, dtype=np.uint8).astype(F32) + F32(0.5)) * F32(2.0 ** -8)
    magnitude = np.where(a >= F32(6.0), F32(6.0), np.where(u < p, upper, lower)).astype(F32)
    value = np.where(finite, np.copysign(magnitude, v), v).astype(F32)
    return e2m1_rn_sat(value)


def decode(codes, dtype):
    return np.asarray(codes, dtype=np.uint8).view(dtype).astype(F32)


def e8m0_ceil(p):
    """Smallest power of two >= p as an E8M0 byte (p >= 0)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.zeros(p.shape, dtype=np.uint8)
    for idx, value in np.ndenumerate(p):
        if math.isnan(value):
            out[idx] = 0xFF
        elif math.isinf(value):
            out[idx] = 0xFE
        elif value == 0:
            out[idx] = 0
        else:
            mantissa, exponent = math.frexp(value)  # value = m * 2^e, m in [0.5, 1)
            e = exponent - 1 if mantissa == 0.5 else exponent
            out[idx] = min(max(e + 127, 0), 254)
    return out


def e8m0_value(e):
    """2^(e-127) as f32 (0xFF -> NaN)."""
    e = np.asarray(e, dtype=np.int64)
    out = np.ldexp(1.0, e - 127).astype(F32)
    return np.where(e == 255, F32(np.nan), out).astype(F32)


def e8m0_reciprocal(e):
    """2^(127-e) as f32 (0xFF -> NaN)."""
    e = np.asarray(e, dtype=np.int64)
    out = np.ldexp(1.0, 127 - e).astype(F32)
    return np.where(e == 255, F32(np.nan), out).astype(F32)


def amax(x, axis=None):
    """max |x| ignoring NaN, 0 for an empty or all-NaN set (fmaxf from 0)."""
    a = np.abs(np.asarray(x, dtype=F32))
    a = np.where(np.isnan(a), F32(0), a)
    return a.max(axis=axis, initial=F32(0)).astype(F32)


def compute_scale_from_amax(amax_value, fp8_max, pow2, eps, value_for_inf):
    amax_value = F32(amax_value)
    if amax_value < F32(eps):
        amax_value = F32(eps)
    if np.isinf(amax_value) or np.isnan(amax_value) or amax_value == 0:
        return F32(1.0)
    scale = F32(F32(fp8_max) / amax_value)
    if np.isinf(scale):
        scale = F32(value_for_inf)
    if pow2:
        scale = np.array([scale], dtype=F32).view(np.uint32)
        scale = (scale & np.uint32(0xFF800000)).view(F32)[0]
    return F32(scale)


def swizzle(g):
    """Store G [R, C] (R % 128 == 0, C % 4 == 0) in cuBLAS's 128x4 order."""
    rows, cols = g.shape
    out = np.zeros(rows * cols, dtype=g.dtype)
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    offset = (((i // 128) * (cols // 4) + j // 4) * 512 + (i % 32) * 16
              + ((i % 128) // 32) * 4 + (j % 4))
    out[offset.ravel()] = g.ravel()
    return out


def pad(g, shape):
    out = np.zeros(shape, dtype=g.dtype)
    out[: g.shape[0], : g.shape[1]] = g
    return out


def input_max(nominal):
    return {"bf16": BF16_MAX, "f16": F32(65504.0), "f32": FLT_MAX}[nominal]


# --- per-tensor FP8 (spec 2) ------------------------------------------------

def quantize_fp8_per_tensor(x, q, chip_tn_only=True, scale=None, amax_state=None,
                            global_amax=None):
    """x: f32 array of the logical shape. Returns {name: array}, [updated amax].
    global_amax: current scaling's given amax (TE's amax reduction, §2.c
    step 2) in place of max|x|."""
    x2 = flat2d(x).astype(F32)
    m, k = x2.shape
    a = amax(x2) if global_amax is None else F32(global_amax)
    if q["family"] == "fp8_current":
        s = compute_scale_from_amax(a, FP8[q["fp8_dtype"]][1], q["force_pow_2_scales"],
                                    q["amax_epsilon"], FLT_MAX)
    else:
        s = F32(scale)
    codes = fp8_rn_sat(x2 * s, q["fp8_dtype"])
    out = {}
    if q["rowwise"] or not chip_tn_only:
        out["data"] = codes.reshape(x.shape)
    if q["columnwise"] and chip_tn_only:
        out["transpose"] = codes.T.copy().reshape((x.shape[-1],) + x.shape[:-1])
    out["scale_inv"] = np.array([F32(1.0) / s], dtype=F32)
    updated = None
    if q["family"] == "fp8_delayed":
        updated = np.array([np.fmax(F32(amax_state), a)], dtype=F32)
    return out, updated


def dequantize_fp8_per_tensor(bufs, shape, q):
    m = int(np.prod(shape[:-1])); k = shape[-1]
    dtype = FP8[q["fp8_dtype"]][0]
    sinv = bufs["scale_inv"][0]
    if "data" in bufs:
        v = decode(bufs["data"].reshape(m, k), dtype) * sinv
    else:
        v = (decode(bufs["transpose"].reshape(k, m), dtype) * sinv).T
    return v.astype(F32).reshape(shape)


# --- MXFP8 (spec 3) ---------------------------------------------------------

def mx_block_exponent(block_amax, fp8):
    rcp = F32(1.0) / FP8[fp8][1]
    return e8m0_ceil((block_amax * rcp).astype(F32))


def quantize_mxfp8(x, q):
    x2 = flat2d(x).astype(F32)
    m, k = x2.shape
    fp8 = q["fp8_dtype"]
    out = {}
    if q["with_2d_quantization"]:
        tile = amax(x2.reshape(m // 32, 32, k // 32, 32), axis=(1, 3))
        e = mx_block_exponent(tile, fp8)
        mult = np.repeat(np.repeat(e8m0_reciprocal(e), 32, 0), 32, 1)
        codes = fp8_rn_sat(x2 * mult, fp8)
        row_g = np.repeat(e, 32, 0)          # [M, K/32]
        col_g = np.repeat(e, 32, 1).T        # [K, M/32]
        row_codes = col_codes = codes
    else:
        row_g = mx_block_exponent(amax(x2.reshape(m, k // 32, 32), axis=2), fp8)
        row_codes = fp8_rn_sat(x2 * np.repeat(e8m0_reciprocal(row_g), 32, 1), fp8)
        col_e = mx_block_exponent(amax(x2.reshape(m // 32, 32, k), axis=1), fp8)  # [M/32, K]
        col_codes = fp8_rn_sat(x2 * np.repeat(e8m0_reciprocal(col_e), 32, 0), fp8)
        col_g = col_e.T
    swz = q["optimize_for_gemm"]
    if q["rowwise"]:
        out["rowwise_data"] = row_codes.reshape(x.shape)
        g = pad(row_g, (roundup(m, 128), roundup(k // 32, 4)))
        out["rowwise_scale_inv"] = (swizzle(g).reshape(g.shape) if swz else g)
    if q["columnwise"]:
        out["columnwise_data"] = col_codes.reshape(x.shape)
        shape = (roundup(m // 32, 4), roundup(k, 128))
        if swz:
            g = pad(col_g, (roundup(k, 128), roundup(m // 32, 4)))
            out["columnwise_scale_inv"] = swizzle(g).reshape(shape)
        else:
            out["columnwise_scale_inv"] = pad(col_g.T, shape)
    return out


def mxfp8_valid_scale_region(name, shape, q):
    """Slices of the meaningful part of a compact scale buffer."""
    m = int(np.prod(shape[:-1])); k = shape[-1]
    if q["optimize_for_gemm"]:
        return (slice(None), slice(None))
    if name == "rowwise_scale_inv":
        return (slice(0, m), slice(0, k // 32))
    return (slice(0, m // 32), slice(0, k))


# --- FP8 block scaling (spec 4) ---------------------------------------------

def quantize_block_rows(z, q, nominal, br):
    """Blocks of br x 128 over z [R, C]: codes [R, C], scale_inv [ceil(R/br), ceil(C/128)]."""
    r, c = z.shape
    zp = np.zeros((roundup(r, br), roundup(c, 128)), dtype=F32)
    zp[:r, :c] = z
    blocks = amax(zp.reshape(zp.shape[0] // br, br, zp.shape[1] // 128, 128), axis=(1, 3))
    fp8_max = FP8[q["fp8_dtype"]][1]
    scale = np.vectorize(lambda a: compute_scale_from_amax(
        a, fp8_max, q["force_pow_2_scales"], q["amax_epsilon"], input_max(nominal)),
        otypes=[F32])(blocks).astype(F32)
    sinv = (F32(1.0) / scale).astype(F32)
    full = np.repeat(np.repeat(scale, br, 0), 128, 1)[:r, :c]
    return fp8_rn_sat(z * full, q["fp8_dtype"]), sinv


def quantize_fp8_block(x, q, nominal):
    x2 = flat2d(x).astype(F32)
    m, k = x2.shape
    out = {}
    tshape = (x.shape[-1],) + x.shape[:-1]
    if q["block_scaling_dim"] == 2:
        codes, sinv = quantize_block_rows(x2, q, nominal, 128)
        if q["rowwise"]:
            out["rowwise_data"] = codes.reshape(x.shape)
            out["rowwise_scale_inv"] = pad(sinv, (ceil_div(m, 128), roundup(ceil_div(k, 128), 4)))
        if q["columnwise"]:
            out["columnwise_data"] = codes.T.copy().reshape(tshape)
            out["columnwise_scale_inv"] = pad(sinv.T, (ceil_div(k, 128), roundup(ceil_div(m, 128), 4)))
    else:
        if q["rowwise"]:
            codes, sinv = quantize_block_rows(x2, q, nominal, 1)       # sinv [M, KB]
            out["rowwise_data"] = codes.reshape(x.shape)
            out["rowwise_scale_inv"] = pad(sinv.T, (ceil_div(k, 128), roundup(m, 4)))
        if q["columnwise"]:
            codes, sinv = quantize_block_rows(x2.T.copy(), q, nominal, 1)  # codes [K, M], sinv [K, MB]
            out["columnwise_data"] = codes.reshape(tshape)
            out["columnwise_scale_inv"] = pad(sinv.T, (ceil_div(m, 128), roundup(k, 4)))
    return out


def block_valid_scale_region(name, shape, q):
    m = int(np.prod(shape[:-1])); k = shape[-1]
    if q["block_scaling_dim"] == 2:
        rows, cols = (ceil_div(m, 128), ceil_div(k, 128))
        if name == "columnwise_scale_inv":
            rows, cols = cols, rows
    elif name == "rowwise_scale_inv":
        rows, cols = ceil_div(k, 128), m
    else:
        rows, cols = ceil_div(m, 128), k
    return (slice(0, rows), slice(0, cols))


# --- NVFP4 (spec 5) ---------------------------------------------------------

RHT_SIGNS = [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]  # te-formats.md 5.a


def rht_matrix(random_signs=True):
    """diag(s) H16 / 4 with TE's signs, or H16 / 4 (with_random_sign_mask=False)."""
    h = np.array([[(-1) ** bin(i & j).count("1") for j in range(16)] for i in range(16)])
    signs = RHT_SIGNS if random_signs else [1] * 16
    return (np.diag(signs) @ h / 4).astype(ml_dtypes.bfloat16).astype(F32)


def rht_columnwise(x2, random_signs=True):
    """bf16(RHT(x^T)) [K, M]: each 16-row chunk v of a column times
    diag(s) H16 / 4, rounded as Numerics.md says: the exact products
    w = v * s / 4, then f32 butterflies over bit h = 1, 2, 4, 8 of the chunk
    index (a[i], a[i + h] <- a[i] + a[i + h], a[i] - a[i + h])."""
    m, k = x2.shape
    signs = np.array(RHT_SIGNS if random_signs else [1] * 16, dtype=F32)
    a = (x2.reshape(m // 16, 16, k) * (signs / 4)[None, :, None]).astype(F32)
    for h in (1, 2, 4, 8):
        v = a.reshape(m // 16, 16 // (2 * h), 2, h, k)
        lo, hi = v[:, :, 0], v[:, :, 1]
        a = np.stack([lo + hi, lo - hi], axis=2).astype(F32).reshape(m // 16, 16, k)
    y = a.transpose(2, 0, 1).reshape(k, m)         # [k, chunk*16 + j]
    return y.astype(ml_dtypes.bfloat16).astype(F32)


def rht_columnwise_sequential(x2, random_signs=True):
    """The same transform summed in f32 from +0 in order r = 0..15 (the
    definition before 2026-12-05): only for tests that show the two
    orders apart."""
    m, k = x2.shape
    r = rht_matrix(random_signs)
    chunks = x2.reshape(m // 16, 16, k)            # [chunk, r, k]
    acc = np.zeros((m // 16, 16, k), dtype=F32)    # [chunk, j, k]
    for i in range(16):
        acc = (acc + (chunks[:, i, None, :] * r[i][None, :, None]).astype(F32)).astype(F32)
    y = acc.transpose(2, 0, 1).reshape(k, m)
    return y.astype(ml_dtypes.bfloat16).astype(F32)


def global_encode_scale(g, e4m3_max=448):
    g = F32(g)
    s = F32(F32(6 * e4m3_max) / g) if g != 0 else F32(np.inf)
    s = F32(min(s, FLT_MAX)) if not np.isnan(s) else FLT_MAX
    if g == 0 or s == 0:
        return F32(1.0)
    return s


def quantize_nvfp4_rows(z, row_scaled, tiles, rng=None, stream=0, given=None):
    """Rows of z [R, C]: codes [R, C] (uint8 nibbles), sf [R, C/16] (E4M3 bytes), amax.
    With `rng` = (seed, offset) the codes round stochastically (stream 0
    row-wise, 1 column-wise); `given`: the global amax to use (TE's amax
    reduction) instead of max|z|."""
    r, c = z.shape
    if row_scaled:
        g = amax(z, axis=1)
        s_enc = np.array([global_encode_scale(v) for v in g], dtype=F32)[:, None]
    else:
        g = amax(z) if given is None else F32(given)
        s_enc = np.full((r, 1), global_encode_scale(g), dtype=F32)
    br = 16 if tiles else 1
    blocks = amax(z.reshape(r // br, br, c // 16, 16), axis=(1, 3))   # [R/br, C/16]
    enc_row = s_enc[::br] if tiles else s_enc
    factor = (enc_row * F32(1.0 / 6.0)).astype(F32)
    sf = cast_rn_sat(np.minimum((blocks * factor).astype(F32), FLT_MAX), E4M3, F32(448))
    s_dec = (F32(1.0) / enc_row).astype(F32)
    enc = np.minimum((F32(1.0) / (decode(sf, E4M3) * s_dec).astype(F32)).astype(F32), FLT_MAX)
    full = np.repeat(np.repeat(enc, br, 0), 16, 1)
    if rng is None:
        codes = e2m1_rn_sat((z * full).astype(F32))
    else:
        rbytes = philox_bytes(rng[0], rng[1], stream, r * c).reshape(r, c)
        codes = e2m1_stochastic((z * full).astype(F32), rbytes)
    sf_rows = np.repeat(sf, br, 0) if tiles else sf
    return codes, sf_rows, g


def _sum_in_order(err, n):
    """f32 sums of n consecutive elements along the last axis, from 0 in order."""
    r, c = err.shape
    parts = err.reshape(r, c // n, n)
    acc = np.zeros((r, c // n), dtype=F32)
    for i in range(n):
        acc = (acc + parts[:, :, i]).astype(F32)
    return acc


def quantize_nvfp4_4over6_rows(z, row_scaled, tiles, e4m3_max, mse, return_pick=False,
                               given=None):
    """NVFP4 4over6 (TE reference_nvfp4.py _quantize_blockwise_4over6_reference,
    exact error path): per block (16x16 tile if `tiles`) a map-to-6 and a map-to-4
    candidate; map-to-4 iff its error sum is strictly smaller (`return_pick`:
    also that choice per block); `given`: the global amax to use."""
    r, c = z.shape
    if row_scaled:
        g = amax(z, axis=1)
        s_enc = np.array([global_encode_scale(v, e4m3_max) for v in g], dtype=F32)[:, None]
        g_rows = g.astype(F32)[:, None]
    else:
        g = amax(z) if given is None else F32(given)
        s_enc = np.full((r, 1), global_encode_scale(g, e4m3_max), dtype=F32)
        g_rows = np.full((r, 1), g, dtype=F32)
    br = 16 if tiles else 1
    blocks = amax(z.reshape(r // br, br, c // 16, 16), axis=(1, 3))   # [R/br, C/16]
    enc_row = s_enc[::br]
    base = ((blocks / F32(6.0)).astype(F32) * enc_row).astype(F32)
    s_dec = (F32(1.0) / enc_row).astype(F32)
    candidates = []
    for expand in (None, F32(1.5)):
        v = base if expand is None else (base * expand).astype(F32)
        sf = cast_rn_sat(np.minimum(v, F32(448.0)), E4M3, F32(448))
        enc = np.minimum((F32(1.0) / (decode(sf, E4M3) * s_dec).astype(F32)).astype(F32),
                         FLT_MAX)
        codes = e2m1_rn_sat((z * np.repeat(np.repeat(enc, br, 0), 16, 1)).astype(F32))
        sf_full = np.repeat(np.repeat(decode(sf, E4M3).astype(F32), br, 0), 16, 1)
        back = (decode(codes, E2M1).astype(F32) * sf_full).astype(F32)
        back = ((back * g_rows).astype(F32) / F32(6 * e4m3_max)).astype(F32)
        d = (back - z).astype(F32)
        err = _sum_in_order((d * d).astype(F32) if mse else np.abs(d), 16)
        if tiles:  # the 16 row sums of a tile as a shuffle-down tree
            t = err.reshape(r // 16, 16, c // 16)
            for n in (8, 4, 2, 1):
                t = (t[:, :n] + t[:, n:2 * n]).astype(F32)
            err = t[:, 0]
        candidates.append((sf, codes, err))
    (sf6, codes6, err6), (sf4, codes4, err4) = candidates
    pick4 = err4 < err6
    sf = np.where(pick4, sf4, sf6)
    codes = np.where(np.repeat(np.repeat(pick4, br, 0), 16, 1), codes4, codes6)
    result = codes, (np.repeat(sf, br, 0) if tiles else sf), g
    return result + (pick4,) if return_pick else result


def pack_nibbles(codes):
    return (codes[:, 0::2] & 0xF) | ((codes[:, 1::2] & 0xF) << 4)


def unpack_nibbles(packed):
    out = np.zeros((packed.shape[0], packed.shape[1] * 2), dtype=np.uint8)
    out[:, 0::2] = packed & 0xF
    out[:, 1::2] = packed >> 4
    return out


def global_amaxes(x, q):
    """What qs.amax returns (te-formats.md §2.c step 1, §5.c): [max|x|] for
    current scaling and NVFP4, [max|x|, max|RHT(x^T)|] for NVFP4 with RHT;
    ValueError for quantizers without tensor-wide amaxes."""
    family = q["family"]
    if family not in ("fp8_current", "nvfp4") or q.get("row_scaled_nvfp4"):
        raise ValueError(f"{family} computes no tensor-wide amax")
    x2 = flat2d(x).astype(F32)
    out = [amax(x2)]
    if family == "nvfp4" and q["with_rht"]:
        out.append(amax(rht_columnwise(x2, q.get("with_random_sign_mask", True))))
    return np.array(out, dtype=F32)


def quantize_nvfp4(x, q, rng=None, global_amax=None):
    """`global_amax`: the given global amaxes (TE's amax reduction; not with
    row scales) instead of the computed ones: one value for both usages, or
    with RHT a pair (max|x| for the row-wise, max|RHT(x^T)| for the
    column-wise representation), as global_amaxes returns them."""
    x2 = flat2d(x).astype(F32)
    m, k = x2.shape
    out = {}
    rows = {}
    if q["stochastic_rounding"] != (rng is not None):
        raise ValueError("stochastic rounding needs rng=(seed, offset), and only it takes one")
    given = {"rowwise": None, "columnwise": None}
    if global_amax is not None:
        g = np.atleast_1d(np.asarray(global_amax, dtype=F32))
        if g.shape != ((2,) if q["with_rht"] else (1,)):
            raise ValueError(f"NVFP4 {'with' if q['with_rht'] else 'without'} RHT takes "
                             f"{2 if q['with_rht'] else 1} global amaxes, got {g.shape}")
        given = {"rowwise": g[0], "columnwise": g[-1]}
    def rows_of(z, stream, rep):
        if q.get("nvfp4_use_4over6"):
            return quantize_nvfp4_4over6_rows(z, q["row_scaled_nvfp4"], q["with_2d_quantization"],
                                              q["nvfp4_e4m3_max"],
                                              q["nvfp4_4over6_err_mode"] == "MSE",
                                              given=given[rep])
        return quantize_nvfp4_rows(z, q["row_scaled_nvfp4"], q["with_2d_quantization"], rng,
                                   stream, given=given[rep])
    if q["rowwise"]:
        rows["rowwise"] = (rows_of(x2, 0, "rowwise"), m, k)
    if q["columnwise"]:
        y = (rht_columnwise(x2, q.get("with_random_sign_mask", True)) if q["with_rht"]
             else x2.T.copy())
        rows["columnwise"] = (rows_of(y, 1, "columnwise"), k, m)
    for rep in ("rowwise", "columnwise"):
        if rep not in rows:
            continue
        (codes, sf, g), r, c = rows[rep]
        data = pack_nibbles(codes)
        out[rep + "_data"] = data.reshape(x.shape[:-1] + (k // 2,)) if rep == "rowwise" else data
        padded = pad(sf, (roundup(r, 128), roundup(c // 16, 4)))
        out[rep + "_scale_inv"] = swizzle(padded).reshape(padded.shape) if q["optimize_for_gemm"] else padded
    for rep in ("rowwise", "columnwise"):
        if rep in rows:
            g = rows[rep][0][2]
            out["amax_" + rep] = g.astype(F32) if q["row_scaled_nvfp4"] else np.array([g], dtype=F32)
    return out


def nvfp4_2d_columnwise_from_rowwise(bufs, shape, q):
    """TE's update_usage for 16x16 NVFP4: column-wise data and scales as the
    nibble transpose of the row-wise ones (te-formats.md §5.b). With 4over6
    this can differ from quantizing x^T directly: each direction sums a
    tile's errors in its own order, so a near-tie may go the other way."""
    m = int(np.prod(shape[:-1])); k = shape[-1]
    codes = unpack_nibbles(bufs["rowwise_data"].reshape(m, k // 2))
    sf = bufs["rowwise_scale_inv"]
    if q["optimize_for_gemm"]:
        sf = unswizzle(sf)
    tiles = sf[:m:16, : k // 16]                      # [M/16, K/16]
    padded = pad(np.repeat(tiles.T, 16, 0), (roundup(k, 128), roundup(m // 16, 4)))
    scales = swizzle(padded).reshape(padded.shape) if q["optimize_for_gemm"] else padded
    return pack_nibbles(codes.T.copy()), scales


def nvfp4_valid_scale_region(name, shape, q):
    m = int(np.prod(shape[:-1])); k = shape[-1]
    if q["optimize_for_gemm"]:
        return (slice(None), slice(None))
    if name.startswith("rowwise"):
        return (slice(0, m), slice(0, k // 16))
    return (slice(0, k), slice(0, m // 16))


def dequantize_nvfp4(bufs, shape, q):
    m = int(np.prod(shape[:-1])); k = shape[-1]
    codes = unpack_nibbles(bufs["rowwise_data"].reshape(m, k // 2))
    sf = bufs["rowwise_scale_inv"]
    if q["optimize_for_gemm"]:
        sf = unswizzle(sf)
    sf = decode(sf[:m, : k // 16], E4M3)
    g = bufs["amax_rowwise"].astype(F32)
    g = g[:, None] if q["row_scaled_nvfp4"] else g[0]
    factor = ((sf * g).astype(F32) * F32(1.0 / (6 * q.get("nvfp4_e4m3_max", 448)))).astype(F32)
    return (decode(codes, E2M1) * np.repeat(factor, 16, 1)).astype(F32).reshape(shape)


def unswizzle(s):
    rows, cols = s.shape
    flat = s.ravel()
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    offset = (((i // 128) * (cols // 4) + j // 4) * 512 + (i % 32) * 16
              + ((i % 128) // 32) * 4 + (j % 4))
    return flat[offset]


# --- dispatch ----------------------------------------------------------------

def quantize(x, q, nominal="bf16", chip_tn_only=True, scale=None, amax_state=None, rng=None,
             global_amax=None):
    """Returns ({inner name: buffer}, updated amax or None). `rng`: (seed,
    offset) of NVFP4 stochastic rounding; `global_amax`: the given
    (all-reduced) global amax of current scaling or NVFP4."""
    family = q["family"]
    if family in ("fp8_current", "fp8_delayed"):
        return quantize_fp8_per_tensor(x, q, chip_tn_only, scale, amax_state, global_amax)
    if family == "mxfp8":
        return quantize_mxfp8(x, q), None
    if family == "fp8_block":
        return quantize_fp8_block(x, q, nominal), None
    return quantize_nvfp4(x, q, rng, global_amax), None


def valid_region(name, shape, q):
    """Index of the meaningful part of an inner tensor (all but compact padding)."""
    if "scale_inv" not in name or name == "scale_inv":
        return (Ellipsis,)
    family = q["family"]
    if family == "mxfp8":
        return mxfp8_valid_scale_region(name, shape, q)
    if family == "fp8_block":
        return block_valid_scale_region(name, shape, q)
    return nvfp4_valid_scale_region(name, shape, q)


def dequantize(bufs, shape, q):
    """Logical f32 values from the row-wise representation if present."""
    family = q["family"]
    m = int(np.prod(shape[:-1])); k = shape[-1]
    if family in ("fp8_current", "fp8_delayed"):
        return dequantize_fp8_per_tensor(bufs, shape, q)
    if family == "nvfp4":
        return dequantize_nvfp4(bufs, shape, q)
    return gemm_operand(bufs, shape, q, contracts_last=q["rowwise"], dequantized=True)


def gemm_operand(bufs, shape, q, contracts_last, dequantized=False):
    """op(operand) as float64 [rows, K] (the representation the contraction
    needs); with dequantized=True, the logical [M, K] values as f32."""
    family = q["family"]
    m = int(np.prod(shape[:-1])); k = shape[-1]
    if family in ("fp8_current", "fp8_delayed"):
        v = flat2d(dequantize_fp8_per_tensor(bufs, shape, q)).astype(np.float64)
        return v if contracts_last else v.T
    if family == "mxfp8":
        dtype = FP8[q["fp8_dtype"]][0]
        if contracts_last:
            data = decode(bufs["rowwise_data"].reshape(m, k), dtype)
            s = bufs["rowwise_scale_inv"]
            s = unswizzle(s) if q["optimize_for_gemm"] else s
            v = data * np.repeat(e8m0_value(s[:m, : k // 32]), 32, 1)
        else:
            data = decode(bufs["columnwise_data"].reshape(m, k), dtype)
            s = bufs["columnwise_scale_inv"]
            if q["optimize_for_gemm"]:
                g = unswizzle(s.reshape(roundup(k, 128), roundup(m // 32, 4)))[:k, : m // 32]
                s = g.T
            v = data * np.repeat(e8m0_value(s[: m // 32, :k]), 32, 0)
        v = v.astype(F32)
        if dequantized:
            return v.reshape(shape)
        return (v if contracts_last else v.T).astype(np.float64)
    if family == "fp8_block":
        dtype = FP8[q["fp8_dtype"]][0]
        one_d = q["block_scaling_dim"] == 1
        if contracts_last:
            data = decode(bufs["rowwise_data"].reshape(m, k), dtype)
            s = bufs["rowwise_scale_inv"]
            per = (np.repeat(s[: ceil_div(k, 128), :m].T, 128, 1)[:, :k] if one_d else
                   np.repeat(np.repeat(s[: ceil_div(m, 128), : ceil_div(k, 128)], 128, 0), 128, 1)[:m, :k])
            v = (data * per).astype(F32)
        else:
            data = decode(bufs["columnwise_data"].reshape(k, m), dtype)   # [K, M]
            s = bufs["columnwise_scale_inv"]
            per = (np.repeat(s[: ceil_div(m, 128), :k].T, 128, 1)[:, :m] if one_d else
                   np.repeat(np.repeat(s[: ceil_div(k, 128), : ceil_div(m, 128)], 128, 0), 128, 1)[:k, :m])
            v = (data * per).astype(F32).T
        if dequantized:
            return v.reshape(shape)
        return (v if contracts_last else v.T).astype(np.float64)
    # NVFP4
    rep = "rowwise" if contracts_last else "columnwise"
    r, c = (m, k) if contracts_last else (k, m)
    codes = unpack_nibbles(bufs[rep + "_data"].reshape(r, c // 2))
    sf = bufs[rep + "_scale_inv"]
    if q["optimize_for_gemm"]:
        sf = unswizzle(sf)
    sf = decode(sf[:r, : c // 16], E4M3).astype(np.float64)
    g = bufs["amax_" + rep].astype(np.float64)
    g = g[:, None] if q["row_scaled_nvfp4"] else g[0]
    return (decode(codes, E2M1).astype(np.float64) * np.repeat(sf, 16, 1) * g
            / (6.0 * q.get("nvfp4_e4m3_max", 448)))


BIAS_GRAD_CHUNK_ROWS = 32


def bias_grad(x):
    """qs.bias_grad's FP32 column sums of x (f32 values) folded to 2-D: each
    chunk of 32 rows summed from +0.0 in row order, then the chunks' sums
    from +0.0 in chunk order (float32 additions, one element at a time);
    any NaN as +0x7FC00000. Round to the result type with the caller's
    conversion (to_npy)."""
    x2 = flat2d(np.asarray(x, dtype=F32))
    m, n = x2.shape
    total = np.zeros(n, F32)
    with np.errstate(all="ignore"):
        for start in range(0, m, BIAS_GRAD_CHUNK_ROWS):
            part = np.zeros(n, F32)
            for row in x2[start:start + BIAS_GRAD_CHUNK_ROWS]:
                part = part + row
            total = total + part
    total[np.isnan(total)] = np.uint32(0x7FC00000).view(F32)
    return total


def amax_and_scale_update(history, scale, amax=None, fp8="e4m3", margin=0,
                          algo="max"):
    """TE's delayed-scaling recipe step for one tensor (te-formats.md §2.c;
    the kernel of transformer_engine/common/recipe/delayed_scaling.cu),
    element by element: the step's amax a0 is `amax` unless it is 0.0 (the
    all-reduced buffer), else history[0]; the history rolled to [0, h[2],
    ..., h[L-1], a0] while a running fmaxf from 0.0 reads h[1..L-1] and a0
    ("max"), or a0 itself ("most_recent"); the scale (fp8_max 2^-margin) /
    amax if that amax is finite and > 0, else the old scale, an infinite
    one replaced by FLT_MAX. Returns (history, scale) as float32 arrays."""
    h = np.asarray(history, dtype=F32).reshape(-1)
    old = F32(np.asarray(scale, dtype=F32).reshape(-1)[0])
    length = h.size
    last = h[0]
    if amax is not None:
        a = F32(np.asarray(amax, dtype=F32).reshape(-1)[0])
        if a != 0.0:  # NaN != 0.0, as C's
            last = a
    rolled = np.zeros(length, F32)
    running = F32(0.0)
    for i in range(length):
        v = h[i + 1] if i < length - 1 else last
        if not np.isnan(v) and (np.isnan(running) or v > running):
            running = F32(v)  # fmaxf: NaN ignored
        rolled[i] = v if i > 0 else F32(0.0)
    value = running if algo == "max" else last
    fp8_max = {"e4m3": 448.0, "e5m2": 57344.0}[fp8]
    scaled_max = F32(fp8_max * 2.0 ** -margin)
    with np.errstate(all="ignore"):
        if np.isfinite(value) and value > 0:
            new = F32(scaled_max / F32(value))
        else:
            new = old
    if np.isinf(new):
        new = F32(np.finfo(F32).max)
    return rolled, np.array([new], F32)
