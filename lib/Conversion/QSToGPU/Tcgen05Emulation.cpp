//===- Tcgen05Emulation.cpp - the sm_100a GEMM kernel emulated on the CPU -===//
//
// The tcgen05 kernel's tiling run on the CPU, per block: TMA writes the
// same 128-byte-swizzled shared-memory image, the scale-factor warp's code
// (GemmCode::gatherScales) writes the same chunks, and tcgen05.cp,
// tcgen05.mma and tcgen05.ld are emulated on a tensor-memory image
// (128 lanes x 256 columns of 32 bits) by decoding the kernel's own
// descriptors and addresses: shared-memory descriptors (start, stride byte
// offset, version, layout), instruction descriptors (M, N, types, scale
// type, scale-factor byte ids) and tensor-memory columns. It checks the
// kernel's index arithmetic against the PTX ISA's rules as implemented
// here; it cannot check that the hardware reads scale factors the same way.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {
constexpr int64_t kLanes = 128;

struct Emulator {
  GemmCode &code;
  Value smem, tmem;
  KernelEnv &env() { return code.env; }
  OpBuilder &b() { return code.env.b; }
  Location loc() { return code.env.loc; }

  /// Bits [shift, shift + width) of a 64-bit descriptor, as index.
  Value field(Value desc, int64_t shift, int64_t width) {
    Value v = arith::ShRUIOp::create(
        b(), loc(), desc,
        arith::ConstantIntOp::create(b(), loc(), b().getI64Type(), shift));
    v = arith::IndexCastUIOp::create(b(), loc(), b().getIndexType(), v);
    return code.band(v, (int64_t(1) << width) - 1);
  }
  Value eqI(Value a, int64_t c) {
    return arith::CmpIOp::create(b(), loc(), arith::CmpIPredicate::eq, a,
                                 env().idx(c));
  }
  Value tmemAt(Value lane, Value column) {
    return env().add(env().mul(lane, env().idx(code.plan.tmemColumns())),
                     column);
  }

  /// tcgen05.cp .32x128b.warpx4: rows r < 32 of 16 bytes at start +
  /// (r / 8) * SBO + (r % 8) * 16 (no swizzle) into columns [col, col + 4)
  /// of lanes r, r + 32, r + 64, r + 96. A descriptor that is not version 1
  /// without swizzle writes NaN words, so tests fail.
  void copy(Value address, Value desc) {
    Value start = code.shl(field(desc, 0, 14), 4);
    Value stride = code.shl(field(desc, 32, 14), 4);
    Value valid =
        env().land(eqI(field(desc, 46, 2), 1), eqI(field(desc, 61, 3), 0));
    Value column = code.band(address, 0xFFFF);
    Type i32 = b().getI32Type();
    env().loop(32, [&](Value r) {
      Value row = env().add(env().add(start, env().mul(code.shr(r, 3), stride)),
                            env().mul(code.band(r, 7), env().idx(16)));
      env().loop(4, [&](Value w) {
        Value word;
        for (int64_t k = 3; k >= 0; --k) {
          Value byte = memref::LoadOp::create(
              b(), loc(), smem,
              env().add(row,
                        env().add(env().mul(w, env().idx(4)), env().idx(k))));
          Value wide = arith::ExtUIOp::create(b(), loc(), i32, byte);
          word = !word ? wide
                       : arith::OrIOp::create(
                             b(), loc(),
                             arith::ShLIOp::create(b(), loc(), word,
                                                   arith::ConstantIntOp::create(
                                                       b(), loc(), i32, 8)),
                             wide)
                             .getResult();
        }
        word = arith::SelectOp::create(
            b(), loc(), valid, word,
            arith::ConstantIntOp::create(b(), loc(), i32, 0x7FC00000));
        env().loop(4, [&](Value g) {
          Value lane = env().add(r, env().mul(g, env().idx(32)));
          memref::StoreOp::create(b(), loc(), word, tmem,
                                  tmemAt(lane, env().add(column, w)));
        });
      });
    });
  }

  /// Scale byte `id` of the word at tensor-memory (lane, column), decoded.
  Value scaleAt(Value lane, Value column, Value id, bool e8m0) {
    Value word = memref::LoadOp::create(b(), loc(), tmem, tmemAt(lane, column));
    Value shift = arith::IndexCastUIOp::create(b(), loc(), b().getI32Type(),
                                               env().mul(id, env().idx(8)));
    Value byte = arith::TruncIOp::create(
        b(), loc(), b().getI8Type(),
        arith::ShRUIOp::create(b(), loc(), word, shift));
    return e8m0 ? emitE8M0ToF32(b(), loc(), byte)
                : emitDecodeToF32(b(), loc(), byte, SmallFloatFormat::e4m3());
  }

  /// Element (row, kk) of an operand tile described by `desc` (128-byte
  /// swizzle, SBO between groups of 8 128-byte rows), FP8 or packed E2M1:
  /// K-major (rows of the tile are M or N, bytes along K) or MN-major
  /// (rows along K, bytes along M or N in 128-byte atoms LBO apart, FP8).
  Value element(Value desc, Value row, Value kk, bool fp4, bool mnMajor,
                const SmallFloatFormat &format) {
    Value start = code.shl(field(desc, 0, 14), 4);
    Value leading = code.shl(field(desc, 16, 14), 4);
    Value stride = code.shl(field(desc, 32, 14), 4);
    Value line = mnMajor ? kk : row;
    Value byteInRow = mnMajor ? code.band(row, 127)
                      : fp4   ? code.shr(kk, 1)
                              : kk;
    if (mnMajor)
      start = env().add(start, env().mul(code.shr(row, 7), leading));
    Value address = env().add(
        env().add(start, env().mul(code.shr(line, 3), stride)),
        env().add(env().mul(code.band(line, 7), env().idx(128)), byteInRow));
    Value byte =
        memref::LoadOp::create(b(), loc(), smem, swizzle(code, address));
    if (fp4) {
      Value shift = arith::IndexCastUIOp::create(
          b(), loc(), b().getI8Type(),
          env().mul(code.band(kk, 1), env().idx(4)));
      byte = arith::AndIOp::create(
          b(), loc(), arith::ShRUIOp::create(b(), loc(), byte, shift),
          arith::ConstantIntOp::create(b(), loc(), b().getI8Type(), 0xF));
    }
    return emitDecodeToF32(b(), loc(), byte, format);
  }

  /// tcgen05.mma (... block_scale), cta_group::1, D in tensor memory at
  /// column `dColumn` (lane i = row i): D[i, j] (+)= sum_k (A[i, k] sA) (B[j,
  /// k] sB), K = 32 (MXFP8, one block, scale byte sfId; per-tensor FP8
  /// without scales, sfA and sfB null) or 64 (NVFP4, four 16-blocks, bytes
  /// 0-3), scale factors of row i at lane i % 128, column sfColumn + i /
  /// 32 (B's rows 128-255 of an N = 256 MMA: the chunk after rows 0-127's).
  /// Descriptors that are not version 1 with 128-byte swizzle, or an
  /// instruction descriptor that does not name the data's types, give NaN.
  void mma(Value dColumn, Value descA, Value descB, uint32_t idesc, Value sfA,
           Value sfB, Value accumulate, Type typeA, Type typeB) {
    bool scaled = static_cast<bool>(sfA);
    Tcgen05Instr instr = Tcgen05Instr::decode(idesc, scaled);
    bool fp4 = code.plan.fp4();
    int64_t kSize = fp4 ? 64 : 32, blockSize = fp4 ? 16 : 32;
    SmallFloatFormat formatA =
        fp4 ? SmallFloatFormat::e2m1() : *SmallFloatFormat::get(typeA);
    SmallFloatFormat formatB =
        fp4 ? SmallFloatFormat::e2m1() : *SmallFloatFormat::get(typeB);
    // The types the descriptor names must be the data's.
    bool fp8Types = instr.typeA == (isa<Float8E5M2Type>(typeA) ? 1u : 0u) &&
                    instr.typeB == (isa<Float8E5M2Type>(typeB) ? 1u : 0u);
    bool typesMatch =
        !scaled ? fp8Types && instr.dType == 1
        : fp4   ? instr.typeA == 1 && instr.typeB == 1 && !instr.scaleE8M0
                : fp8Types && instr.scaleE8M0;
    Value valid = env().land(
        env().land(eqI(field(descA, 46, 2), 1), eqI(field(descA, 61, 3), 2)),
        env().land(eqI(field(descB, 46, 2), 1), eqI(field(descB, 61, 3), 2)));
    Value columnA = scaled ? code.band(sfA, 0xFFFF) : Value();
    Value columnB = scaled ? code.band(sfB, 0xFFFF) : Value();
    Value idA = env().idx(instr.sfIdA), idB = env().idx(instr.sfIdB);
    Value nan = env().f32(std::numeric_limits<float>::quiet_NaN());
    env().loop(instr.m, [&](Value i) {
      env().loop(instr.n, [&](Value j) {
        Value sum =
            env().loopReduce(kSize, env().f32(0.0f), [&](Value kk, Value acc) {
              Value a =
                  element(descA, i, kk, fp4, instr.mnMajorA, formatA);
              Value bv =
                  element(descB, j, kk, fp4, instr.mnMajorB, formatB);
              if (scaled) {
                Value block = env().div(kk, env().idx(blockSize));
                Value sa = scaleAt(i, env().add(columnA, code.shr(i, 5)),
                                   fp4 ? block : idA, instr.scaleE8M0);
                Value sb = scaleAt(code.band(j, 127),
                                   env().add(columnB, code.shr(j, 5)),
                                   fp4 ? block : idB, instr.scaleE8M0);
                a = arith::MulFOp::create(b(), loc(), a, sa);
                bv = arith::MulFOp::create(b(), loc(), bv, sb);
              }
              return arith::AddFOp::create(
                         b(), loc(), acc,
                         arith::MulFOp::create(b(), loc(), a, bv))
                  .getResult();
            });
        Value at = tmemAt(i, env().add(dColumn, j));
        Value old = arith::BitcastOp::create(
            b(), loc(), b().getF32Type(),
            memref::LoadOp::create(b(), loc(), tmem, at));
        old = arith::SelectOp::create(b(), loc(), accumulate, old,
                                      env().f32(0.0f));
        Value next = arith::AddFOp::create(b(), loc(), old, sum);
        next = arith::SelectOp::create(b(), loc(), valid, next, nan);
        if (!typesMatch)
          next = nan;
        memref::StoreOp::create(
            b(), loc(),
            arith::BitcastOp::create(b(), loc(), b().getI32Type(), next), tmem,
            at);
      });
    });
  }
};

} // namespace

void gemm::emitTcgen05EmulatedBody(KernelEnv &env, const GemmPlan &plan,
                                   Type typeA, Type typeB) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  GemmCode code{env, plan};
  // args: a, b, sa, sb, [amaxA, amaxB], [bias], [c], d
  Value a = env.args[0], bm = env.args[1];
  ValueRange epilogueArgs = ValueRange(env.args).drop_front(2);
  Value smem = memref::AllocOp::create(
      b, loc, MemRefType::get({plan.sharedBytes()}, b.getI8Type()));
  Value tmem = memref::AllocOp::create(
      b, loc, MemRefType::get({kLanes * plan.tmemColumns()}, b.getI32Type()));
  Emulator emu{code, smem, tmem};
  // The allocation's address (lane 0, column 0), and the shared base.
  Value tmemBase = env.idx(0), base = env.idx(0);
  Type i32 = b.getI32Type();
  auto loadByte = [&](Value scales, Value offset) -> Value {
    Value v = memref::LoadOp::create(b, loc, scales, offset);
    if (v.getType() != b.getI8Type())
      v = arith::BitcastOp::create(b, loc, b.getI8Type(), v);
    return arith::ExtUIOp::create(b, loc, i32, v);
  };
  // The block's units (persistent tiles, stream-K segments) one after
  // another; persistent: unit u sums into accumulator buffer u % B.
  code.forEachTile(env.blockId, [&](Value tm, Value tn, Value tileStart) {
    Value accumulator = env.add(tmemBase, code.accColumn());
    // The unit's k-tile kj (the block's ukt, stage ukt % stages): k-tile kt
    // of K.
    code.forEachUnitKTile([&](Value kj) {
      Value kt = code.kTileOf(kj);
      Value ukt = env.add(tileStart, kj);
      Value s = env.rem(ukt, env.idx(plan.stages));
      emulateStageTma(code, smem, a, bm, tm, tn, kt, s);
      // The scale-factor warp, lane by lane (block-scaled only).
      env.loop(plan.sfChunks() ? 32 : 0, [&](Value lane) {
        code.gatherScales(
            tm, tn, lane, kt, s, epilogueArgs[0], epilogueArgs[1],
            [&](Value scales, Value offset) {
              Value word;
              for (int64_t k = 0; k < 4; ++k) {
                Value byte = arith::ShLIOp::create(
                    b, loc, loadByte(scales, env.add(offset, env.idx(k))),
                    arith::ConstantIntOp::create(b, loc, i32, 8 * k));
                word =
                    word ? arith::OrIOp::create(b, loc, word, byte).getResult()
                         : byte;
              }
              return word;
            },
            loadByte,
            [&](Value offset, ArrayRef<Value> words) {
              emulateStore16(env, smem, offset, words);
            });
      });
      // The MMA thread.
      Value slot = s;
      for (int64_t op = 0; op < 2; ++op)
        for (int64_t c = 0; c < plan.sfChunks(); ++c)
          for (int64_t g = 0; g < plan.sfGroups(op); ++g)
            emu.copy(
                env.add(tmemBase, code.sfColumn(slot, op, c, g)),
                code.sfDescriptor(env.add(base, code.stageSf(s, op, c, g))));
      Value descA = code.ummaDescriptor(env.add(base, code.stageA(s)), plan.a);
      Value descB = code.ummaDescriptor(env.add(base, code.stageB(s)), plan.b);
      for (int64_t j = 0; j < kKSteps; ++j) {
        Tcgen05Instr instr = code.instr(j);
        auto sf = [&](int64_t op, unsigned id) {
          return env.add(
              env.add(tmemBase, code.sfColumn(slot, op, plan.fp4() ? j : 0)),
              env.idx(int64_t(id) << 30));
        };
        Value accumulate =
            j > 0 ? arith::ConstantIntOp::create(b, loc, 1, 1).getResult()
                  : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kj,
                                          env.idx(0))
                        .getResult();
        emu.mma(accumulator, code.mmaStep(plan.a, descA, j),
                code.mmaStep(plan.b, descB, j), instr.encode(),
                plan.sfChunks() ? sf(0, instr.sfIdA) : Value(),
                plan.sfChunks() ? sf(1, instr.sfIdB) : Value(), accumulate,
                typeA, typeB);
      }
    });
    // Epilogue: warp w, lane l reads tensor-memory lane 32w + l.
    auto columnsOf = [&](Value tmemLane) {
      return [&, tmemLane](int64_t chunk) {
        return std::function<Value(int64_t)>([&, tmemLane, chunk](int64_t r) {
          Value column = env.add(accumulator, env.idx(32 * chunk + r));
          return memref::LoadOp::create(b, loc, tmem,
                                        emu.tmemAt(tmemLane, column))
              .getResult();
        });
      };
    };
    // The epilogue (`load`: null in the reducing pass): staged (each warp's
    // store chunks: its 32 lanes' values staged, then the box of its rows
    // stored), or direct.
    using Loader = std::function<std::function<Value(int64_t)>(int64_t)>;
    auto epilogue = [&](bool load) {
      auto loader = [&](Value tmemLane) {
        return load ? Loader(columnsOf(tmemLane)) : Loader();
      };
      if (!code.stagesStores()) {
        env.loop(kWarpgroup, [&](Value tmemLane) {
          code.tmemEpilogue(epilogueArgs, tm, tn, tmemLane, loader(tmemLane));
        });
        return;
      }
      // One buffer, or (GemmPlan::stagesAcrossGroups) every warp's pair
      // of buffers (warp w's from byte w * 2 * stagingBufferBytes() on),
      // every warp's pass staged before any reads back (the GPU's
      // 128-thread barrier).
      int64_t buffer = plan.stagingBufferBytes();
      int64_t group = plan.stagedChunkGroup();
      bool across = plan.stagesAcrossGroups();
      Value staging = memref::AllocOp::create(
          b, loc,
          MemRefType::get({(across ? 4 * 2 : 1) * buffer / plan.stagedBytes()},
                          plan.stagedType()));
      auto base = [&](Value warp) {
        return across ? env.mul(warp, env.idx(2 * buffer)) : env.idx(0);
      };
      auto stage = [&](Value warp, int64_t chunk) {
        env.loop(32, [&](Value lane) {
          Value tmemLane = env.add(env.mul(warp, env.idx(32)), lane);
          code.tmemStagedChunk(
              epilogueArgs, tm, tn, tmemLane, chunk, loader(tmemLane),
              [&](Value offset, ArrayRef<Value> values) {
                if (across)
                  offset = env.add(env.add(offset, base(warp)),
                                   env.idx((chunk % group) * buffer));
                emulateStaging(code, staging, offset, values);
              });
        });
      };
      if (across) {
        for (int64_t chunk = 0; chunk < plan.storeChunks(); ++chunk) {
          env.loop(4, [&](Value warp) { stage(warp, chunk); });
          if ((chunk + 1) % group != 0)
            continue;
          env.loop(4, [&](Value warp) {
            emulateStagedBlocks(code, staging, tm, tn, warp, epilogueArgs,
                                chunk / group, base(warp));
          });
        }
        return;
      }
      env.loop(4, [&](Value warp) {
        for (int64_t chunk = 0; chunk < plan.storeChunks(); ++chunk) {
          stage(warp, chunk);
          // Staged blocks (column-wise MXFP8): the warp's lanes read the
          // chunk's blocks back; else the TMA store of the warp's box.
          if (plan.stagesBlocks())
            emulateStagedBlocks(code, staging, tm, tn, warp, epilogueArgs,
                                chunk, env.idx(0));
          else
            emulateTmaStoreBox(code, staging, code.outputD(epilogueArgs),
                               code.storeBox(tm, tn, warp, chunk));
        }
      });
    };
    auto arrive = [&] { emulateSplitKArrival(code, [&] { epilogue(false); }); };
    if (plan.streamsK()) {
      // A stream-K segment sharing its tile stores its plane and arrives.
      code.finishSegment(
          env.blockId, [&] { epilogue(true); }, arrive,
          [&] { epilogue(true); });
    } else {
      epilogue(true);
      if (plan.fusesReduction())
        arrive();
    }
  });
  // Buffer deallocation frees `smem` and `tmem`.
}
