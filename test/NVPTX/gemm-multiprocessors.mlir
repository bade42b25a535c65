// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,SXM
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu="multiprocessors=114 report-gemm-plans" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,PCIE
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa multiprocessors=64 report-gemm-plans" -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,SIXTYFOUR

// The multiprocessors option (convert-qs-to-gpu, qs-nvptx-pipeline; qs-run
// and Python's run_cuda pass the device's): the GEMM plans fill that many
// instead of the chip's data-sheet 132 (H100/H200 SXM). 1920 x 2048 with
// fast_accumulate: 15 x 8 = 120 tiles of 128x256 leave 12 of 132
// multiprocessors idle (so 128x128 tiles, 240 of them) but fill 114 (an
// H100 PCIe); the ping-pong kernel runs one persistent block per
// multiprocessor; split-K "auto" of 128 x 4096 x 14336 (32 tiles) makes
// 4 x 32 = 128 units (one wave) for 132 multiprocessors, 7 x 32 = 224 (two
// full waves of 114; 4 splits would leave the second wave 14 units) for
// 114, and 2 x 32 = 64 (one wave) for 64.

// CHECK: remark: GEMM kernel plan: sm_90a wgmma kernel,
// SXM: 128x128 tiles (15 x 16)
// SXM: 132 blocks of 384 threads
// SXM: 112 k-tiles of 128 in 4 splits of 28
// PCIE: 128x256 tiles (15 x 8)
// PCIE: 114 blocks of 384 threads
// PCIE: 112 k-tiles of 128 in 7 splits of 16
// SIXTYFOUR: 128x256 tiles (15 x 8)
// SIXTYFOUR: 64 blocks of 384 threads
// SIXTYFOUR: 112 k-tiles of 128 in 2 splits of 56
!x = !qs.tensor<1920x256xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<2048x256xbf16, #qs.fp8_current<columnwise = false>>
!xd = !qs.tensor<128x14336xbf16, #qs.fp8_current<columnwise = false>>
!wd = !qs.tensor<4096x14336xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @fast(%x: !x, %w: !w) -> tensor<1920x2048xbf16> {
    %y = qs.gemm %x, %w transpose_b fast_accumulate : !x, !w -> tensor<1920x2048xbf16>
    return %y : tensor<1920x2048xbf16>
  }
  func.func @pingpong(%x: !x, %w: !w) -> tensor<1920x2048xbf16> {
    %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !x, !w -> tensor<1920x2048xbf16>
    return %y : tensor<1920x2048xbf16>
  }
  func.func @deep(%x: !xd, %w: !wd) -> tensor<128x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto"} : !xd, !wd -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
}
