//===- QSAttrs.h - quantizer attributes -------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSATTRS_H
#define QS_DIALECT_QS_IR_QSATTRS_H

#include "qs/Dialect/QS/IR/QSInterfaces.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"

namespace mlir {
namespace qs {
/// Parses an f32 attribute parameter (`amax_epsilon = 1.0e-12`); integer
/// literals are accepted too.
FailureOr<llvm::APFloat> parseF32Parameter(AsmParser &parser);

/// NVFP4's RHT sign vector as TE's `rht_matrix_random_sign_mask_t`: bit i
/// set iff sign i is -1 (te-formats.md §5.a; `#qs.nvfp4` with
/// `with_random_sign_mask`, the default; without it the mask is 0).
constexpr uint32_t kNvfp4RhtSignMask = 0xD7E8;

/// NVFP4's 6 E, E = `nvfp4_e4m3_max` (2688, or 1536 with 4over6's 256):
/// S_enc = 6E / G, and amax / 6E dequantizes (te-formats.md §5.c-§5.d).
constexpr float nvfp4SixE(int64_t e4m3Max) {
  return 6.0f * static_cast<float>(e4m3Max);
}
/// f32(1 / 6E): 0x39C30C31 (1/2688) for E = 448, 0x3A2AAAAB for 256.
constexpr float nvfp4InvSixE(int64_t e4m3Max) {
  return 1.0f / nvfp4SixE(e4m3Max);
}
} // namespace qs
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "qs/Dialect/QS/IR/QSAttrs.h.inc"

#endif // QS_DIALECT_QS_IR_QSATTRS_H
