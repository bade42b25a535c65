//===- PtxModel.h - host models of PTX instructions for unit tests -*- C++
//-*-===//
//
// PTX instructions whose semantics the kernels' integer sequences rely on,
// written from the PTX ISA for the host-side unit tests that run those
// sequences.
//
//===----------------------------------------------------------------------===//

#ifndef QS_UNITTESTS_PTXMODEL_H
#define QS_UNITTESTS_PTXMODEL_H

#include <cstdint>

namespace qs_test {

/// prmt.b32 d, a, b, c (the default mode): byte k of d is byte n & 7 of
/// {b, a} (a's bytes 0-3, b's 4-7), n = nibble k of c, or that byte's bit
/// 7 replicated over the byte where n & 8.
inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t pair = static_cast<uint64_t>(b) << 32 | a;
  uint32_t d = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned n = (c >> (4 * k)) & 0xF;
    uint32_t byte = static_cast<uint32_t>(pair >> (8 * (n & 7))) & 0xFF;
    if (n & 8)
      byte = byte & 0x80 ? 0xFF : 0;
    d |= byte << (8 * k);
  }
  return d;
}

} // namespace qs_test

#endif // QS_UNITTESTS_PTXMODEL_H
