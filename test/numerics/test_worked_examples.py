"""The worked examples of te-formats.md §8, with the expected bytes written
out literally from the spec (not computed), run through qs-run; 8.7 (NVFP4
4over6) is ours (docs/Formats.md), the spec only summarises 4over6."""

import numpy as np
import pytest

import harness as h


def quantize(shape, nominal, q, x):
    t, qt = h.ttype(shape, nominal), h.qtype(shape, nominal, q)
    module = f"""func.func @quantize(%x: {t}) -> {qt} {{
  %q = qs.quantize %x : {t} -> {qt}
  return %q : {qt}
}}"""
    num_outputs = {"fp8_current": 2, "mxfp8": 2, "fp8_block": 2, "nvfp4": 3}[q["family"]]
    return h.run(module, "quantize", [h.to_npy(x, nominal)], num_outputs)


def dequantize(shape, nominal, q, inner):
    """qs.dequantize of the inner tensors `inner` to f32."""
    qt, t = h.qtype(shape, nominal, q), h.ttype(shape, "f32")
    module = f"""func.func @dequantize(%q: {qt}) -> {t} {{
  %x = qs.dequantize %q : {qt} -> {t}
  return %x : {t}
}}"""
    (values,) = h.run(module, "dequantize", inner, 1)
    return values


def test_8_1_mxfp8_block():
    x = np.zeros((32, 32), np.float32)
    x[0, :6] = [10.0, -2.5, 3.0, 1.0, 0.296875, 0.0]
    data, scales = quantize((32, 32), "bf16", h.quantizer("mxfp8", columnwise=False), x)
    assert list(data[0, :6]) == [0x7A, 0xEA, 0x6C, 0x60, 0x52, 0x00]
    assert scales[0, 0] == 0x7A  # E8M0 122: multiplier 2^5
    # Boundary facts: amax 448 -> 127, 449 -> 128, 224 -> 126, 1.0 -> 119, zero -> 0.
    for amax, e in [(448.0, 127), (449.0, 128), (224.0, 126), (1.0, 119), (0.0, 0)]:
        x = np.zeros((32, 32), np.float32)
        x[0, 0] = amax
        _, scales = quantize((32, 32), "f32", h.quantizer("mxfp8", columnwise=False), x)
        assert scales[0, 0] == e, f"amax {amax}: got {scales[0, 0]}, expected {e}"


def test_8_2_current_scaling():
    x = np.zeros((1, 16), np.float32)
    x[0, :4] = [5.0, 1.0, -0.5, 0.001]
    q = h.quantizer("fp8_current", columnwise=False)
    data, sinv = quantize((1, 16), "f32", q, x)
    assert sinv.view(np.uint32)[0] == 0x3C36DB6E
    assert list(data[0, :4]) == [0x7E, 0x6B, 0xE3, 0x1B]
    q = h.quantizer("fp8_current", columnwise=False, force_pow_2_scales=True)
    data, sinv = quantize((1, 16), "f32", q, x)
    assert sinv[0] == np.float32(0.015625)
    assert list(data[0, :3]) == [0x7A, 0x68, 0xE0]
    q = h.quantizer("fp8_current", columnwise=False, fp8_dtype="f8E5M2")
    data, _ = quantize((1, 16), "f32", q, x)
    assert list(data[0, :2]) == [0x7B, 0x72]


def test_8_3_block_scale_index():
    # M = 300, K = 384: the row-wise scale buffer is (3, 300); the block of
    # row 10, columns 128..255 with amax 5 has scale 64, scale_inv 0.015625 at
    # [1, 10] (flat index 310).
    x = np.zeros((300, 384), np.float32)
    x[10, 128:256] = 1.0
    x[10, 200] = 5.0
    q = h.quantizer("fp8_block", block_scaling_dim=1, columnwise=False)
    _, scales = quantize((300, 384), "bf16", q, x)
    assert scales.shape == (3, 300)
    assert scales[1, 10] == np.float32(0.015625)
    assert scales.reshape(-1)[310] == np.float32(0.015625)


def test_8_4_nvfp4_unit_global_scale():
    x = np.zeros((16, 32), np.float32)
    x[0, :8] = [3.0, -1.0, 0.125, 0.625, 0.375, 1.25, 1.75, -3.0]
    x[1, 16] = 2688.0  # global amax G = 2688: S_enc = S_dec = 1
    q = h.quantizer("nvfp4", columnwise=False)
    data, scales, amax = quantize((16, 32), "bf16", q, x)
    assert amax[0] == np.float32(2688.0)
    assert scales[0, 0] == 0x30  # E4M3 0.5
    assert list(data[0, :8]) == [0xC7, 0x20, 0x42, 0xF6, 0, 0, 0, 0]
    values = dequantize((16, 32), "bf16", q, [data, scales, amax])
    assert list(values[0, :8]) == [3.0, -1.0, 0.0, 0.5, 0.5, 1.0, 2.0, -3.0]


def test_8_5_nvfp4_global_scale():
    x = np.zeros((16, 32), np.float32)
    x[0, :4] = [7.0, -3.5, 1.0, 0.5]
    x[1, 16] = 100.0  # G = 100
    q = h.quantizer("nvfp4", columnwise=False)
    data, scales, amax = quantize((16, 32), "f32", q, x)
    assert scales[0, 0] == 0x60  # E4M3 32
    assert list(data[0, :2]) == [0xD7, 0x12]
    values = dequantize((16, 32), "f32", q, [data, scales, amax])
    expected = np.array([7.142857, -3.5714285, 1.1904762, 0.5952381], np.float32)
    assert np.array_equal(values[0, :4], expected), values[0, :4]


def test_8_6_swizzle_offsets():
    # Row-wise MXFP8 scales of M = 256, K = 512 written GEMM-swizzled:
    # G[130, 5] at byte 2593, G[37, 2] at byte 86.
    q = h.quantizer("mxfp8", columnwise=False, optimize_for_gemm=True)
    for (row, block), offset in [((130, 5), 2593), ((37, 2), 86)]:
        x = np.zeros((256, 512), np.float32)
        x[row, block * 32] = 448.0  # E8M0 127 for this block, 0 elsewhere
        _, scales = quantize((256, 512), "bf16", q, x)
        flat = scales.reshape(-1)
        assert flat[offset] == 127
        assert np.count_nonzero(flat) == 1


@pytest.mark.parametrize("e4m3_max,mode", [(448, "MAE"), (256, "MSE")])
def test_8_7_nvfp4_4over6(e4m3_max, mode):
    # G = 6E, so S_enc = 1. Block [6, 4.5, 1, -0.75]: map-to-6 (sf 1.0)
    # codes 6, 4, 1, -1 (4.5 and -0.75 are ties to even), errors 0, 0.5, 0,
    # 0.25; map-to-4 (sf 1.5, enc f32(1/1.5)) codes 4, 3, 0.5, -0.5, values
    # 6, 4.5, 0.75, -0.75, errors 0, 0, 0.25, 0: map-to-4 wins under MAE
    # (0.25 < 0.75) and MSE (0.0625 < 0.3125). The all-zero block and the
    # block of G tie (E = 448: sf 448 either way; E = 256: sf 256 or 384,
    # both exact): map-to-6, code 6.0.
    x = np.zeros((16, 32), np.float32)
    x[0, :4] = [6.0, 4.5, 1.0, -0.75]
    x[1, 16] = 6.0 * e4m3_max
    q = h.quantizer("nvfp4", columnwise=False, nvfp4_use_4over6=True, nvfp4_e4m3_max=e4m3_max,
                    nvfp4_4over6_err_mode=mode)
    data, scales, amax = quantize((16, 32), "bf16", q, x)
    assert amax[0] == np.float32(6.0 * e4m3_max)
    # E4M3 1.5, 0, and 448 (0x7E) or 256 (0x78)
    assert (scales[0, 0], scales[0, 1], scales[1, 1]) == (0x3C, 0, 0x7E if e4m3_max == 448 else 0x78)
    assert list(data[0, :3]) == [0x56, 0x91, 0]
    assert data[1, 8] == 0x07
    values = dequantize((16, 32), "bf16", q, [data, scales, amax])
    assert list(values[0, :4]) == [6.0, 4.5, 0.75, -0.75]
    assert values[1, 16] == np.float32(6.0 * e4m3_max)
