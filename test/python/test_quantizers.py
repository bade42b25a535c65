"""The TE-named quantizer classes: constructor keywords and defaults, usage
flags, copies, attribute text both ways, and rule violations."""

import ml_dtypes
import numpy as np
import pytest

import quant_storage as qs


def test_defaults_print_bare():
    assert str(qs.Float8Quantizer(None, None, qs.DType.kFloat8E4M3)) == "#qs.fp8_delayed"
    assert str(qs.Float8CurrentScalingQuantizer(qs.DType.kFloat8E4M3, "cuda")) == "#qs.fp8_current"
    assert str(qs.MXFP8Quantizer(qs.DType.kFloat8E4M3)) == "#qs.mxfp8"
    # TE's constructor defaults: 128x128 tiles, power-of-two scales.
    assert str(qs.Float8BlockQuantizer(qs.DType.kFloat8E4M3)) == "#qs.fp8_block"
    assert str(qs.NVFP4Quantizer()) == "#qs.nvfp4"


def test_te_keywords():
    q = qs.Float8CurrentScalingQuantizer(qs.DType.kFloat8E5M2, None, rowwise=True,
                                         columnwise=False, force_pow_2_scales=True,
                                         amax_epsilon=0.5)
    assert str(q) == ("#qs.fp8_current<fp8_dtype = f8E5M2, columnwise = false, "
                      "force_pow_2_scales = true, amax_epsilon = 5.000000e-01>")
    q = qs.Float8BlockQuantizer(qs.DType.kFloat8E4M3, rowwise=True, columnwise=True,
                                amax_epsilon=0.0, force_pow_2_scales=False, block_scaling_dim=1)
    assert str(q) == "#qs.fp8_block<block_scaling_dim = 1, force_pow_2_scales = false>"
    q = qs.MXFP8Quantizer(qs.DType.kFloat8E4M3, rowwise=False, with_2d_quantization=True,
                          optimize_for_gemm=True)
    assert str(q) == "#qs.mxfp8<rowwise = false, with_2d_quantization = true, optimize_for_gemm = true>"
    q = qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True, stochastic_rounding=True)
    assert str(q) == ("#qs.nvfp4<with_rht = true, with_post_rht_amax = true, "
                      "stochastic_rounding = true>")
    q = qs.Float8Quantizer(scale=None, amax=None, fp8_dtype="e5m2", columnwise=False)
    assert str(q) == "#qs.fp8_delayed<fp8_dtype = f8E5M2, columnwise = false>"


def test_set_usage_and_copy():
    q = qs.MXFP8Quantizer()
    c = q.copy()
    c.set_usage(columnwise=False)
    assert (q.rowwise_usage, q.columnwise_usage) == (True, True)
    assert (c.rowwise_usage, c.columnwise_usage) == (True, False)
    c.set_usage(rowwise=False, columnwise=True)
    assert str(c) == "#qs.mxfp8<rowwise = false>"


@pytest.mark.parametrize("q", [
    qs.Float8Quantizer(None, None, qs.DType.kFloat8E5M2, rowwise=False),
    qs.Float8CurrentScalingQuantizer(qs.DType.kFloat8E4M3, None, force_pow_2_scales=True,
                                     amax_epsilon=1e-12),
    qs.MXFP8Quantizer(qs.DType.kFloat8E5M2, columnwise=False, optimize_for_gemm=True),
    qs.Float8BlockQuantizer(qs.DType.kFloat8E4M3, block_scaling_dim=1, amax_epsilon=0.25),
    qs.NVFP4Quantizer(row_scaled_nvfp4=True, optimize_for_gemm=True),
    qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True, with_2d_quantization=True),
    qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True, with_random_sign_mask=False),
    qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_e4m3_max=256, nvfp4_4over6_err_mode="MSE",
                      with_2d_quantization=True),
])
def test_attribute_round_trip(q):
    text = str(q)
    back = qs.Quantizer.from_attr(text)
    assert type(back) is type(q)
    assert back == q
    assert str(back) == text
    # and through an Attribute object
    assert qs.Quantizer.from_attr(q.to_attr()) == q


def test_rule_violations_raise_with_the_diagnostic():
    with pytest.raises(qs.QSError, match="with_rht requires with_post_rht_amax = true"):
        str(qs.NVFP4Quantizer(with_rht=True))
    with pytest.raises(qs.QSError, match="row_scaled_nvfp4 excludes with_rht"):
        str(qs.NVFP4Quantizer(row_scaled_nvfp4=True, with_2d_quantization=True))
    with pytest.raises(qs.QSError, match="nvfp4_use_4over6 excludes with_rht and "
                                         "stochastic_rounding"):
        str(qs.NVFP4Quantizer(nvfp4_use_4over6=True, stochastic_rounding=True))
    with pytest.raises(qs.QSError, match="nvfp4_e4m3_max must be 448 or 256"):
        str(qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_e4m3_max=300))
    with pytest.raises(qs.QSError, match="nvfp4_4over6_err_mode must be"):
        str(qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_4over6_err_mode="max"))
    with pytest.raises(qs.QSError, match="block_scaling_dim must be 1"):
        str(qs.Float8BlockQuantizer(block_scaling_dim=3))
    with pytest.raises(qs.QSError, match="at least one of rowwise and columnwise"):
        str(qs.MXFP8Quantizer(rowwise=False, columnwise=False))
    with pytest.raises(qs.QSError, match="amax_epsilon must be finite and >= 0"):
        str(qs.Float8CurrentScalingQuantizer(amax_epsilon=-1.0))


def test_unsupported_options_raise_value_error():
    with pytest.raises(ValueError, match="fp8_dtype must be"):
        qs.MXFP8Quantizer("int8")
    with pytest.raises(ValueError, match="with_amax_reduction"):
        qs.Float8CurrentScalingQuantizer(with_amax_reduction=True)
    with pytest.raises(ValueError, match="with_amax_reduction"):
        qs.NVFP4Quantizer(with_amax_reduction=True)
    with pytest.raises(ValueError, match="fp4_dtype"):
        qs.NVFP4Quantizer(fp4_dtype=qs.DType.kFloat8E4M3)


def test_nvfp4_4over6_options():
    # TE's NVFP4Quantizer: nvfp4_e4m3_max is 448 unless 4over6 is on, and the
    # error mode is upper-cased.
    assert qs.NVFP4Quantizer(nvfp4_e4m3_max=256).nvfp4_e4m3_max == 448
    assert str(qs.NVFP4Quantizer(nvfp4_e4m3_max=256)) == "#qs.nvfp4"
    q = qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_e4m3_max=256, nvfp4_4over6_err_mode="mse")
    assert (q.nvfp4_use_4over6, q.nvfp4_e4m3_max, q.nvfp4_4over6_err_mode) == (True, 256, "MSE")
    assert str(q) == ('#qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, '
                      'nvfp4_4over6_err_mode = "MSE">')
    assert str(qs.NVFP4Quantizer(nvfp4_use_4over6=True)) == "#qs.nvfp4<nvfp4_use_4over6 = true>"


def test_nvfp4_random_sign_mask():
    # TE's rht_matrix_random_sign_mask_t: 0xD7E8 by default, 0 (H16 / 4) without.
    q = qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True)
    assert q.rht_matrix_random_sign_mask_t == 0xD7E8
    u = qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True, with_random_sign_mask=False)
    assert u.rht_matrix_random_sign_mask_t == 0
    assert str(u) == ("#qs.nvfp4<with_rht = true, with_post_rht_amax = true, "
                      "with_random_sign_mask = false>")
    assert u != q and qs.Quantizer.from_attr(str(u)).with_random_sign_mask is False
    # TE's rht_matrix: Sylvester H16 / 4 with the rows of negative signs negated.
    h = np.array([[1.0]])
    for _ in range(4):
        h = np.block([[h, h], [h, -h]])
    assert u.rht_matrix.dtype == ml_dtypes.bfloat16
    assert np.array_equal(u.rht_matrix.astype(np.float32), h / 4)
    signs = np.array([-1.0 if (0xD7E8 >> i) & 1 else 1.0 for i in range(16)])
    assert np.array_equal(q.rht_matrix.astype(np.float32), np.diag(signs) @ h / 4)
    assert list(signs) == [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]


def test_from_attr_rejects_non_quantizers():
    with pytest.raises(ValueError, match="not a quantizer attribute"):
        qs.Quantizer.from_attr("42 : i64")
    with pytest.raises(qs.QSError, match="cannot parse the attribute"):
        qs.Quantizer.from_attr("#qs.mxfp8<bogus = 1>")
