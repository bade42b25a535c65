//===- RunnerDetail.h - shared pieces of the CPU and CUDA runners ---------===//
//
// Private to the QSRunner library.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_RUNNER_RUNNERDETAIL_H
#define QS_LIB_RUNNER_RUNNERDETAIL_H

#include "qs/Runner/CPURunner.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace mlir {
namespace qs {
namespace runner {

/// A ranked memref descriptor for the C interface:
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct Descriptor {
  std::vector<int64_t> words;
  Descriptor(void *data, ArrayRef<int64_t> shape) {
    words.resize(3 + 2 * shape.size());
    std::memcpy(&words[0], &data, sizeof(void *));
    std::memcpy(&words[1], &data, sizeof(void *));
    words[2] = 0;
    int64_t stride = 1;
    for (int64_t i = shape.size() - 1; i >= 0; --i) {
      words[3 + i] = shape[i];
      words[3 + shape.size() + i] = stride;
      stride *= shape[i];
    }
  }
  void *get() { return words.data(); }
};

inline size_t byteSize(RankedTensorType type) {
  return type.getNumElements() * getElementByteWidth(type.getElementType());
}

/// Calls `_mlir_ciface_<function>` of `engine` with one ranked memref
/// descriptor per argument (inputs then results).
llvm::Error invokeWithDescriptors(ExecutionEngine &engine, StringRef function,
                                  std::vector<Descriptor> &descriptors);

/// The JIT's module transformer: code generation for the host CPU's features
/// less the x86 BF16 conversion instructions, then LLVM's -O`optLevel`.
///
/// With AVX512-BF16 or AVX-NE-CONVERT, LLVM selects vcvtneps2bf16 for an
/// fptrunc to bfloat, including the ones the x86 backend inserts itself to
/// carry bf16 values through f32 registers (a phi or select of bfloat: the
/// kernels' bounds-guarded loads). That instruction treats a subnormal input
/// as zero whatever MXCSR says (Intel SDM), where LLVM IR, numpy and the
/// GPU's cvt.rn.bf16.f32 keep it: results would depend on the host CPU.
/// Without the two features the conversion is a call to __truncsfbf2 (MLIR's
/// float16 utilities, exact). Julia's JIT does the same (JuliaLang/julia
/// #63012); LLVM has kept the lowering (llvm/llvm-project #221052).
std::function<llvm::Error(llvm::Module *)>
makeJitTransformer(unsigned optLevel = 2);

/// The flattened signature of `func` if it exists and `inputs` match it;
/// else fails and lastCallError() says why.
FailureOr<FlatSignature> checkCall(func::FuncOp func, StringRef name,
                                   const std::vector<HostTensor> &inputs);
std::string lastCallError();

} // namespace runner
} // namespace qs
} // namespace mlir

#endif // QS_LIB_RUNNER_RUNNERDETAIL_H
