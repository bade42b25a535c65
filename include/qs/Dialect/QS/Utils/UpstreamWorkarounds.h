//===- UpstreamWorkarounds.h - known crashes of upstream MLIR ---*- C++ -*-===//
//
// Inputs that crash MLIR 22.1.8 itself (Debian's libMLIR), found by qs-fuzz.
// Our tools check for them before handing text to the parser, so that the
// user gets a diagnostic instead of a segmentation fault.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_UPSTREAMWORKAROUNDS_H
#define QS_DIALECT_QS_UTILS_UPSTREAMWORKAROUNDS_H

#include "llvm/ADT/StringRef.h"
#include <cctype>
#include <optional>

namespace mlir {
namespace qs {
namespace detail {
/// The first offset at or after `i` in `text` that is not white space.
inline size_t skipSpace(llvm::StringRef text, size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  return i;
}
} // namespace detail

/// The offset in `text` of a dense array of `index` elements
/// (`array<index ...>`, spaces allowed): MLIR 22.1's parser asks an index
/// type for its bit width and crashes (llvm-project issue 179045, fixed
/// upstream by PR 179075 after 22.1.8).
inline std::optional<size_t> findIndexDenseArray(llvm::StringRef text) {
  for (size_t at = text.find("array"); at != llvm::StringRef::npos;
       at = text.find("array", at + 1)) {
    size_t i = detail::skipSpace(text, at + 5);
    if (i >= text.size() || text[i] != '<')
      continue;
    i = detail::skipSpace(text, i + 1);
    if (text.substr(i).starts_with("index"))
      return at;
  }
  return std::nullopt;
}

/// The offset in `text` of a linalg `dimensions = ...` / `permutation = ...`
/// list (linalg.reduce, linalg.broadcast, linalg.transpose) that is not a
/// plain `[i, j, ...]` of integers: MLIR 22.1's custom parser then adds a
/// null attribute and crashes (llvm-project issue 132747, open). The
/// generic form (`array<i64: ...>`) is not affected.
inline std::optional<size_t>
findMalformedLinalgDimensions(llvm::StringRef text) {
  for (llvm::StringRef keyword : {"dimensions", "permutation"}) {
    for (size_t at = text.find(keyword); at != llvm::StringRef::npos;
         at = text.find(keyword, at + 1)) {
      size_t i = detail::skipSpace(text, at + keyword.size());
      if (i >= text.size() || text[i] != '=')
        continue;
      i = detail::skipSpace(text, i + 1);
      if (text.substr(i).starts_with("array"))
        continue;
      if (i >= text.size() || text[i] != '[')
        return at;
      size_t close = text.find(']', i);
      if (close == llvm::StringRef::npos)
        return at;
      for (char c : text.substr(i + 1, close - i - 1))
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != ',' &&
            c != '-' && !std::isspace(static_cast<unsigned char>(c)))
          return at;
    }
  }
  return std::nullopt;
}

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_UPSTREAMWORKAROUNDS_H
