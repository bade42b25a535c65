//===- KernelBuilder.h - kernels emitted for the GPU or a CPU ---*- C++ -*-===//
//
// Private to the QSToGPU library. A kernel is a 1-D grid of blocks of
// `threads` threads, written as a list of phases separated by block-wide
// barriers. `emitKernel` turns it either into a `gpu.func` in the module's
// `gpu.module @qs_kernels` plus a `gpu.launch_func`, or (emulation) into a
// `func.func` that runs, for each block, each phase for every thread in
// turn, plus a `func.call`. The phase bodies are the same C++ either way;
// only the few primitives of KernelEnv differ between the two.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_KERNELBUILDER_H
#define QS_LIB_CONVERSION_QSTOGPU_KERNELBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <array>
#include <functional>
#include <string>

namespace mlir {
namespace qs {
namespace gpuk {

/// What phase bodies build with. Integer arithmetic is on `index` values.
/// Combines `values` (at least one) pairwise, level by level: a tree
/// log2(n) deep instead of a chain of n, for an associative and commutative
/// `combine` (the same result, more independent instructions in flight).
Value reduceTree(ArrayRef<Value> values,
                 llvm::function_ref<Value(Value, Value)> combine);

/// Inline PTX without side effects (LLVM may combine or drop it like any
/// pure value) with one result; `$0` is the result, `$1`... the operands.
Value pureAsm(OpBuilder &b, Location loc, Type result, ValueRange operands,
              StringRef text, StringRef constraints);

/// f32 2^23's bits (0x4B000000): e2m1Parts' t is this plus the code's
/// magnitude (the sum 2^23 + magnitude rounded to an integer).
constexpr uint32_t kE2M1FieldBias = 0x4B000000u;

struct KernelEnv {
  OpBuilder &b;
  Location loc;
  /// True for a GPU kernel, false for the CPU emulation.
  bool gpu;
  /// Hardware FP8 conversion (cvt.rn.satfinite.e4m3x2/e5m2x2.f32).
  bool hardwareFp8;
  Value blockId, threadId;
  int64_t threads;
  /// The kernel's memref arguments and shared-memory buffers.
  SmallVector<Value> args, shared;
  /// Hardware E2M1 and UE8M0 conversions (cvt.rn.satfinite.e2m1x2.f32,
  /// cvt.rp.satfinite.ue8m0x2.f32; sm_100a).
  bool hardwareMx = false;

  /// Whether two f32 lanes compute as one instruction: add/sub/mul.rn.f32x2
  /// (FADD2, FMUL2; PTX ISA 8.6, sm_100 and later), in sm_100a GPU kernels.
  bool pairedF32() const { return gpu && hardwareMx; }
  /// Two f32 values computed lane by lane (pairwise).
  using F32Pair = std::array<Value, 2>;
  enum class PairOp { Add, Sub, Mul };
  /// a op c in each lane, rounded to nearest even as the scalar op: one
  /// vector<2xf32> operation where pairedF32() (LLVM's fadd/fsub/fmul <2 x
  /// float>, add/sub/mul.rn.f32x2), else two scalar ones; the same bits
  /// either way. Caution: ptxas 13.0 contracts mul.rn.f32x2 feeding
  /// add/sub.rn.f32x2 into FFMA2 (one rounding) although both carry .rn
  /// (the scalar forms it keeps apart), so a Mul whose products can round
  /// must not feed an Add or Sub.
  F32Pair pairwise(PairOp op, F32Pair a, F32Pair c);

  Value idx(int64_t v);
  Value f32(float v);
  Value add(Value a, Value c);
  Value mul(Value a, Value c);
  Value div(Value a, Value c);
  Value rem(Value a, Value c);
  Value lt(Value a, Value c);
  Value land(Value a, Value c);

  /// f32 value of a float of any nominal type (f32, bf16, f16).
  Value toF32(Value v);
  /// The f32 values of every element of vector `vec` (toF32 each); bf16
  /// pairs from their 32-bit word: w << 16 and w & 0xFFFF0000 (exact, one
  /// instruction each, where extracting the upper half first costs a
  /// PRMT).
  SmallVector<Value> vectorToF32(Value vec);
  /// f32 -> nominal float type (RNE, overflow to inf); bf16 through
  /// roundToBf16.
  Value fromF32(Value v, Type type);
  /// f32 `v` rounded to bf16 and back, as emitRoundToFormat(bf16) (RNE,
  /// overflow to inf, NaN -> +0x7FC00000) in 6 integer instructions
  /// instead of the general encoder's ~25: bf16 keeps f32's exponent, so
  /// RNE is (bits + 0x7FFF + bit 16) & 0xFFFF0000 for every non-NaN pattern,
  /// subnormals and the carry into infinity included.
  Value roundToBf16(Value v);
  /// roundToBf16 of each value where a NaN's bits are never stored (only
  /// its NaN-ness counts, e.g. before an amax or an FP4 encode): on the GPU
  /// two at a time by cvt.rn.bf16x2.f32 (whose NaN is the hardware's),
  /// unpacked as vectorToF32 does, so absMaxAll can pair them again.
  SmallVector<Value> roundToBf16Values(ArrayRef<Value> values);
  /// |v| max-accumulated into acc, ignoring NaN (fmaxf).
  Value absMax(Value acc, Value v);
  /// absMax over `values`; on the GPU, when they are the bf16 halves of
  /// i32 words (vectorToF32's unpacking), by max.xorsign.abs.bf16x2 on the
  /// words (one instruction per two values) and the last word's halves:
  /// the same maximum, half the min/max instructions.
  Value absMaxAll(Value acc, ArrayRef<Value> values);
  /// The E2M1 code of f32 `q` in two parts, as i32 bits: t, whose low 3
  /// bits are the magnitude (t = 0x4B000000 + magnitude), and m, whose sign
  /// bit is the code's (NaN positive, -0 negative): q itself on the GPU,
  /// where f32 operations return NaN as 0x7FFFFFFF (q is a product), min(q,
  /// 6) in the emulation. a = min(|q|, 6) (NaN -> 6); t = min(fma(a, 2,
  /// 2^23), a + 2^23 + 2, fma(a, 0.5, 2^23 + 4)): rne(2a), rne(a) + 2,
  /// rne(a / 2) + 4, the grid's three
  /// spacings, each an f32 sum rounded once to an integer; the least is
  /// the code because the lines 2a, a + 2 and a / 2 + 4 meet at 2 and 4
  /// (scripts/e2m1-encode-check.py: equal to e2m1_rn_sat on all 2^32 f32
  /// patterns). 3 min/max, 3 FP32 and no integer instruction on the GPU.
  std::pair<Value, Value> e2m1Parts(Value q);
  /// The E2M1 codes of f32 `values` (a multiple of 8), two per i8 (value
  /// 2k in byte k's low nibble), RNE with saturation as emitEncodeF32
  /// (te-formats.md e2m1_rn_sat; NaN -> 7, -0 -> 8), for chips without
  /// cvt.rn.satfinite.e2m1x2.f32: see e2m1Parts; the magnitudes of 8
  /// values joined into a 32-bit word by multiply-adds (Horner: acc * 16 +
  /// bits(t), the exponent fields' sum removed once), their signs by byte
  /// permutes (orE2M1Signs, since 2026-12-06: 8 integer instructions per
  /// word where a mul.hi and a multiply-add per value took 16); 8
  /// instructions per value on the GPU (the general encoder ~19); the
  /// bytes returned as {trunc(w), trunc(w >> 8), ...}, which storeBytes
  /// keeps whole.
  SmallVector<Value> encodeE2M1Bytes(ArrayRef<Value> values);
  /// The i32 whose bit 31 is the sign of the E2M1 code of f32 `q` (NaN
  /// positive, -0 negative): q's bits on the GPU, min(q, 6)'s in the
  /// emulation (e2m1Parts' m, the signs orE2M1Signs joins).
  Value e2m1SignCarrier(Value q);
  /// The sign bit (0 or 1, i32) of an E2M1 code from e2m1Parts' m:
  /// mul.hi.u32 by 2 on the GPU (an IMAD.HI, off the integer ALU that the
  /// min/max instructions share; LLVM would turn a shift into a
  /// shift-and-mask pair with the multiply-adds that use it).
  Value e2m1SignBit(Value m);
  /// `word` (eight E2M1 magnitudes, value i in nibble i, bit 3 of each
  /// nibble clear) with the signs of the 8 values whose e2m1SignCarrier's
  /// are `carriers`: the even values' carriers' byte 3 gathered by byte
  /// permutes in prmt's sign mode (bit 31 over the byte) and masked to bit
  /// 3, the odd values' byte 3 gathered and masked to bit 7 (6 permutes, 2
  /// AND-ORs).
  Value orE2M1Signs(Value word, ArrayRef<Value> carriers);
  /// Appends i32 `word`'s bytes as {trunc(w), trunc(w >> 8), ...}: storeBytes
  /// (QuantizePhases.cpp) stores such groups as the word itself.
  void appendWordBytes(Value word, SmallVectorImpl<Value> &bytes);
  /// The byte permute of i32 words `lo` and `hi` (prmt.b32's default mode):
  /// byte k of the result is byte s of the pair, s = bits 0-2 of nibble k
  /// of `selector` (0-3: lo's bytes, 4-7: hi's), or, where the nibble's bit
  /// 3 is set, that byte's bit 7 replicated over the 8 bits (sign mode).
  /// One PRMT on the GPU; shifts and masks in the emulation.
  Value permute(Value lo, Value hi, uint32_t selector);
  /// Word e of the result: byte e of each of the 4 words `w`, in order (a
  /// 4 x 4 byte transpose: 8 permutes).
  SmallVector<Value> transposeBytes4x4(ArrayRef<Value> w);
  /// Word n of the result: nibble n (bits 4n) of each of the 8 words `w`,
  /// in order (an 8 x 8 nibble transpose): the off-diagonal blocks of the
  /// nibble matrix swapped as 4 x 4 blocks (16-bit halves, 8 permutes),
  /// then 2 x 2 (bytes, 8 permutes), then 1 x 1 (16 masks and shifts).
  SmallVector<Value> transposeNibbles8x8(ArrayRef<Value> w);
  /// The 32-bit word at element `at` of memref `mem` (elements of 1, 2 or
  /// 4 bytes; `at` 4-byte aligned) as an i32: one 32-bit load.
  Value loadWord(Value mem, Value at);
  /// The stochastically rounded E2M1 magnitude of f32 `v` with random
  /// byte `byteIndex` of the i32 `notWord` (the complement of the rng
  /// word; StochasticRounding.h's definition, emitE2M1Stochastic: up iff u
  /// = (byte + 1/2) 2^-8 < frac(L), L = base + |v| / s the grid line of
  /// |v|'s run) in byte 3 of the i32 result, whose bits 27-31 are zero and
  /// bits 0-23 unspecified. With a = min(|v|, 6) (NaN -> 6) and a' = a
  /// 2^-126 rounded toward +inf, bits(a') = 2^22 L exactly for a >= 1
  /// (exponent field e + 127 - 126 and fraction f of a = 2^e (1 + f): L =
  /// 2 (e + 1 + f) on the runs 2a, a + 2, a / 2 + 4 of [1, 6]) and
  /// ceil(2^22 2a) for a < 1 (a' subnormal, 2^-149 its quantum), which
  /// leaves the comparison with u, a multiple of 2^-9, unchanged. Then
  /// 4 bits(a') + (255 - byte) 2^16 + 0x7FFF carries into bit 24 exactly
  /// when frac(L) 2^24 > (byte + 1/2) 2^16. On the GPU min.f32, mul.rp.f32
  /// (subnormals kept: no .ftz), one prmt.b32 of the complemented byte
  /// into 0x00007FFF (selector 0x7k54) and a multiply-add; the emulation
  /// computes bits(a') as integers (a - 2^-126 exponent bias, or the
  /// ceiling of a 2^23).
  Value e2m1StochasticField(Value v, Value notWord, int64_t byteIndex);
  /// encodeE2M1Bytes with stochastic rounding: `words` holds the random
  /// bytes, value t taking byte t mod 4 of word t / 4
  /// (e2m1StochasticField), eight values per 32-bit word: the magnitudes
  /// (byte 3 of each field) gathered by byte permutes, even values' into
  /// one word and odd values' into another, joined as even + 16 odd; the
  /// sign bits (e2m1SignCarrier) gathered likewise, the even
  /// values' replicated over their bytes by prmt's sign mode and masked
  /// to bit 3, the odd values' bit 7 where it is; 15 instructions per
  /// word, 6 per code in all with the field's 4 and a complement per
  /// rng word.
  SmallVector<Value> encodeE2M1StochasticBytes(ArrayRef<Value> values,
                                               ArrayRef<Value> words);
  /// The E4M3 code (i8) of f32 `v` (RNE, saturating at 448, NaN -> 0x7F:
  /// emitEncodeF32) and the code's f32 value (emitDecodeToF32): on the GPU
  /// with hardwareFp8 by cvt.rn.satfinite.e4m3x2.f32 and cvt.rn.f16x2.e4m3x2
  /// (exact; f16 holds every E4M3 value), 3 instructions instead of the
  /// software's ~40; elsewhere the software pair (the emulation's).
  std::pair<Value, Value> roundTripE4M3(Value v);
  /// The f32 values of two FP8 codes (i8) of `format` (E4M3 or E5M2): on
  /// the GPU with hardwareFp8 one cvt.rn.f16x2.e4m3x2 / e5m2x2 (exact: f16
  /// holds every E4M3 and E5M2 value) and two cvt.f32.f16; elsewhere
  /// emitDecodeToF32 (the same values; a NaN's pattern may differ).
  std::pair<Value, Value> decodeFp8Pair(Value lo, Value hi,
                                        const SmallFloatFormat &format);
  /// The f32 values of the 8 E2M1 codes of i32 `word` (value i from nibble
  /// i, bits 4i..4i+3). On sm_100a (hardwareMx) cvt.rn.f16x2.e2m1x2 per
  /// byte (its low nibble to the low half); elsewhere, the emulation
  /// included, the same f16 arithmetic: a code's magnitude bits placed at
  /// bits 9-11 of an f16 and its sign at bit 15 make the f16 whose value is
  /// the code's times 2^-14 (exponent field e and fraction bit m give 2^(e
  /// - 15) (1 + m / 2) against the code's 2^(e - 1) (1 + m / 2), and the
  /// subnormal m 2^-15 against m / 2), for codes i and i + 4 at once (two
  /// shifts by 9 - 4i and 12 - 4i, a mask, an AND-OR), times 2^14 in one
  /// mul.rn.f16x2 (exact: every E2M1 value is an f16), widened by
  /// cvt.f32.f16. 4-5 instructions per two codes before the widening,
  /// where the general decoder takes ~20 per code.
  SmallVector<Value> decodeE2M1Word(Value word);
  /// The i32 whose low and high 16 bits are fromF32(lo, type) and
  /// fromF32(hi, type), `type` bf16 or f16 (RNE, overflow to inf, NaN to
  /// the reference's quiet NaN: bf16 0x7FC0, f16 the format's nanCode). On
  /// the GPU one cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32 and a NaN fix-up
  /// whatever NaN the hardware writes: bit 15 of each half of n = (w |
  /// 0x80008000) - (inf + 1) 0x10001 is set where the half's magnitude
  /// exceeds infinity's (no borrow crosses the halves), m = prmt(n, n,
  /// 0xBB99) spreads it over the half (sign mode), and (w & ~m) | (nan
  /// 0x10001 & m) is the result: 4 integer instructions per pair against
  /// roundToBf16's 6 per value and the general f16 encoder's ~25; the
  /// emulation packs fromF32's two halves.
  Value packFromF32Pair(Value lo, Value hi, Type type);
  /// Two f32 values to FP8 codes of `format`; returns {code(lo), code(hi)}
  /// as i8.
  std::pair<Value, Value> encodeFp8Pair(Value lo, Value hi,
                                        const SmallFloatFormat &format,
                                        Type fp8Type);

  /// `if (cond) body()`.
  void ifThen(Value cond, const std::function<void()> &body);
  /// `if (cond) then() else otherwise()`.
  void ifThenElse(Value cond, const std::function<void()> &then,
                  const std::function<void()> &otherwise);
  /// for (i = 0; i < count; ++i) body(i) with a constant count.
  void loop(int64_t count, const std::function<void(Value)> &body);
  /// acc = body(i, acc) for i in [0, count) as an scf.for carrying `init`
  /// (a real loop: keeps long reductions from holding every value live).
  Value loopReduce(int64_t count, Value init,
                   const std::function<Value(Value, Value)> &body);
  /// Every unit u in [0, units) is visited by exactly one thread of the
  /// block: u = i * threads + threadId.
  void forEachUnit(int64_t units, const std::function<void(Value)> &body);
  /// Max-combines a per-thread f32 (>= 0, not NaN) into memref<1xf32>
  /// `target`: on the GPU a warp-shuffle reduction and one atomic per warp,
  /// in the emulation an atomic per thread.
  void atomicMaxToGlobal(Value value, Value target);
  /// Block-wide max of every thread's `slots[threadId]` (shared f32, >= 0,
  /// not NaN) into element `index` of each f32 buffer of `targets`, in two
  /// phases with the phase
  /// barrier between them (every thread of the block calls both): on the
  /// GPU, stageWarpMax leaves each warp's max (shuffles) in the slot of its
  /// lane 0, and blockMaxToGlobal has thread 0 combine those and issue one
  /// atomic per block and target; in the emulation stageWarpMax does
  /// nothing and each thread issues its own atomic (max does not depend
  /// on the order). One atomic per warp on a single address serialized in
  /// the L2: 4 per 64x64 tile made FP8 delayed scaling's cast kernel take
  /// twice MXFP8's time on H200 (docs/performance.md, 2026-12-04).
  void stageWarpMax(Value slots);
  void blockMaxToGlobal(Value slots, ArrayRef<Value> targets,
                        int64_t index = 0);
  /// Max-combines this thread's f32 (>= 0, not NaN) into element `index` of
  /// `target` (one atomic per thread).
  void atomicMaxAt(Value value, Value target, Value index);
  /// A memref<count x i32> global of the kernel (`<kernel>_<name>`, created
  /// on first use next to the kernel function: in its gpu.module, or in the
  /// host module for the emulation), zero when the module is loaded. Its
  /// contents outlive launches: kernels that change it restore it.
  Value zeroedGlobal(StringRef name, int64_t count);
};

using PhaseFn = std::function<void(KernelEnv &)>;

struct KernelDesc {
  std::string name;
  int64_t gridSize = 1;
  int64_t threads = 128;
  /// If set, ptxas keeps registers low enough for this many resident blocks
  /// per multiprocessor (nvvm.minctasm / .minnctapersm).
  int64_t minBlocksPerSM = 0;
  /// Shared-memory buffers (static memref types, no memory space).
  SmallVector<MemRefType> shared;
  /// Phases, separated by barriers.
  SmallVector<PhaseFn> phases;
  /// If set, the register count ptxas may use per thread (nvvm.maxnreg /
  /// .maxnreg); kernels that redistribute registers with setmaxnreg need
  /// it known at entry.
  int64_t maxRegisters = 0;
  /// Dynamic shared memory in bytes (the launch's dynamicSharedMemorySize).
  int64_t dynamicSharedBytes = 0;
  /// If > 1, blocks form clusters of this many along x (nvvm.cluster_dim /
  /// .reqnctapercluster; the grid is a multiple of it).
  int64_t clusterSize = 0;
  /// Instead of `phases`, the block's whole code, for kernels whose threads
  /// do not run in lockstep phases (warp-specialized GEMMs). On the GPU it
  /// runs in every thread (blockId, threadId set); in the emulation once per
  /// block with a null threadId, and it loops over threads itself.
  PhaseFn blockBody;
};

/// Attributes of a body-less launcher function (`func.func private
/// @<kernel>_launch`): the kernel symbol, grid and block size.
constexpr llvm::StringLiteral kLaunchKernelAttr = "qs_launch_kernel";
constexpr llvm::StringLiteral kLaunchGridAttr = "qs_launch_grid";
constexpr llvm::StringLiteral kLaunchBlockAttr = "qs_launch_block";
/// Dynamic shared memory bytes of the launch (absent: none).
constexpr llvm::StringLiteral kLaunchSharedAttr = "qs_launch_shared";

struct EmitOptions; // Kernels.h

/// Emits the kernel (GPU or emulated, with the conversions `options`
/// allows) and its launch on `args` (static, identity-layout memrefs) at
/// the builder's insertion point.
void emitKernel(OpBuilder &b, Location loc, ModuleOp module,
                const KernelDesc &desc, ValueRange args,
                const EmitOptions &options);

} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_KERNELBUILDER_H
