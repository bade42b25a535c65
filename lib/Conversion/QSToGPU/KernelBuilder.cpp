//===- KernelBuilder.cpp - kernels emitted for the GPU or a CPU -----------===//

#include "KernelBuilder.h"
#include "Kernels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;

/// red.global.max.u32 on the bits of a non-negative float at `target` +
/// `index` elements (f32).
static void emitUnsignedMax(OpBuilder &b, Location loc, Value value,
                            Value target, Value index) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), value);
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, target);
  Value offset = arith::MulIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, 4));
  address = arith::AddIOp::create(b, loc, address, offset);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  Value ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), asInt);
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::umax, ptr, bits,
                            LLVM::AtomicOrdering::monotonic);
}

/// max over the 32 lanes of a warp (XOR shuffles; every lane gets it).
static Value warpMax(OpBuilder &b, Location loc, Value value) {
  for (int32_t offset = 16; offset >= 1; offset /= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, loc, value, offset, 32,
                                          gpu::ShuffleMode::XOR);
    value = arith::MaxNumFOp::create(b, loc, value, shuffle.getShuffleResult());
  }
  return value;
}

Value gpuk::reduceTree(ArrayRef<Value> values,
                       llvm::function_ref<Value(Value, Value)> combine) {
  SmallVector<Value> level(values);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(combine(level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level[0];
}

KernelEnv::F32Pair KernelEnv::pairwise(PairOp op, F32Pair a, F32Pair c) {
  auto apply = [&](Value x, Value y) -> Value {
    switch (op) {
    case PairOp::Add:
      return arith::AddFOp::create(b, loc, x, y);
    case PairOp::Sub:
      return arith::SubFOp::create(b, loc, x, y);
    case PairOp::Mul:
      return arith::MulFOp::create(b, loc, x, y);
    }
    llvm_unreachable("a pair operation");
  };
  if (!pairedF32())
    return {apply(a[0], c[0]), apply(a[1], c[1])};
  auto pairType = VectorType::get({2}, b.getF32Type());
  auto pack = [&](const F32Pair &p) -> Value {
    return vector::FromElementsOp::create(b, loc, pairType,
                                          ValueRange{p[0], p[1]});
  };
  Value r = apply(pack(a), pack(c));
  return {vector::ExtractOp::create(b, loc, r, 0),
          vector::ExtractOp::create(b, loc, r, 1)};
}

Value KernelEnv::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value KernelEnv::f32(float v) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                        llvm::APFloat(v));
}
Value KernelEnv::add(Value a, Value c) {
  return arith::AddIOp::create(b, loc, a, c);
}
Value KernelEnv::mul(Value a, Value c) {
  return arith::MulIOp::create(b, loc, a, c);
}
Value KernelEnv::div(Value a, Value c) {
  return arith::DivUIOp::create(b, loc, a, c);
}
Value KernelEnv::rem(Value a, Value c) {
  return arith::RemUIOp::create(b, loc, a, c);
}
Value KernelEnv::lt(Value a, Value c) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a, c);
}
Value KernelEnv::land(Value a, Value c) {
  return arith::AndIOp::create(b, loc, a, c);
}

Value KernelEnv::toF32(Value v) {
  // f16 on the GPU by cvt.f32.f16: exact (f32 holds every f16 value,
  // subnormals as normals). Only a NaN's sign and payload may differ from
  // the software decode's (emitExtToF32, the reference's and the
  // emulation's), and no output carries them: the codes come from
  // products x * multiplier (the GPU's NaN result is 0x7FFFFFFF either
  // way), the amaxes ignore NaN, and sums and differences of x (the RHT,
  // 4over6's errors) are NaN either way.
  if (gpu && v.getType().isF16())
    return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return emitExtToF32(b, loc, v);
}

SmallVector<Value> KernelEnv::vectorToF32(Value vec) {
  auto type = cast<VectorType>(vec.getType());
  int64_t n = type.getNumElements();
  SmallVector<Value> values;
  if (!type.getElementType().isBF16() || n % 2 != 0) {
    for (int64_t e = 0; e < n; ++e)
      values.push_back(
          toF32(vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{e})));
    return values;
  }
  Type i32 = b.getI32Type(), f32Type = b.getF32Type();
  Value words =
      vector::BitCastOp::create(b, loc, VectorType::get({n / 2}, i32), vec);
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  for (int64_t w = 0; w < n / 2; ++w) {
    Value word = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
    values.push_back(arith::BitcastOp::create(
        b, loc, f32Type, arith::ShLIOp::create(b, loc, word, c(16))));
    values.push_back(arith::BitcastOp::create(
        b, loc, f32Type,
        arith::AndIOp::create(b, loc, word,
                              c(static_cast<int32_t>(0xFFFF0000)))));
  }
  return values;
}

Value KernelEnv::fromF32(Value v, Type type) {
  if (!type.isBF16())
    return emitTruncFromF32(b, loc, v, type);
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, roundToBf16(v));
  Value code = arith::TruncIOp::create(
      b, loc, b.getI16Type(),
      arith::ShRUIOp::create(b, loc, bits,
                             arith::ConstantIntOp::create(b, loc, i32, 16)));
  return arith::BitcastOp::create(b, loc, type, code);
}

Value KernelEnv::roundToBf16(Value v) {
  Type i32 = b.getI32Type();
  auto c = [&](int64_t value) {
    return arith::ConstantIntOp::create(b, loc, i32, value).getResult();
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value lsb = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(16)), c(1));
  Value rounded = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, bits, lsb),
                            c(0x7FFF)),
      c(static_cast<int32_t>(0xFFFF0000u)));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  return arith::BitcastOp::create(
      b, loc, b.getF32Type(),
      arith::SelectOp::create(b, loc, isNaN, c(0x7FC00000), rounded));
}

Value KernelEnv::absMax(Value acc, Value v) {
  Value abs = math::AbsFOp::create(b, loc, v);
  return arith::MaxNumFOp::create(b, loc, acc, abs);
}

Value gpuk::pureAsm(OpBuilder &b, Location loc, Type result,
                    ValueRange operands, StringRef text,
                    StringRef constraints) {
  return LLVM::InlineAsmOp::create(
             b, loc, TypeRange{result}, operands, b.getStringAttr(text),
             b.getStringAttr(constraints), /*has_side_effects=*/UnitAttr(),
             /*is_align_stack=*/UnitAttr(),
             LLVM::TailCallKindAttr::get(
                 b.getContext(), LLVM::tailcallkind::TailCallKind::None),
             LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

/// The i32 word whose bf16 halves f32 `lo` and `hi` are (vectorToF32's
/// bitcast(w << 16) and bitcast(w & 0xFFFF0000)); null otherwise.
static Value bf16PairWord(Value lo, Value hi) {
  auto loCast = lo.getDefiningOp<arith::BitcastOp>();
  auto hiCast = hi.getDefiningOp<arith::BitcastOp>();
  if (!loCast || !hiCast)
    return Value();
  auto shl = loCast.getIn().getDefiningOp<arith::ShLIOp>();
  auto mask = hiCast.getIn().getDefiningOp<arith::AndIOp>();
  APInt amount, bits;
  if (!shl || !mask || shl.getLhs() != mask.getLhs() ||
      !matchPattern(shl.getRhs(), m_ConstantInt(&amount)) || amount != 16 ||
      !matchPattern(mask.getRhs(), m_ConstantInt(&bits)) ||
      bits.getZExtValue() != 0xFFFF0000u)
    return Value();
  return shl.getLhs();
}

/// The word whose halves are max |.| of the bf16 halves of i32 `words`:
/// max.xorsign.abs.bf16x2 (max(|a|, |b|) per half, NaN ignored unless both
/// are; the sign bit, the XOR of the inputs', is for the caller to drop)
/// over a tree. GPU only.
static Value bf16x2AbsMax(OpBuilder &b, Location loc, ArrayRef<Value> words) {
  Type i32 = b.getI32Type();
  return reduceTree(words, [&](Value x, Value y) {
    return pureAsm(b, loc, i32, {x, y}, "max.xorsign.abs.bf16x2 $0, $1, $2;",
                   "=r,r,r");
  });
}

/// The f32 values of i32 `word`'s bf16 halves (low, high).
static std::pair<Value, Value> bf16Halves(OpBuilder &b, Location loc,
                                          Value word) {
  Type i32 = b.getI32Type(), f32Type = b.getF32Type();
  auto c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  return {arith::BitcastOp::create(b, loc, f32Type,
                                   arith::ShLIOp::create(b, loc, word, c(16))),
          arith::BitcastOp::create(
              b, loc, f32Type,
              arith::AndIOp::create(b, loc, word,
                                    c(static_cast<int32_t>(0xFFFF0000))))};
}

SmallVector<Value> KernelEnv::roundToBf16Values(ArrayRef<Value> values) {
  SmallVector<Value> rounded;
  size_t i = 0;
  for (; gpu && i + 1 < values.size(); i += 2) {
    // cvt.rn.bf16x2.f32 d, a, b puts a's bf16 in the upper half of d.
    Value word = pureAsm(b, loc, b.getI32Type(), {values[i + 1], values[i]},
                         "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f");
    auto [lo, hi] = bf16Halves(b, loc, word);
    rounded.push_back(lo);
    rounded.push_back(hi);
  }
  for (; i < values.size(); ++i)
    rounded.push_back(roundToBf16(values[i]));
  return rounded;
}

Value KernelEnv::absMaxAll(Value acc, ArrayRef<Value> values) {
  SmallVector<Value> words;
  for (size_t i = 0; gpu && i + 1 < values.size(); i += 2)
    if (Value w = bf16PairWord(values[i], values[i + 1]))
      words.push_back(w);
  if (words.size() < 2 || 2 * words.size() != values.size()) {
    for (Value v : values)
      acc = absMax(acc, v);
    return acc;
  }
  auto [lo, hi] = bf16Halves(b, loc, bf16x2AbsMax(b, loc, words));
  return absMax(absMax(acc, lo), hi);
}

std::pair<Value, Value> KernelEnv::e2m1Parts(Value q) {
  Type i32 = b.getI32Type();
  // a = min(|q|, 6) (min ignores NaN: NaN -> 6, code 7).
  Value a = arith::MinNumFOp::create(b, loc, math::AbsFOp::create(b, loc, q),
                                     f32(6.0f));
  // The three spacings' candidates, each an f32 sum rounded once to an
  // integer (a * 2 and a * 0.5 are exact): 2^23 + rne(2a), 2^23 + 2 +
  // rne(a), 2^23 + 4 + rne(a / 2). The code is the least of them: the
  // lines 2a, a + 2 and a / 2 + 4 meet at a = 2 and a = 4, so each is the
  // least on its own interval, and rounding keeps that order
  // (scripts/e2m1-encode-check.py).
  const float magic = 8388608.0f; // 2^23: sums below 2^24 round to integers
  Value t0 = math::FmaOp::create(b, loc, a, f32(2.0f), f32(magic));
  Value t1 = arith::AddFOp::create(b, loc, a, f32(magic + 2.0f));
  Value t2 = math::FmaOp::create(b, loc, a, f32(0.5f), f32(magic + 4.0f));
  Value t = arith::MinNumFOp::create(
      b, loc, arith::MinNumFOp::create(b, loc, t0, t1), t2);
  return {arith::BitcastOp::create(b, loc, i32, t), e2m1SignCarrier(q)};
}

Value KernelEnv::e2m1SignCarrier(Value q) {
  // q's sign on the GPU, where every NaN an f32 operation returns is
  // 0x7FFFFFFF (CUDA C++ Programming Guide, floating-point standard: "the
  // result of a single-precision floating-point operation involving one
  // or more input NaNs is the quiet NaN of bit pattern 0x7fffffff"; q is
  // always a product, x times the block's multiplier); min(q, 6)'s in the
  // emulation, whose x86 multiplications keep a NaN's sign (NaN positive,
  // -0 negative either way).
  Value m = gpu ? q : arith::MinNumFOp::create(b, loc, q, f32(6.0f));
  return arith::BitcastOp::create(b, loc, b.getI32Type(), m);
}

Value KernelEnv::e2m1StochasticField(Value v, Value notWord,
                                     int64_t byteIndex) {
  assert(byteIndex >= 0 && byteIndex < 4 && "a byte of the word");
  Type i32 = b.getI32Type(), f32Type = b.getF32Type();
  auto i32c = [&](uint32_t c) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(c))
        .getResult();
  };
  // a = min(|v|, 6) (min ignores NaN: NaN -> 6, magnitude 7).
  Value a = arith::MinNumFOp::create(b, loc, math::AbsFOp::create(b, loc, v),
                                     f32(6.0f));
  // bits(rp(a 2^-126)) = 2^22 L: the exponent field of a normal a' is e +
  // 1 for a = 2^e (1 + f), its fraction f, and the line of a's run is L =
  // 2 (e + 1 + f) on [1, 6] (2a, a + 2, a / 2 + 4); a subnormal a' (a < 1)
  // is a 2^23 rounded up to an integer, and L = 2a there.
  Value scaled;
  if (gpu) {
    scaled = arith::BitcastOp::create(b, loc, i32,
                                      pureAsm(b, loc, f32Type, {a},
                                              "mul.rp.f32 $0, $1, 0f00800000;",
                                              "=f,f"));
  } else {
    Value normal = arith::SubIOp::create(
        b, loc, arith::BitcastOp::create(b, loc, i32, a), i32c(0x3F000000u));
    Value subnormal = arith::FPToUIOp::create(
        b, loc, i32,
        math::CeilOp::create(b, loc,
                             arith::MulFOp::create(b, loc, a, f32(0x1p23f))));
    scaled = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, a, f32(1.0f)),
        normal, subnormal);
  }
  // 2^24 L + (255 - byte) 2^16 + 0x7FFF: frac(L) 2^24 is a multiple of 4,
  // and it carries into bit 24 iff frac(L) 2^24 >= (byte + 1) 2^16 -
  // 0x7FFF, that is iff frac(L) > (byte + 1/2) 2^-8. The addend is one
  // byte permute: bytes 0, 1 and 3 from 0x00007FFF, byte 2 the
  // complemented random byte.
  Value addend = permute(notWord, i32c(0x00007FFFu),
                         0x7054u | static_cast<uint32_t>(byteIndex) << 8);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, scaled, i32c(4)), addend);
}

Value KernelEnv::e2m1SignBit(Value m) {
  Type i32 = b.getI32Type();
  if (!gpu)
    return arith::ShRUIOp::create(
        b, loc, m, arith::ConstantIntOp::create(b, loc, i32, 31));
  return pureAsm(b, loc, i32, m, "mul.hi.u32 $0, $1, 2;", "=r,r");
}

void KernelEnv::appendWordBytes(Value word, SmallVectorImpl<Value> &bytes) {
  Type i32 = b.getI32Type();
  for (int64_t k = 0; k < 4; ++k) {
    Value shifted = k == 0
                        ? word
                        : arith::ShRUIOp::create(
                              b, loc, word,
                              arith::ConstantIntOp::create(b, loc, i32, 8 * k))
                              .getResult();
    bytes.push_back(arith::TruncIOp::create(b, loc, b.getI8Type(), shifted));
  }
}

/// The bytes of E2M1 codes given as (t, m) pairs (e2m1Parts): t =
/// kE2M1FieldBias + magnitude, m's sign bit the code's; see
/// encodeE2M1Bytes.
static SmallVector<Value>
packE2M1Nibbles(KernelEnv &env, ArrayRef<std::pair<Value, Value>> parts) {
  assert(parts.size() % 8 == 0 && "eight values per word");
  OpBuilder &b = env.b;
  Location loc = env.loc;
  SmallVector<Value> bytes;
  Type i32 = b.getI32Type();
  auto i32c = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  // Horner over the magnitudes, multiply-adds only: acc = acc * 16 + t.
  // The t's fields add up to kE2M1FieldBias * 0x11111111 = 0xFB000000 mod
  // 2^32 (shifted further they leave the word), removed once at the end;
  // the signs joined by byte permutes (KernelEnv::orE2M1Signs).
  constexpr uint32_t fix = 0u - kE2M1FieldBias * 0x11111111u;
  for (size_t w = 0; w < parts.size(); w += 8) {
    Value acc;
    SmallVector<Value> carriers;
    for (int i = 7; i >= 0; --i) {
      Value t = parts[w + i].first;
      acc = acc ? arith::AddIOp::create(
                      b, loc, arith::MulIOp::create(b, loc, acc, i32c(16)), t)
                      .getResult()
                : t;
    }
    for (size_t i = w; i < w + 8; ++i)
      carriers.push_back(parts[i].second);
    Value word =
        arith::AddIOp::create(b, loc, acc, i32c(static_cast<int32_t>(fix)));
    env.appendWordBytes(env.orE2M1Signs(word, carriers), bytes);
  }
  return bytes;
}

Value KernelEnv::permute(Value lo, Value hi, uint32_t selector) {
  Type i32 = b.getI32Type();
  auto i32c = [&](uint32_t c) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(c))
        .getResult();
  };
  if (gpu)
    return NVVM::PermuteOp::create(
        b, loc, i32, lo, hi, i32c(selector),
        NVVM::PermuteModeAttr::get(b.getContext(), NVVM::PermuteMode::DEFAULT));
  Value result;
  for (unsigned k = 0; k < 4; ++k) {
    unsigned s = (selector >> (4 * k)) & 7;
    bool sign = (selector >> (4 * k)) & 8;
    // The byte, or its bit 7 replicated (an arithmetic shift of the byte
    // placed at the top).
    Value byte = sign ? arith::ShRSIOp::create(
                            b, loc,
                            arith::ShLIOp::create(b, loc, s < 4 ? lo : hi,
                                                  i32c(24 - 8 * (s % 4))),
                            i32c(31))
                            .getResult()
                      : arith::ShRUIOp::create(b, loc, s < 4 ? lo : hi,
                                               i32c(8 * (s % 4)))
                            .getResult();
    byte = arith::AndIOp::create(b, loc, byte, i32c(0xFF));
    byte = arith::ShLIOp::create(b, loc, byte, i32c(8 * k));
    result =
        result ? arith::OrIOp::create(b, loc, result, byte).getResult() : byte;
  }
  return result;
}

Value KernelEnv::loadWord(Value mem, Value at) {
  Type elt = cast<MemRefType>(mem.getType()).getElementType();
  Value v = vector::LoadOp::create(
      b, loc, VectorType::get({32 / elt.getIntOrFloatBitWidth()}, elt), mem,
      ValueRange{at}, false, llvm::MaybeAlign(4));
  v = vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()),
                                v);
  return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
}

SmallVector<Value> KernelEnv::transposeBytes4x4(ArrayRef<Value> w) {
  Value t0 = permute(w[0], w[1], 0x5140);
  Value t1 = permute(w[0], w[1], 0x7362);
  Value t2 = permute(w[2], w[3], 0x5140);
  Value t3 = permute(w[2], w[3], 0x7362);
  return {permute(t0, t2, 0x5410), permute(t0, t2, 0x7632),
          permute(t1, t3, 0x5410), permute(t1, t3, 0x7632)};
}

SmallVector<Value> KernelEnv::transposeNibbles8x8(ArrayRef<Value> w) {
  SmallVector<Value> a(w.begin(), w.end());
  for (int i = 0; i < 4; ++i) {
    Value lo = permute(a[i], a[i + 4], 0x5410);
    a[i + 4] = permute(a[i], a[i + 4], 0x7632);
    a[i] = lo;
  }
  for (int i : {0, 1, 4, 5}) {
    Value lo = permute(a[i], a[i + 2], 0x6240);
    a[i + 2] = permute(a[i], a[i + 2], 0x7351);
    a[i] = lo;
  }
  auto c = [&](uint32_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                        static_cast<int32_t>(v))
        .getResult();
  };
  for (int i : {0, 2, 4, 6}) {
    Value x = a[i], y = a[i + 1];
    a[i] = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, x, c(0x0F0F0F0Fu)),
        arith::AndIOp::create(b, loc, arith::ShLIOp::create(b, loc, y, c(4)),
                              c(0xF0F0F0F0u)));
    a[i + 1] = arith::OrIOp::create(
        b, loc,
        arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, x, c(4)),
                              c(0x0F0F0F0Fu)),
        arith::AndIOp::create(b, loc, y, c(0xF0F0F0F0u)));
  }
  return a;
}

SmallVector<Value> KernelEnv::encodeE2M1Bytes(ArrayRef<Value> values) {
  SmallVector<std::pair<Value, Value>> parts;
  for (Value v : values)
    parts.push_back(e2m1Parts(v));
  return packE2M1Nibbles(*this, parts);
}

/// Byte 3 of each of a0..a3 (its bit 7 replicated over the byte where
/// `sign`: prmt's sign mode) as bytes 0..3 of a word: three byte permutes.
static Value gatherHighBytes(KernelEnv &env, Value a0, Value a1, Value a2,
                             Value a3, bool sign) {
  uint32_t sel = sign ? 0xFBFBu : 0x7373u;
  return env.permute(env.permute(a0, a1, sel), env.permute(a2, a3, sel),
                     0x5410u);
}

SmallVector<Value> KernelEnv::encodeE2M1StochasticBytes(ArrayRef<Value> values,
                                                        ArrayRef<Value> words) {
  assert(values.size() == 4 * words.size() && values.size() % 8 == 0 &&
         "one random byte per value, eight values per word");
  Type i32 = b.getI32Type();
  auto i32c = [&](uint32_t c) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(c))
        .getResult();
  };
  SmallVector<Value> notWords;
  for (Value w : words)
    notWords.push_back(arith::XOrIOp::create(b, loc, w, i32c(~0u)));
  SmallVector<Value> bytes;
  for (size_t w = 0; w < values.size(); w += 8) {
    SmallVector<Value> field, sign;
    for (size_t i = w; i < w + 8; ++i) {
      field.push_back(e2m1StochasticField(values[i], notWords[i / 4], i % 4));
      sign.push_back(e2m1SignCarrier(values[i]));
    }
    Value even =
        gatherHighBytes(*this, field[0], field[2], field[4], field[6], false);
    Value odd =
        gatherHighBytes(*this, field[1], field[3], field[5], field[7], false);
    // Nibble 2k: even value k's magnitude; nibble 2k + 1: odd value k's.
    Value word = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, odd, i32c(16)), even);
    appendWordBytes(orE2M1Signs(word, sign), bytes);
  }
  return bytes;
}

Value KernelEnv::orE2M1Signs(Value word, ArrayRef<Value> carriers) {
  assert(carriers.size() == 8 && "eight values per word");
  Type i32 = b.getI32Type();
  auto i32c = [&](uint32_t c) {
    return arith::ConstantIntOp::create(b, loc, i32, static_cast<int32_t>(c))
        .getResult();
  };
  // Even value k's sign to bit 3 of byte k (its carrier's bit 31 replicated
  // over the byte by the sign mode, then masked), odd value k's to bit 7,
  // where it is in byte 3 of the carrier.
  Value evenSign = gatherHighBytes(*this, carriers[0], carriers[2], carriers[4],
                                   carriers[6], true);
  Value oddSign = gatherHighBytes(*this, carriers[1], carriers[3], carriers[5],
                                  carriers[7], false);
  word = arith::OrIOp::create(
      b, loc, word, arith::AndIOp::create(b, loc, evenSign, i32c(0x08080808u)));
  return arith::OrIOp::create(
      b, loc, word, arith::AndIOp::create(b, loc, oddSign, i32c(0x80808080u)));
}

std::pair<Value, Value> KernelEnv::roundTripE4M3(Value v) {
  SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
  if (!gpu || !hardwareFp8) {
    Value code = emitEncodeF32(b, loc, v, e4m3);
    return {code, emitDecodeToF32(b, loc, code, e4m3)};
  }
  Value code = encodeFp8Pair(v, v, e4m3, b.getType<Float8E4M3FNType>()).first;
  // cvt.rn.f16x2.e4m3x2 d, a: a's low byte to d's low half.
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  Value cvt = pureAsm(b, loc, i32,
                      ValueRange{arith::ExtUIOp::create(b, loc, i16, code)},
                      "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h");
  Value half = arith::BitcastOp::create(
      b, loc, b.getF16Type(), arith::TruncIOp::create(b, loc, i16, cvt));
  return {code, arith::ExtFOp::create(b, loc, b.getF32Type(), half)};
}

std::pair<Value, Value>
KernelEnv::encodeFp8Pair(Value lo, Value hi, const SmallFloatFormat &format,
                         Type fp8Type) {
  Type i8 = b.getI8Type(), i16 = b.getI16Type();
  auto c16 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i16, v).getResult();
  };
  Value pair;
  if (gpu && hardwareFp8) {
    // cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, a, b puts a in the upper byte.
    MLIRContext *ctx = b.getContext();
    pair = NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, i16, hi, lo,
        NVVM::FPRoundingModeAttr::get(ctx, NVVM::FPRoundingMode::RN),
        NVVM::SaturationModeAttr::get(ctx, NVVM::SaturationMode::SATFINITE),
        b.getBoolAttr(false), TypeAttr::get(fp8Type));
  } else {
    // The same 16-bit pair in software, so that the emulation runs what
    // consumers build from it (storeBytes keeps pairs whole).
    auto wide = [&](Value v) {
      return arith::ExtUIOp::create(b, loc, i16,
                                    emitEncodeF32(b, loc, v, format))
          .getResult();
    };
    pair = arith::OrIOp::create(
        b, loc, wide(lo), arith::ShLIOp::create(b, loc, wide(hi), c16(8)));
  }
  Value loCode = arith::TruncIOp::create(b, loc, i8, pair);
  Value shifted = arith::ShRUIOp::create(b, loc, pair, c16(8));
  return {loCode, arith::TruncIOp::create(b, loc, i8, shifted)};
}

void KernelEnv::ifThen(Value cond, const std::function<void()> &body) {
  OpBuilder::InsertionGuard guard(b);
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

void KernelEnv::ifThenElse(Value cond, const std::function<void()> &then,
                           const std::function<void()> &otherwise) {
  OpBuilder::InsertionGuard guard(b);
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/true);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
  b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  otherwise();
}

void KernelEnv::loop(int64_t count, const std::function<void(Value)> &body) {
  if (count <= 0)
    return;
  if (count == 1) {
    body(idx(0));
    return;
  }
  OpBuilder::InsertionGuard guard(b);
  auto forOp = scf::ForOp::create(b, loc, idx(0), idx(count), idx(1));
  b.setInsertionPoint(forOp.getBody()->getTerminator());
  body(forOp.getInductionVar());
}

Value KernelEnv::loopReduce(int64_t count, Value init,
                            const std::function<Value(Value, Value)> &body) {
  if (count == 1)
    return body(idx(0), init);
  auto forOp = scf::ForOp::create(b, loc, idx(0), idx(count), idx(1),
                                  ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value next = body(forOp.getInductionVar(), forOp.getRegionIterArgs()[0]);
    scf::YieldOp::create(b, loc, next);
  }
  return forOp.getResult(0);
}

void KernelEnv::forEachUnit(int64_t units,
                            const std::function<void(Value)> &body) {
  int64_t rounds = (units + threads - 1) / threads;
  loop(rounds, [&](Value i) {
    Value unit = add(mul(i, idx(threads)), threadId);
    if (units % threads == 0)
      body(unit);
    else
      ifThen(lt(unit, idx(units)), [&] { body(unit); });
  });
}

void KernelEnv::atomicMaxToGlobal(Value value, Value target) {
  Value zero = idx(0);
  if (!gpu) {
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxnumf, value,
                                target, ValueRange{zero});
    return;
  }
  value = warpMax(b, loc, value);
  Value lane = rem(threadId, idx(32));
  Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         lane, zero);
  // Non-negative, non-NaN floats order like their bit patterns: one native
  // red.global.max.u32 instead of a compare-and-swap loop on a float.
  ifThen(isLeader, [&] { emitUnsignedMax(b, loc, value, target, zero); });
}

void KernelEnv::stageWarpMax(Value slots) {
  if (!gpu)
    return;
  Value value = warpMax(
      b, loc, memref::LoadOp::create(b, loc, slots, ValueRange{threadId}));
  Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         rem(threadId, idx(32)), idx(0));
  // Lane 0's own slot: no other thread reads it in this phase.
  ifThen(isLeader, [&] {
    memref::StoreOp::create(b, loc, value, slots, ValueRange{threadId});
  });
}

void KernelEnv::blockMaxToGlobal(Value slots, ArrayRef<Value> targets,
                                 int64_t index) {
  Value zero = idx(0), at = idx(index);
  if (!gpu) {
    Value value = memref::LoadOp::create(b, loc, slots, ValueRange{threadId});
    for (Value target : targets)
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxnumf, value,
                                  target, ValueRange{at});
    return;
  }
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId, zero);
  ifThen(isFirst, [&] {
    Value value = f32(0.0f);
    for (int64_t w = 0; w < (threads + 31) / 32; ++w)
      value = arith::MaxNumFOp::create(
          b, loc, value,
          memref::LoadOp::create(b, loc, slots, ValueRange{idx(w * 32)}));
    for (Value target : targets)
      emitUnsignedMax(b, loc, value, target, at);
  });
}

void KernelEnv::atomicMaxAt(Value value, Value target, Value index) {
  if (!gpu) {
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxnumf, value,
                                target, ValueRange{index});
    return;
  }
  emitUnsignedMax(b, loc, value, target, index);
}

Value KernelEnv::zeroedGlobal(StringRef name, int64_t count) {
  Operation *kernel = b.getInsertionBlock()->getParentOp();
  while (!isa<gpu::GPUFuncOp, func::FuncOp>(kernel))
    kernel = kernel->getParentOp();
  std::string symbol =
      (SymbolTable::getSymbolName(kernel).getValue() + "_" + name).str();
  auto type = MemRefType::get({count}, b.getI32Type());
  if (!SymbolTable::lookupSymbolIn(kernel->getParentOp(), symbol)) {
    OpBuilder gb(kernel);
    auto zeros = DenseElementsAttr::get(
        RankedTensorType::get({count}, b.getI32Type()), b.getI32IntegerAttr(0));
    memref::GlobalOp::create(gb, loc, symbol, gb.getStringAttr("private"), type,
                             zeros, /*constant=*/false,
                             gb.getI64IntegerAttr(16));
  }
  return memref::GetGlobalOp::create(b, loc, type, symbol);
}

/// `gpu.module @qs_kernels`, created at the end of `module` if missing.
static gpu::GPUModuleOp getKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>("qs_kernels"))
    return existing;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());
  return gpu::GPUModuleOp::create(b, module.getLoc(), "qs_kernels");
}

static void runPhases(KernelEnv &env, const KernelDesc &desc, bool gpu,
                      Value blockId) {
  OpBuilder &b = env.b;
  for (size_t i = 0; i < desc.phases.size(); ++i) {
    const auto &phase = desc.phases[i];
    if (gpu) {
      if (i != 0)
        gpu::BarrierOp::create(b, env.loc);
      phase(env);
      continue;
    }
    env.loop(desc.threads, [&](Value tid) {
      env.threadId = tid;
      phase(env);
    });
  }
}

static constexpr llvm::StringLiteral kDynamicSharedSymbol =
    "qs_dynamic_shared";

void gpuk::emitKernel(OpBuilder &b, Location loc, ModuleOp module,
                      const KernelDesc &desc, ValueRange args,
                      const EmitOptions &options) {
  bool gpu = options.gpu, hardwareFp8 = options.hardwareFp8;
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> argTypes(args.getTypes());
  auto fnType = FunctionType::get(ctx, argTypes, {});
  if (gpu) {
    gpu::GPUModuleOp kernels = getKernelModule(module);
    SymbolTable symbols(kernels);
    OpBuilder kb(ctx);
    kb.setInsertionPointToEnd(kernels.getBody());
    auto workgroup = gpu::AddressSpaceAttr::get(
        ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
    SmallVector<Type> sharedTypes;
    for (MemRefType t : desc.shared)
      sharedTypes.push_back(MemRefType::get(t.getShape(), t.getElementType(),
                                            MemRefLayoutAttrInterface(),
                                            workgroup));
    // Shared buffers beyond the 48 KiB a kernel may declare statically are
    // placed in dynamic shared memory (views at 16-byte aligned offsets;
    // the runtime raises the function's limit for launches over 48 KiB).
    SmallVector<int64_t> sharedOffsets;
    int64_t sharedBytes = 0;
    for (MemRefType t : desc.shared) {
      sharedOffsets.push_back(sharedBytes);
      int64_t bytes =
          t.getNumElements() * t.getElementType().getIntOrFloatBitWidth() / 8;
      sharedBytes += (bytes + 15) / 16 * 16;
    }
    int64_t dynamicSharedBytes = desc.dynamicSharedBytes;
    bool sharedInDynamic = !dynamicSharedBytes && sharedBytes > 48 * 1024;
    if (sharedInDynamic)
      dynamicSharedBytes = sharedBytes;
    auto func = gpu::GPUFuncOp::create(
        kb, loc, desc.name, fnType,
        sharedInDynamic ? TypeRange() : TypeRange(sharedTypes));
    symbols.insert(func); // renames on collision
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
    func.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr(
        {static_cast<int32_t>(desc.threads), 1, 1}));
    func.setKnownGridSizeAttr(kb.getDenseI32ArrayAttr(
        {static_cast<int32_t>(desc.gridSize), 1, 1}));
    if (desc.maxRegisters)
      func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                    kb.getI32IntegerAttr(desc.maxRegisters));
    if (desc.minBlocksPerSM)
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    kb.getI32IntegerAttr(desc.minBlocksPerSM));
    if (desc.clusterSize > 1)
      func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    kb.getDenseI32ArrayAttr(
                        {static_cast<int32_t>(desc.clusterSize), 1, 1}));
    Block &entry = func.getBody().front();
    kb.setInsertionPointToStart(&entry);
    KernelEnv env{kb, loc, true, hardwareFp8, Value(), Value(), desc.threads,
                  {}, {}};
    env.hardwareMx = options.hardwareMx;
    env.blockId = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
    env.threadId = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
    for (unsigned i = 0; i < args.size(); ++i)
      env.args.push_back(entry.getArgument(i));
    for (auto [i, a] : llvm::enumerate(func.getWorkgroupAttributions())) {
      // 16-byte vector accesses need 16-byte aligned shared memory.
      func.setWorkgroupAttributionAttr(i, kb.getStringAttr("llvm.align"),
                                       kb.getI64IntegerAttr(16));
      env.shared.push_back(a);
    }
    if (sharedInDynamic) {
      // convert-gpu-to-nvvm lowers gpu.dynamic_shared_memory to the module's
      // zero-length, 16-byte aligned shared array if there is one, else to
      // a new one of internal linkage, which NVPTX demotes to a 1-byte
      // static variable; this one is external: `.extern .shared .align 16
      // .b8 qs_dynamic_shared[]`, the block's dynamic shared memory.
      if (!kernels.lookupSymbol(kDynamicSharedSymbol)) {
        OpBuilder gb(ctx);
        gb.setInsertionPointToStart(kernels.getBody());
        LLVM::GlobalOp::create(
            gb, loc, LLVM::LLVMArrayType::get(kb.getI8Type(), 0),
            /*isConstant=*/false, LLVM::Linkage::External,
            kDynamicSharedSymbol, Attribute(), /*alignment=*/16,
            /*addrSpace=*/3);
      }
      Value bytes = gpu::DynamicSharedMemoryOp::create(
          kb, loc,
          MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                          MemRefLayoutAttrInterface(), workgroup));
      for (auto [type, offset] : llvm::zip(sharedTypes, sharedOffsets))
        env.shared.push_back(memref::ViewOp::create(
            kb, loc, cast<MemRefType>(type), bytes, env.idx(offset),
            ValueRange()));
    }
    if (desc.blockBody)
      desc.blockBody(env);
    else
      runPhases(env, desc, true, env.blockId);
    gpu::ReturnOp::create(kb, loc);

    // The launch is a call of a body-less launcher until the host buffers
    // are final (buffer deallocation cannot reason about gpu.launch_func);
    // qs-gpu-host-buffers gives it its gpu.launch_func body.
    SymbolTable moduleSymbols(module);
    OpBuilder lb(ctx);
    lb.setInsertionPoint(kernels);
    auto launcher = func::FuncOp::create(lb, loc, func.getName().str() + "_launch",
                                         fnType);
    launcher.setPrivate();
    moduleSymbols.insert(launcher);
    launcher->setAttr(kLaunchKernelAttr,
                      SymbolRefAttr::get(kernels.getNameAttr(),
                                         {FlatSymbolRefAttr::get(func)}));
    launcher->setAttr(kLaunchGridAttr, lb.getI64IntegerAttr(desc.gridSize));
    launcher->setAttr(kLaunchBlockAttr, lb.getI64IntegerAttr(desc.threads));
    if (dynamicSharedBytes)
      launcher->setAttr(kLaunchSharedAttr,
                        lb.getI64IntegerAttr(dynamicSharedBytes));
    func::CallOp::create(b, loc, launcher, args);
    return;
  }

  // Emulation: a private function looping over blocks, phases and threads.
  SymbolTable symbols(module);
  OpBuilder fb(ctx);
  fb.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(fb, loc, desc.name + "_emulated", fnType);
  func.setPrivate();
  symbols.insert(func);
  Block *entry = func.addEntryBlock();
  fb.setInsertionPointToStart(entry);
  KernelEnv env{fb, loc, false, false, Value(), Value(), desc.threads, {}, {}};
  for (BlockArgument a : entry->getArguments())
    env.args.push_back(a);
  for (MemRefType t : desc.shared)
    env.shared.push_back(
        memref::AllocaOp::create(fb, loc, t, fb.getI64IntegerAttr(16)));
  env.loop(desc.gridSize, [&](Value bid) {
    env.blockId = bid;
    if (desc.blockBody)
      desc.blockBody(env);
    else
      runPhases(env, desc, false, bid);
  });
  func::ReturnOp::create(fb, loc);
  func::CallOp::create(b, loc, func, args);
}
