"""qs.amax_and_scale_update (TE's delayed-scaling recipe step) with qs-run
against the numpy reference (qs_reference.amax_and_scale_update, TE's
kernel element by element), bit for bit: the rolled history and the new
scale, on random histories with special values, every length class (one
element, shorter than a block of threads, several blocks' worth), both
algorithms, both FP8 formats, margins, a given amax or not."""

import numpy as np
import pytest

import harness as h
import qs_reference as ref

F32 = np.float32
FP8 = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def update_module(length, given, fp8="e4m3", margin=0, algo="max"):
    hist, s = h.ttype((length,), "f32"), "tensor<1xf32>"
    attrs = []
    if fp8 != "e4m3":
        attrs.append(f"fp8_dtype = {FP8[fp8]}")
    if margin:
        attrs.append(f"margin = {margin} : i64")
    if algo != "max":
        attrs.append(f'amax_compute_algo = "{algo}"')
    attr_dict = " {" + ", ".join(attrs) + "}" if attrs else ""
    amax_arg = ", %a: tensor<1xf32>" if given else ""
    amax_use = " amax(%a : tensor<1xf32>)" if given else ""
    return f"""func.func @step(%h: {hist}, %s: {s}{amax_arg}) -> ({hist}, {s}) {{
  %h2, %s2 = qs.amax_and_scale_update %h, %s{amax_use}{attr_dict} : {hist}, {s}
  return %h2, %s2 : {hist}, {s}
}}"""


def check(history, scale, amax=None, fp8="e4m3", margin=0, algo="max", what=""):
    history = np.asarray(history, F32)
    scale = np.array([scale], F32)
    inputs = [history, scale] + ([np.array([amax], F32)] if amax is not None else [])
    got_h, got_s = h.run(update_module(history.size, amax is not None, fp8, margin, algo),
                         "step", inputs, 2)
    want_h, want_s = ref.amax_and_scale_update(history, scale, amax, fp8, margin, algo)
    h.assert_bytes_equal(got_h, want_h, f"{what} history")
    h.assert_bytes_equal(got_s, want_s, f"{what} scale")
    return want_h, want_s


def random_history(rng, length, specials):
    """Amaxes over a wide range (as a training run's), with zeros, and
    when `specials` NaN, +-inf, negative values, -0.0 and denormals."""
    v = np.abs(rng.standard_normal(length)).astype(F32)
    v *= np.exp2(rng.integers(-20, 20, size=length)).astype(F32)
    v[rng.random(length) < 0.1] = 0.0
    if specials:
        picks = [np.nan, np.inf, -np.inf, -3.0, -0.0, 1e-45, 3e38]
        where = rng.random(length) < 0.15
        v[where] = rng.choice(np.array(picks, F32), size=int(where.sum()))
    return v


LENGTHS = [1, 2, 3, 16, 127, 128, 129, 1024, 1500]


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("algo", ["max", "most_recent"])
@pytest.mark.parametrize("specials", [False, True])
def test_random_histories(rng, length, algo, specials):
    history = random_history(rng, length, specials)
    check(history, F32(rng.uniform(0.5, 4.0)), algo=algo,
          what=f"L={length} {algo} specials={specials}")


@pytest.mark.parametrize("fp8,margin", [("e4m3", 0), ("e5m2", 0), ("e4m3", 1), ("e5m2", 3),
                                        ("e4m3", -2), ("e4m3", 100), ("e5m2", -100)])
def test_formats_and_margins(rng, fp8, margin):
    history = random_history(rng, 64, specials=False)
    history[5] = 1.7
    check(history, 1.0, fp8=fp8, margin=margin, what=f"{fp8} margin {margin}")


@pytest.mark.parametrize("given", [2.5, 0.0, -0.0, np.nan, np.inf, 1e-40])
@pytest.mark.parametrize("algo", ["max", "most_recent"])
def test_given_amax(rng, given, algo):
    """The all-reduced amax replaces history[0] unless it is 0.0 (TE's
    amax_reduction_buffer): -0.0 == 0.0 takes the history's too, NaN does
    not (NaN != 0.0); an infinite or NaN amax keeps the old scale."""
    history = random_history(rng, 20, specials=False)
    history[0] = 0.75
    check(history, 3.0, amax=F32(given), algo=algo, what=f"given {given} {algo}")


def test_worked_examples():
    """Hand-computed steps (E4M3, fp8_max 448)."""
    # max of the history (7, NaN ignored): 448 / 7 = 64; the newest amax
    # (history[0] = 3) goes to the end, element 1 (1.0) leaves.
    hist, scale = check([3.0, 1.0, 7.0, np.nan, 2.0], 2.0, what="max")
    assert list(hist[:2]) == [0.0, 7.0] and np.isnan(hist[2])
    assert list(hist[3:]) == [2.0, 3.0] and scale[0] == 64.0
    # most_recent: 448 / 3, rounded to nearest even in f32.
    _, scale = check([3.0, 1.0, 7.0], 2.0, algo="most_recent", what="most_recent")
    assert scale[0] == F32(448.0) / F32(3.0)
    # All zero: the old scale stays; a tiny amax overflows to FLT_MAX.
    _, scale = check([0.0, 0.0, 0.0], 5.0, what="zeros")
    assert scale[0] == 5.0
    _, scale = check([1e-45, 0.0], 5.0, what="tiny")
    assert scale[0] == np.finfo(F32).max
    # An infinite amax keeps the old scale, and an infinite old scale
    # becomes FLT_MAX (TE's isinf rule after the choice).
    _, scale = check([np.inf, 1.0], np.inf, what="inf")
    assert scale[0] == np.finfo(F32).max
    # One element: the history becomes [0], the amax is that element.
    hist, scale = check([8.0], 1.0, what="L=1")
    assert hist[0] == 0.0 and scale[0] == 56.0
    # margin 1 halves the target: E5M2 57344 / 2 / 7.
    _, scale = check([7.0, 0.0], 1.0, fp8="e5m2", margin=1, what="margin")
    assert scale[0] == F32(28672.0) / F32(7.0)


def test_training_steps(rng):
    """Three steps of TE's delayed scaling as a user writes them: each step
    quantizes x with the recipe's scale and the amax slot history[0]
    (tensor.extract_slice), then updates the recipe with the quantize's
    updated amax; the next step uses the new scale and history. Codes,
    scale_inv, history and scale as the reference's at every step."""
    shape, length = (64, 128), 8
    q = h.quantizer("fp8_delayed", columnwise=False)
    t, qt = h.ttype(shape, "bf16"), h.qtype(shape, "bf16", q)
    hist_t = h.ttype((length,), "f32")
    module = f"""func.func @step(%x: {t}, %h: {hist_t}, %s: tensor<1xf32>)
    -> ({qt}, {hist_t}, tensor<1xf32>) {{
  %a = tensor.extract_slice %h[0] [1] [1] : {hist_t} to tensor<1xf32>
  %q, %a2 = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>)
      : {t} -> {qt}, tensor<1xf32>
  %h2, %s2 = qs.amax_and_scale_update %h, %s amax(%a2 : tensor<1xf32>) : {hist_t}, tensor<1xf32>
  return %q, %h2, %s2 : {qt}, {hist_t}, tensor<1xf32>
}}"""
    history, scale = np.zeros(length, F32), np.array([1.0], F32)
    for step in range(3):
        x = h.random_input(rng, shape, "bf16", specials=False, exponents=(step - 3, step + 3))
        with np.errstate(all="ignore"):
            bufs, updated = ref.quantize(x, q, "bf16", scale=scale[0], amax_state=history[0])
        outs = h.run(module, "step", [h.to_npy(x, "bf16"), history, scale], len(bufs) + 2)
        for (name, want), got in zip(bufs.items(), outs):
            h.assert_bytes_equal(got, want, f"step {step} {name}")
        history, scale = ref.amax_and_scale_update(history, scale, updated)
        h.assert_bytes_equal(outs[-2], history, f"step {step} history")
        h.assert_bytes_equal(outs[-1], scale, f"step {step} scale")
    assert scale[0] != 1.0  # the recipe moved the scale


def test_recipe_example(rng):
    """examples/delayed_scaling_recipe.mlir: the step for the three tensors
    of linear_fp8_delayed.mlir (X and W E4M3, dY E5M2; 1024 amaxes each),
    the given amaxes one of them 0.0 (the history's own is taken)."""
    import os
    with open(os.path.join(h.ROOT, "examples", "delayed_scaling_recipe.mlir")) as f:
        module = f.read()
    inputs, want = [], []
    for name, fp8, given in (("x", "e4m3", 3.5), ("w", "e4m3", 0.0), ("dy", "e5m2", 1e-3)):
        history = random_history(rng, 1024, specials=False)
        scale = np.array([rng.uniform(0.5, 4.0)], F32)
        amax = np.array([given], F32)
        inputs += [history, scale, amax]
        want += list(ref.amax_and_scale_update(history, scale, amax, fp8))
    outs = h.run(module, "recipe_step", inputs, 6)
    for i, (got, expected) in enumerate(zip(outs, want)):
        h.assert_bytes_equal(got, expected, f"recipe_step result {i}")


def test_updates_in_one_launch(rng):
    """Five updates of one function, which the GPU lowering computes in one
    kernel (a block each: TE's bulk launch) with different lengths,
    algorithms, formats, margins and given amaxes per block; the fourth
    reads the second's new scale, so it starts a launch of its own."""
    configs = [(1024, "e4m3", 0, "max", 2.5), (7, "e5m2", 1, "most_recent", None),
               (300, "e4m3", -1, "max", 0.0), (1, "e5m2", 0, "max", None),
               (129, "e4m3", 0, "most_recent", np.nan)]
    args, lines, results, inputs, want = [], [], [], [], []
    for i, (length, fp8, margin, algo, given) in enumerate(configs):
        hist = h.ttype((length,), "f32")
        args += [f"%h{i}: {hist}", f"%s{i}: tensor<1xf32>"]
        scale = f"%n1" if i == 3 else f"%s{i}"
        amax = ""
        if given is not None:
            args.append(f"%a{i}: tensor<1xf32>")
            amax = f" amax(%a{i} : tensor<1xf32>)"
        attrs = f'{{fp8_dtype = {FP8[fp8]}, margin = {margin} : i64, amax_compute_algo = "{algo}"}}'
        lines.append(f"  %g{i}, %n{i} = qs.amax_and_scale_update %h{i}, {scale}{amax} {attrs} "
                     f": {hist}, tensor<1xf32>")
        results += [(f"%g{i}", hist), (f"%n{i}", "tensor<1xf32>")]
        history = random_history(rng, length, specials=True)
        old = np.array([rng.uniform(0.5, 4.0)], F32)
        inputs += [history, old] + ([np.array([given], F32)] if given is not None else [])
        want += list(ref.amax_and_scale_update(history, want[3] if i == 3 else old,
                                               given, fp8, margin, algo))
    types = ", ".join(t for _, t in results)
    module = (f"func.func @step({', '.join(args)}) -> ({types}) {{\n" + "\n".join(lines)
              + f"\n  return {', '.join(n for n, _ in results)} : {types}\n}}")
    outs = h.run(module, "step", inputs, len(results))
    for i, (got, expected) in enumerate(zip(outs, want)):
        h.assert_bytes_equal(got, expected, f"update {i // 2} result {i % 2}")
