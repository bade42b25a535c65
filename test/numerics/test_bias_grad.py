"""qs.bias_grad (the bias gradient of TE's Linear backward) with qs-run
against the numpy reference's sums in the op's order (chunks of 32 rows,
then the chunks), bit for bit after rounding to the result type."""

import numpy as np
import pytest

import harness as h
import qs_reference as ref


def bias_grad_module(shape, nominal, out):
    t = h.ttype(shape, nominal)
    r = h.ttype((shape[-1],), out)
    return f"""func.func @bias_grad(%dy: {t}) -> {r} {{
  %db = qs.bias_grad %dy : {t} -> {r}
  return %db : {r}
}}"""


def check(x, nominal, out, what):
    (got,) = h.run(bias_grad_module(x.shape, nominal, out), "bias_grad",
                   [h.to_npy(x, nominal)], 1)
    with np.errstate(over="ignore"):  # sums past the result type's range
        want = h.to_npy(ref.bias_grad(x), out)
    h.assert_bytes_equal(got, want, what)


CASES = [
    ((64, 128), "bf16", "bf16"),
    ((37, 20), "bf16", "f32"),        # a short last chunk, 4-column groups
    ((2, 37, 20), "f16", "f16"),      # 3-D: M = 74
    ((33, 7), "f32", "bf16"),         # odd N: one column per thread
    ((300, 48), "bf16", "f16"),       # 10 chunks
    ((1, 16), "f32", "f32"),          # one row
    ((4, 64, 24), "f32", "f32"),      # M = 256: whole chunks only
]


@pytest.mark.parametrize("shape,nominal,out", CASES)
@pytest.mark.parametrize("specials", [False, True])
def test_bias_grad(rng, shape, nominal, out, specials):
    """Random values (with zeros, denormals, huge values, +-inf and NaN
    when `specials`): sums that overflow, cancel, and hit NaN."""
    x = h.random_input(rng, shape, nominal, specials=specials)
    check(x, nominal, out, f"bias_grad {shape} {nominal} -> {out}")


def test_bias_grad_order():
    """The chunks are summed apart: 2^24 in row 0 and 1.0 in rows 1-31 sum to
    2^24 in FP32 one row at a time (each 1.0 is lost), but rows 32-63 of
    1.0 make a chunk sum of 32 that survives. A single running sum would
    give 2^24 for column 0; the op's order gives 2^24 + 32."""
    x = np.zeros((64, 8), np.float32)
    x[0, 0] = 2.0 ** 24
    x[1:, 0] = 1.0
    x[:, 1] = -0.0                      # an all -0.0 column sums to +0.0
    x[0, 2], x[40, 2] = np.inf, -np.inf  # NaN
    want = ref.bias_grad(x)
    assert want[0] == np.float32(2.0 ** 24 + 32)
    assert want[1].view(np.uint32) == 0
    assert want[2].view(np.uint32) == 0x7FC00000
    check(x, "f32", "f32", "bias_grad order")
    check(x, "f32", "bf16", "bias_grad order (bf16)")
