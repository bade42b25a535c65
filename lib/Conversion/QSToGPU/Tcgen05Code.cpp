//===- Tcgen05Code.cpp - GEMM kernels: tcgen05 index code -----------------===//
//
// sm_100a: the tcgen05 instruction descriptor, shared-memory matrix and
// scale-factor descriptors, tensor-memory columns and the gathering of
// block scales into cuBLAS's 128x4 chunks (GemmCode.h), shared by
// GemmTcgen05.cpp and Tcgen05Emulation.cpp.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

uint32_t Tcgen05Instr::encode() const {
  uint32_t common = (typeA & 7) << 7 | (typeB & 7) << 10 |
                    uint32_t(mnMajorA) << 15 | uint32_t(mnMajorB) << 16 |
                    uint32_t(n >> 3) << 17;
  if (!blockScaled)
    return common | (dType & 3) << 4 | uint32_t(m >> 4) << 24;
  assert(m % 128 == 0 && "block-scaled tcgen05.mma has M = 128 or 256");
  return common | (sfIdB & 3) << 4 | uint32_t(scaleE8M0) << 23 |
         uint32_t(m >> 7) << 27 | (sfIdA & 3) << 29;
}

Tcgen05Instr Tcgen05Instr::decode(uint32_t bits, bool blockScaled) {
  Tcgen05Instr d;
  d.blockScaled = blockScaled;
  if (!blockScaled) {
    d.scaleE8M0 = false;
    d.dType = (bits >> 4) & 3;
  } else {
    d.sfIdB = (bits >> 4) & 3;
    d.scaleE8M0 = (bits >> 23) & 1;
    d.sfIdA = (bits >> 29) & 3;
  }
  d.typeA = (bits >> 7) & 7;
  d.typeB = (bits >> 10) & 7;
  d.mnMajorA = (bits >> 15) & 1;
  d.mnMajorB = (bits >> 16) & 1;
  d.n = int64_t((bits >> 17) & 0x3F) << 3;
  d.m = blockScaled ? int64_t((bits >> 27) & 3) << 7
                    : int64_t((bits >> 24) & 0x1F) << 4;
  return d;
}

Value GemmCode::stageSf(Value s, int64_t op, int64_t c, int64_t g) {
  return env.add(stageA(s),
                 i(plan.tileBytes() + plan.sfChunkIndex(op, c, g) * 512));
}

namespace {
/// start >> 4 | stride >> 4 << 32 | version 1 << 46 | layout << 61, plus
/// the leading byte offset field.
Value sm100Descriptor(GemmCode &code, Value address, int64_t leading,
                      int64_t stride, int64_t layout) {
  KernelEnv &env = code.env;
  Value start = code.band(code.shr(address, 4), 0x3FFF);
  Value desc = arith::IndexCastUIOp::create(
      env.b, env.loc, env.b.getI64Type(),
      env.add(start, env.add(code.i(leading << 16),
                             code.shl(code.i(stride >> 4), 32))));
  uint64_t high = uint64_t(1) << 46 | uint64_t(layout) << 61;
  return arith::OrIOp::create(
      env.b, env.loc, desc,
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(),
                                   static_cast<int64_t>(high)));
}
} // namespace

Value GemmCode::ummaDescriptor(Value address, const OperandPlan &op) {
  return sm100Descriptor(*this, address,
                         op.mnMajor ? plan.mnAtomBytes() >> 4 : 1, 1024, 2);
}

Value GemmCode::mmaStep(const OperandPlan &op, Value desc, int64_t j) {
  int64_t bytes = op.mnMajor ? 32 * 128 : 32;
  return arith::AddIOp::create(
      env.b, env.loc, desc,
      arith::ConstantIntOp::create(env.b, env.loc, env.b.getI64Type(),
                                   (bytes >> 4) * j));
}

Value GemmCode::sfDescriptor(Value address) {
  return sm100Descriptor(*this, address, 0, 128, 0);
}

Value GemmCode::accColumn() {
  if (plan.accBuffers() == 1)
    return i(0);
  return env.mul(env.rem(unitIndex, i(plan.accBuffers())), i(plan.tileN));
}

Value GemmCode::sfColumn(Value slot, int64_t op, int64_t c, int64_t g) {
  return env.add(env.mul(slot, i(4 * plan.sfStageChunks())),
                 i(plan.accColumns() + 4 * plan.sfChunkIndex(op, c, g)));
}

Tcgen05Instr GemmCode::instr(int64_t j) const {
  Tcgen05Instr d;
  d.m = kTileM;
  d.n = plan.tileN;
  d.mnMajorA = plan.a.mnMajor;
  d.mnMajorB = plan.b.mnMajor;
  if (plan.sfChunks() == 0) {
    d.blockScaled = false;
    d.typeA = plan.typeA == "e5m2" ? 1 : 0;
    d.typeB = plan.typeB == "e5m2" ? 1 : 0;
    d.scaleE8M0 = false;
  } else if (plan.fp4()) {
    d.typeA = d.typeB = 1; // E2M1 (packed, kind::mxf4nvf4)
    d.scaleE8M0 = false;   // UE4M3
  } else {
    d.typeA = plan.typeA == "e5m2" ? 1 : 0;
    d.typeB = plan.typeB == "e5m2" ? 1 : 0;
    d.scaleE8M0 = true;
    d.sfIdA = d.sfIdB = j;
  }
  return d;
}

void GemmCode::gatherScales(
    Value tm, Value tn, Value lane, Value kt, Value s, Value scalesA,
    Value scalesB, const std::function<Value(Value, Value)> &loadWord,
    const std::function<Value(Value, Value)> &loadByte,
    const std::function<void(Value, ArrayRef<Value>)> &store16) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  int64_t blocks = ceilDiv(plan.k, plan.sfBlockK());
  int64_t chunks = plan.sfChunks();
  // 1.0 in each byte: E8M0 127, E4M3 0x38.
  int64_t ones = plan.fp4() ? 0x38383838 : 0x7F7F7F7F;
  for (int64_t op = 0; op < 2; ++op) {
    const OperandPlan &p = op ? plan.b : plan.a;
    Value scales = op ? scalesB : scalesA;
    // Chunk c of row group g (128 rows: B in 128x256 tiles has two).
    for (int64_t q = 0; q < chunks * plan.sfGroups(op); ++q) {
      int64_t c = q % chunks, g = q / chunks;
      Value rowBase =
          env.add(op ? env.mul(tn, i(plan.tileN)) : env.mul(tm, i(kTileM)),
                  i(kTileM * g));
      Value first = env.mul(env.add(env.mul(kt, i(chunks)), i(c)), i(4));
      // Real blocks in this word: clamp(blocks - first, 0, 4); the word
      // read is the last real one when none is.
      Value real = arith::SelectOp::create(
          b, loc, env.lt(first, i(blocks)),
          minI(arith::SubIOp::create(b, loc, i(blocks), first), i(4)), i(0));
      Value at0 = minI(first, i((blocks - 1) / 4 * 4));
      Value keep64 = arith::SubIOp::create(
          b, loc,
          arith::ShLIOp::create(
              b, loc, arith::ConstantIntOp::create(b, loc, i64, 1),
              arith::IndexCastUIOp::create(b, loc, i64,
                                           env.mul(real, i(8)))),
          arith::ConstantIntOp::create(b, loc, i64, 1));
      Value keep = arith::TruncIOp::create(b, loc, i32, keep64);
      Value fill = arith::AndIOp::create(
          b, loc, arith::ConstantIntOp::create(b, loc, i32, ones),
          arith::XOrIOp::create(
              b, loc, keep, arith::ConstantIntOp::create(b, loc, i32, -1)));
      SmallVector<Value> words;
      for (int64_t g = 0; g < 4; ++g) {
        Value row = minI(env.add(rowBase, env.add(lane, i(32 * g))),
                         i(p.rows - 1));
        Value word;
        if (p.blockDim <= 2) {
          // FP8 block: one FP32 scale per 128-block (the word's four
          // 32-blocks), its exponent byte in each of the word's bytes.
          Value bits = arith::BitcastOp::create(
              b, loc, i32, blockScale(p, scales, row, env.div(at0, i(4))));
          Value e = arith::AndIOp::create(
              b, loc,
              arith::ShRUIOp::create(
                  b, loc, bits, arith::ConstantIntOp::create(b, loc, i32, 23)),
              arith::ConstantIntOp::create(b, loc, i32, 0xFF));
          word = arith::MulIOp::create(
              b, loc, e, arith::ConstantIntOp::create(b, loc, i32, 0x01010101));
        } else if (p.mnMajor && !p.swizzled) {
          // Column-wise compact: G[row, kb] at kb * scaleLd + row.
          for (int64_t q = 0; q < 4; ++q) {
            Value kb = minI(env.add(at0, i(q)), i(blocks - 1));
            Value byte = loadByte(scales, env.add(env.mul(kb, i(p.scaleLd)), row));
            byte = arith::ShLIOp::create(
                b, loc, byte, arith::ConstantIntOp::create(b, loc, i32, 8 * q));
            word = word ? arith::OrIOp::create(b, loc, word, byte).getResult()
                        : byte;
          }
        } else {
          Value at = p.swizzled ? swizzledScale(row, at0, p.scaleLd)
                                : env.add(env.mul(row, i(p.scaleLd)), at0);
          word = loadWord(scales, at);
        }
        words.push_back(arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, word, keep), fill));
      }
      store16(env.add(stageSf(s, op, c, g), env.mul(lane, i(16))), words);
    }
  }
}
