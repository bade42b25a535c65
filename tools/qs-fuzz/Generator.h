//===- Generator.h - structure-aware qs program generator -------*- C++ -*-===//
//
// Turns fuzzer bytes into the text of a module of qs programs: random
// !qs.tensor types (ranks 1-4, shapes near the block sizes), quantizer
// attributes of every family with random parameters (mostly legal, some
// not), and functions that quantize, dequantize, update usages, run GEMMs,
// pass values through scf.if and func.call and return them. The text goes
// through the parser, verifiers and passes like any other input, so the
// layout code and the passes see far more well-formed programs than byte
// mutation of IR text alone would reach.
//
//===----------------------------------------------------------------------===//

#ifndef QS_TOOLS_QSFUZZ_GENERATOR_H
#define QS_TOOLS_QSFUZZ_GENERATOR_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace qs_fuzz {

/// The module text generated from `size` bytes at `data` (deterministic).
std::string generateModule(const uint8_t *data, size_t size);

} // namespace qs_fuzz

#endif // QS_TOOLS_QSFUZZ_GENERATOR_H
