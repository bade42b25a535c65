// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ONCE
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// A persistent per-tensor FP8 GEMM (qs.gemm_persistent = 5): 48 output
// tiles of 128 x 128 on 5 blocks, each looping over tiles b, b + 5, ...
// The consumers free a tile's last stage after their final
// wgmma.wait_group 0 (one arrival each, predicated inside the asm, so no
// branch lets LLVM duplicate the `.aligned` wait into divergent paths),
// then run the epilogue while the producer loads the next tile.
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 5 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196704 : i64}
// CHECK-LABEL: .entry qs_gemm(
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: // end inline asm
// CHECK: @p mbarrier.arrive.shared::cta.b64 _, [{{%r[0-9]+}}];
// CHECK: st.global.b32
// The consumers' tile loop, then the producer's.
// CHECK: add.s64 [[T:%rd[0-9]+]], [[T]], 5;
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d
// CHECK: add.s64 [[P:%rd[0-9]+]], [[P]], 5;
// ONCE-COUNT-1: wgmma.wait_group.sync.aligned 0;
// ONCE-NOT: wgmma.wait_group.sync.aligned 0;
!x = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_persistent = 5 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    %y = qs.gemm %x, %w transpose_b fast_accumulate : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
}
