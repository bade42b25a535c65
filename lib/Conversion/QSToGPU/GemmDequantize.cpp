//===- GemmDequantize.cpp - GEMM operands dequantized by a pre-pass -------===//
//
// sm_90a MXFP8 and NVFP4 GEMMs with qs.gemm_mx_scaling = "dequantize":
// before the GEMM kernel, one kernel per operand writes its codes times
// their block scales as the K-major [rows, K] 16-bit matrix that the GEMM
// kernel (GemmPlan::sixteenBit) reads with TMA, and the operand's
// per-tensor factor. MXFP8: E4M3/E5M2 codes times E8M0 scales rounded to
// bf16 (exact: at most 4 significant bits, and FP32's exponent range,
// except products below 2^-126), the converting kernel's values
// (GemmMxConvert.cpp: convertMxWord), factor 1. NVFP4: E2M1 codes times
// E4M3 scales in f16 (exact: at most 5 significant bits, 2^-10 .. 2688),
// factor amax / 6E (the converting kernel's alpha, GemmEpilogue.cpp). Each
// value is computed once instead of once per tile row or column of the
// output that reads it.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "GemmPlan.h"
#include "KernelBuilder.h"
#include "Kernels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {
/// Elements of one operand row (K-major) or of one K-row of MN-major data
/// per work unit: one 16-byte load of codes.
constexpr int64_t kUnitElems = 16;
/// Work units per thread and block (as the dequantize kernel's).
constexpr int64_t kUnitsPerThread = 4;

/// `count` i32 words of `memref` (1-D, of bytes) at element `at`, loaded as
/// one vector (aligned to its size on the GPU; the emulation's numpy
/// buffers may not be).
SmallVector<Value> loadWords(KernelEnv &env, Value memref, Value at,
                             int64_t count) {
  OpBuilder &b = env.b;
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  Value bytes = vector::LoadOp::create(
      b, env.loc, VectorType::get({4 * count}, elem), memref, ValueRange{at},
      /*nontemporal=*/false, llvm::MaybeAlign(env.gpu ? 4 * count : 1));
  Value words = vector::BitCastOp::create(
      b, env.loc, VectorType::get({count}, b.getI32Type()), bytes);
  SmallVector<Value> out;
  for (int64_t w = 0; w < count; ++w)
    out.push_back(
        vector::ExtractOp::create(b, env.loc, words, ArrayRef<int64_t>{w}));
  return out;
}

/// Stores i32 `words` into the i8 memref `out` at byte `at`, as one vector
/// aligned to `align` bytes on the GPU.
void storeWords(KernelEnv &env, ArrayRef<Value> words, Value out, Value at,
                int64_t align) {
  OpBuilder &b = env.b;
  Type i32 = b.getI32Type();
  Value vec = vector::FromElementsOp::create(
      b, env.loc, VectorType::get({static_cast<int64_t>(words.size())}, i32),
      words);
  Value bytes = vector::BitCastOp::create(
      b, env.loc,
      VectorType::get({4 * static_cast<int64_t>(words.size())}, b.getI8Type()),
      vec);
  vector::StoreOp::create(b, env.loc, bytes, out, ValueRange{at},
                          /*nontemporal=*/false,
                          llvm::MaybeAlign(env.gpu ? align : 1));
}
} // namespace

void gpuk::emitGemmDequantize(OpBuilder &b, Location loc, ModuleOp module,
                              const GemmOperand &source, int64_t rows,
                              int64_t k, Value out, Value factor,
                              const EmitOptions &options) {
  // A plan of the source operand alone, for its scales' addressing
  // (GemmCode::blockScale: compact row- or column-wise, or 128x4-tiled).
  GemmPlan plan;
  plan.m = plan.n = rows;
  plan.k = k;
  plan.a = plan.b = makeOperandPlan(source, rows, k);
  OperandPlan op = plan.a;
  bool fp4 = op.blockDim == 4;
  Type codeType = cast<MemRefType>(source.data.getType()).getElementType();
  StringRef type = isa<Float8E5M2Type>(codeType) ? "e5m2" : "e4m3";
  // K-major: unit u converts elements 16 c .. 16 c + 15 of row r (u = r K /
  // 16 + c): a 16-byte load (NVFP4: 8 bytes), one scale, one 32-byte store
  // (two 16-byte stores). MN-major ([K, rows] data; MXFP8 only): unit u
  // converts rows 16 g .. 16 g + 15 at element kk of K (u = g K + kk), so
  // that a warp's 32 units store 64 consecutive bytes of each of the 16
  // rows: a 16-byte load, 16 scales, 16 2-byte stores. (The GEMM kernels
  // need K % 16 == 0, and MXFP8 dimensions are multiples of 32: units
  // divide K and the rows.)
  int64_t units = rows * k / kUnitElems;
  KernelDesc d;
  d.name = "qs_gemm_dequantize";
  int64_t perBlock = d.threads * kUnitsPerThread;
  d.gridSize = ceilDiv(units, perBlock);
  SmallVector<Value> args = {source.data, source.scaleInv, out, factor};
  if (fp4)
    args.push_back(source.amax);
  d.phases.push_back([=](KernelEnv &env) {
    GemmCode code{env, plan};
    OpBuilder &b = env.b;
    Location loc = env.loc;
    Type i32 = b.getI32Type();
    auto c32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
    };
    Value data = env.args[0], scales = env.args[1], dst = env.args[2];
    env.forEachUnit(perBlock, [&](Value u) {
      Value unit = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(unit, env.idx(units)), [&] {
        // The operand's per-tensor factor, by unit 0.
        env.ifThen(
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, unit,
                                  env.idx(0)),
            [&] {
              Value value = fp4 ? arith::MulFOp::create(
                                      b, loc,
                                      memref::LoadOp::create(
                                          b, loc, env.args[4], env.idx(0)),
                                      env.f32(nvfp4InvSixE(op.e4m3Max)))
                                      .getResult()
                                : env.f32(1.0f);
              memref::StoreOp::create(b, loc, value, env.args[3], env.idx(0));
            });
        // K-major: the unit's first element (row r, element c0: r K + c0)
        // and its block's scale (blocks of `blockK` elements).
        auto rowUnit = [&](int64_t blockK) -> std::pair<Value, Value> {
          int64_t chunks = k / kUnitElems;
          Value row = env.div(unit, env.idx(chunks));
          Value c0 =
              env.mul(env.rem(unit, env.idx(chunks)), env.idx(kUnitElems));
          return {
              env.add(env.mul(row, env.idx(k)), c0),
              code.blockScale(op, scales, row, env.div(c0, env.idx(blockK)))};
        };
        if (fp4) {
          // Eight bytes of packed codes (the lower nibble first), one E4M3
          // scale; the products exact in f16 (at most 6 x 448), packed in
          // pairs (a NaN scale gives the reference's NaN).
          auto [at, scale] = rowUnit(16);
          SmallVector<Value> values;
          for (Value word : loadWords(env, data, env.div(at, env.idx(2)), 2))
            llvm::append_range(values, env.decodeE2M1Word(word));
          SmallVector<Value> words;
          for (int64_t e = 0; e < kUnitElems; e += 2)
            words.push_back(env.packFromF32Pair(
                arith::MulFOp::create(b, loc, values[e], scale),
                arith::MulFOp::create(b, loc, values[e + 1], scale),
                b.getF16Type()));
          storeWords(env, words, dst, env.mul(at, env.idx(2)), 16);
          return;
        }
        if (!op.mnMajor) {
          auto [at, scale] = rowUnit(32);
          SmallVector<Value> words;
          for (Value word : loadWords(env, data, at, 4))
            llvm::append_range(words,
                               convertMxWord(env, type, word, scale, scale));
          storeWords(env, words, dst, env.mul(at, env.idx(2)), 16);
          return;
        }
        Value kk = env.rem(unit, env.idx(k));
        Value r0 = env.mul(env.div(unit, env.idx(k)), env.idx(kUnitElems));
        SmallVector<Value> words =
            loadWords(env, data, env.add(env.mul(kk, env.idx(rows)), r0), 4);
        Value kb = env.div(kk, env.idx(32));
        for (int64_t w = 0; w < 4; ++w) {
          // Codes of rows 4w .. 4w + 3 as two words (c0, 0, c1, 0) and
          // (c2, 0, c3, 0): each row's code with its own scale.
          Value word = words[w];
          Value lo = arith::OrIOp::create(
              b, loc, arith::AndIOp::create(b, loc, word, c32(0xFF)),
              arith::ShLIOp::create(
                  b, loc, arith::AndIOp::create(b, loc, word, c32(0xFF00)),
                  c32(8)));
          Value hi = arith::OrIOp::create(
              b, loc,
              arith::AndIOp::create(
                  b, loc, arith::ShRUIOp::create(b, loc, word, c32(16)),
                  c32(0xFF)),
              arith::AndIOp::create(
                  b, loc, arith::ShRUIOp::create(b, loc, word, c32(8)),
                  c32(0xFF0000)));
          for (auto [half, pair] :
               llvm::enumerate(SmallVector<Value>{lo, hi})) {
            int64_t first = 4 * w + 2 * static_cast<int64_t>(half);
            Value rowA = env.add(r0, env.idx(first));
            Value rowB = env.add(r0, env.idx(first + 1));
            SmallVector<Value, 2> bf16 = convertMxWord(
                env, type, pair, code.blockScale(op, scales, rowA, kb),
                code.blockScale(op, scales, rowB, kb));
            for (auto [row, value] :
                 {std::pair<Value, Value>{rowA, bf16[0]}, {rowB, bf16[1]}}) {
              // The low half: the row's bf16 value (2 bytes).
              Value bits = vector::FromElementsOp::create(
                  b, loc, VectorType::get({1}, b.getI16Type()),
                  ValueRange{
                      arith::TruncIOp::create(b, loc, b.getI16Type(), value)});
              Value bytes = vector::BitCastOp::create(
                  b, loc, VectorType::get({2}, b.getI8Type()), bits);
              vector::StoreOp::create(
                  b, loc, bytes, dst,
                  ValueRange{env.mul(env.add(env.mul(row, env.idx(k)), kk),
                                     env.idx(2))},
                  /*nontemporal=*/false, llvm::MaybeAlign(env.gpu ? 2 : 1));
            }
          }
        }
      });
    });
  });
  emitKernel(b, loc, module, d, args, options);
}
