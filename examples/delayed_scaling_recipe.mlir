// TE's DelayedScaling recipe step for the Linear layer of
// linear_fp8_delayed.mlir (HYBRID: E4M3 for X and W, E5M2 for dY; margin 0,
// amax_history_len 1024, amax_compute_algo "max"), after each iteration.
// Each tensor's history holds its step's amax in element 0 (the amax state
// the quantizes update; linear_fwd and linear_bwd return the updated ones,
// given here as %amax_*, TE's amax_reduction_buffer after an all-reduce
// in a parallel program). The step rolls each history and computes the
// scale the next iteration's quantizes use (docs/Dialect.md "Delayed
// scaling's recipe step"); the caller keeps the results as the recipe's
// state.

!h = tensor<1024xf32>
!s = tensor<1xf32>

func.func @recipe_step(%hist_x: !h, %scale_x: !s, %amax_x: !s,
                       %hist_w: !h, %scale_w: !s, %amax_w: !s,
                       %hist_dy: !h, %scale_dy: !s, %amax_dy: !s)
    -> (!h, !s, !h, !s, !h, !s) {
  %hx, %sx = qs.amax_and_scale_update %hist_x, %scale_x amax(%amax_x : !s) : !h, !s
  %hw, %sw = qs.amax_and_scale_update %hist_w, %scale_w amax(%amax_w : !s) : !h, !s
  %hdy, %sdy = qs.amax_and_scale_update %hist_dy, %scale_dy amax(%amax_dy : !s)
      {fp8_dtype = f8E5M2} : !h, !s
  return %hx, %sx, %hw, %sw, %hdy, %sdy : !h, !s, !h, !s, !h, !s
}

