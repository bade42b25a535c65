//===- RegisterPipeline.h - Pipeline registration with option errors ------===//
//
// registerPipeline<Options>: upstream PassPipelineRegistration parses the
// pipeline's options with their errors (an unknown option) printed on
// llvm::errs(), so that a caller parsing a pipeline into its own stream
// (the C API and Python's QSError, a compiler reusing the pipelines) gets
// only "failed to add". This one reports them through the parser's error
// handler: the same text, on the pipeline parser's stream, as the passes'
// own option errors, and then the option values' own rules (an Options
// type's `validate`).
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_PIPELINES_REGISTERPIPELINE_H
#define QS_LIB_PIPELINES_REGISTERPIPELINE_H

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <type_traits>
#include <utility>

namespace mlir::qs {

/// Whether Options has `LogicalResult validate(raw_ostream &) const`.
template <typename Options, typename = void>
struct HasValidate : std::false_type {};
template <typename Options>
struct HasValidate<
    Options, std::void_t<decltype(std::declval<const Options &>().validate(
                 std::declval<llvm::raw_ostream &>()))>> : std::true_type {};

template <typename Options>
void registerPipeline(StringRef arg, StringRef description,
                      void (*builder)(OpPassManager &, const Options &)) {
  registerPassPipeline(
      arg, description,
      [builder](OpPassManager &pm, StringRef text,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        std::string errors;
        llvm::raw_string_ostream os(errors);
        if (failed(options.parseFromString(text, os)))
          return errorHandler(StringRef(errors).rtrim());
        // The values' own rules (a chip name, a toolkit holding ptxas).
        if constexpr (HasValidate<Options>::value)
          if (failed(options.validate(os)))
            return errorHandler(StringRef(errors).rtrim());
        builder(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(Options());
      });
}

} // namespace mlir::qs

#endif // QS_LIB_PIPELINES_REGISTERPIPELINE_H
