// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefixes=CHECK,SM90
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ORDER
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100

// Per-tensor current scaling: an amax kernel (16-byte loads, warp
// butterfly reductions, then after a barrier one native unsigned atomic
// max per block: not one per warp, see fp8-delayed.mlir), then the
// cast kernel (tile in shared memory, packed E4M3 conversion, 16-byte
// stores; 16 resident blocks asked for, at most 32 registers). sm_90a is
// TN-only: data and transpose (two conversions per element); sm_100a
// keeps one buffer.
// SM90: .version 8.0
// SM90: .target sm_90a
// SM100: .version 8.8
// SM100: .target sm_100a
// CHECK-LABEL: .entry qs_quantize_init(
// CHECK-LABEL: .entry qs_quantize_amax(
// CHECK: ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0
// CHECK: atom.global.max.u32
// CHECK-NOT: atom.global
// CHECK-LABEL: .entry qs_quantize(
// CHECK: .maxntid 128, 1, 1
// CHECK: .minnctapersm 16
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync 0
// CHECK: ld.shared.v4.b32
// The packed conversions' 16-bit pairs become the stored words whole
// (mov.b32 of two halves; splitting them into bytes and joining those
// took ~14 prmt per 16 codes).
// CHECK-NOT: prmt
// CHECK: cvt.rn.satfinite.e4m3x2.f32 [[LO:%rs[0-9]+]],
// CHECK-NEXT: cvt.rn.satfinite.e4m3x2.f32 [[HI:%rs[0-9]+]],
// CHECK-NOT: prmt
// CHECK: mov.b32 [[W:%r[0-9]+]], {[[LO]], [[HI]]};
// CHECK-NOT: prmt
// CHECK: st.global.v4.b32 [{{%rd[0-9]+}}], {[[W]],
// SM100-NOT: ld.shared.v2.b16
// The transpose (sm_90a): the row-wise codes, left in the tile over each
// chunk's start, transposed after a barrier (columnFromRowCodesPhase: a
// thread reads 4 columns' codes with one 32-bit shared load per row, 16
// rows, and transposes them by byte permutes; no second conversion, where
// perTensorColumnPairs converted each element again), staged in shared
// memory and stored after a barrier with 16-byte stores of consecutive
// chunks of a transpose row (stagedColumnStorePhase; one 16-byte store
// per 16-row chunk and thread wrote half a 32-byte sector per
// instruction).
// SM90: bar.sync 0
// SM90-COUNT-16: ld.shared.b32
// SM90: prmt.b32 {{.*}}, 0x5140U;
// SM90-NOT: cvt.rn.satfinite
// SM90: st.shared.v4.b32
// SM90: bar.sync 0
// SM90: ld.shared.v4.b32 {[[V:%r[0-9]+]],
// SM90: st.global.v4.b32 [{{%rd[0-9]+}}], {[[V]],
// The cast kernel reads the amax (for its scale) before its first store
// (block 0's scale_inv): the outputs may alias it as far as the compilers
// know, so a read after a store would wait out its latency.
// ORDER-LABEL: .entry qs_quantize(
// ORDER: st.global
// ORDER-NOT: ld.global
// ORDER: ret;
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_current<>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_current<>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_current<>>
}
}
