//===- QSInterfaces.cpp - QuantizerAttrInterface --------------------------===//

#include "qs/Dialect/QS/IR/QSInterfaces.h"

using namespace mlir;
using namespace mlir::qs;

StringRef mlir::qs::stringifyUsage(Usage usage) {
  switch (usage) {
  case Usage::None:
    return "none";
  case Usage::Rowwise:
    return "rowwise";
  case Usage::Columnwise:
    return "columnwise";
  case Usage::Both:
    return "rowwise+columnwise";
  }
  llvm_unreachable("unknown usage");
}

StringRef mlir::qs::stringifyScalingMode(ScalingMode mode) {
  switch (mode) {
  case ScalingMode::DelayedTensor:
    return "per-tensor FP8";
  case ScalingMode::MXFP8_1D:
    return "MXFP8";
  case ScalingMode::Block1D:
    return "1x128 block FP8";
  case ScalingMode::Block2D:
    return "128x128 block FP8";
  case ScalingMode::NVFP4_1D:
    return "NVFP4";
  }
  llvm_unreachable("unknown scaling mode");
}

bool mlir::qs::areGemmCompatible(ScalingMode a, ScalingMode b) {
  auto isBlock = [](ScalingMode m) {
    return m == ScalingMode::Block1D || m == ScalingMode::Block2D;
  };
  if (isBlock(a) && isBlock(b))
    return !(a == ScalingMode::Block2D && b == ScalingMode::Block2D);
  return a == b;
}

#include "qs/Dialect/QS/IR/QSInterfaces.cpp.inc"
