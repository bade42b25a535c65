// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=COAL
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.quantize_stores = "direct"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=DIRECT
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.quantize_stores = "coalesced"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=COAL

// qs.quantize_stores (on the quantize or an enclosing operation; here the
// module). "coalesced", the default: MXFP8 row-wise blocks of 32 split over
// two lanes that meet by a butterfly shuffle, one 16-byte store of codes
// per lane; the per-tensor transpose staged in shared memory and stored
// after a barrier. "direct": a thread per block and its two 16-byte
// stores, no shuffle; the transpose's codes stored from registers, no
// second barrier.
// COAL-LABEL: .entry qs_quantize(
// COAL: st.global.v4.b32
// COAL-NOT: st.global.v4.b32
// COAL: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 31, -1;
// COAL-NOT: st.global.v4.b32
// COAL-LABEL: .entry qs_quantize_init(
// COAL-LABEL: .entry qs_quantize_0(
// COAL: bar.sync 0
// COAL: st.shared.v4.b32
// COAL: bar.sync 0
// COAL: ld.shared.v4.b32
// COAL: st.global.v4.b32
// COAL: ret;

// DIRECT-LABEL: .entry qs_quantize(
// DIRECT-NOT: shfl
// DIRECT-COUNT-2: st.global.v4.b32
// DIRECT: ret;
// DIRECT-LABEL: .entry qs_quantize_0(
// DIRECT: bar.sync 0
// DIRECT-NOT: bar.sync
// DIRECT: st.global.v4.b32
// DIRECT-NOT: bar.sync
// DIRECT: ret;
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> (!qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>, !qs.tensor<256x512xbf16, #qs.fp8_current<rowwise = false>>) {
  %a = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
  %b = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_current<rowwise = false>>
  return %a, %b : !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>, !qs.tensor<256x512xbf16, #qs.fp8_current<rowwise = false>>
}
}
