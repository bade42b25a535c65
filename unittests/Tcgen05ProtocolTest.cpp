//===- Tcgen05ProtocolTest.cpp - the sm_100a GEMM's barrier protocol ------===//
//
// A model of the sm_100a GEMM kernel's synchronization (GemmTcgen05.cpp)
// under random interleavings, as GemmProtocolTest.cpp does for sm_90a. One
// block: a TMA thread fills a ring of stages (A and B, asynchronously,
// counted by the full barrier's tx-count); a scale-factor warp writes each
// k-tile's scale factors into the stage and arrives on the full barrier
// (32 arrivals; block-scaled kinds only); the MMA thread waits for a full
// stage, then queues tcgen05.cp (the stage's scale factors into tensor-
// memory slot s) and tcgen05.mma (reading the stage and slot s), and
// tcgen05.commit, which arrives on the stage's empty barrier once every
// tcgen05 operation the thread issued before it has run. The tensor core
// runs that queue in order, each operation at a random later time. After
// a unit's last k-tile a commit arrives on its accumulator buffer's full
// barrier ("done" for buffer 0), which the epilogue waits for.
//
// The block computes a list of units, each of some k-tiles, numbered
// through the ring one after another: one unit (one block per tile), or
// a persistent block's tiles, or a stream-K block's segments (of varying
// k-tile counts). Persistent kernels have B accumulator buffers (two; one
// for block-scaled 128x256 tiles): unit u sums into buffer u % B, its MMA
// thread first waiting (u >= B) for the buffer's empty barrier (phase
// u / B - 1), on which the epilogue warps arrive once they have read unit
// u - B's sums out of it (a shared stream-K segment or a fused split-K
// unit as soon as its plane is stored: GemmTcgen05.cpp).
//
// Checked: each tcgen05.cp and tcgen05.mma, when it runs, finds the stage
// (and the tensor-memory slot) holding its own k-tile; an MMA does not
// write a buffer the epilogue is reading, and the epilogue reads each
// unit's complete sums (all of its k-tiles, none of another unit's);
// every agent finishes.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"
#include <cstdint>
#include <deque>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

struct Barrier {
  int64_t count, pending, tx = 0, phase = 0;
  explicit Barrier(int64_t count) : count(count), pending(count) {}
  void completeIfDone() {
    if (pending == 0 && tx == 0) {
      ++phase;
      pending = count;
    }
  }
  void arrive(int64_t n = 1) {
    pending -= n;
    completeIfDone();
  }
  bool overArrived() const { return pending < 0; }
  bool passes(int64_t parity) const { return (phase & 1) != parity; }
};

struct Options {
  bool scaled = true;       // block-scaled kinds: the scale-factor warp
  bool commitFrees = true;  // false: arrive on empty when the MMA is queued
  bool sfWaitsEmpty = true; // the scale-factor warp waits for the refill
  // Two accumulator buffers (persistent): the MMA thread waits for the
  // buffer's empty barrier before a unit's first MMA; the epilogue
  // arrives on it after reading (false: before).
  bool mmaWaitsEmpty = true;
  bool releaseAfterRead = true;
};

class Model {
public:
  /// `units`: each unit's k-tile count; `buffers`: accumulator buffers;
  /// `persistent`: the epilogue warps release each buffer (one block per
  /// tile: one unit, one buffer, nothing to release).
  Model(std::vector<int64_t> units, int64_t stages, int64_t buffers,
        bool persistent, Options options)
      : kTiles(std::accumulate(units.begin(), units.end(), int64_t(0))),
        stages(stages), buffers(buffers), persistent(persistent), units(units),
        options(options), full(stages, Barrier(options.scaled ? 1 + 32 : 1)),
        empty(stages, Barrier(1)), accFull(buffers, Barrier(1)),
        accEmpty(buffers, Barrier(1)), a(stages, -1), b(stages, -1),
        sf(stages, -1), slot(stages, -1), acc(buffers), reading(buffers) {
    for (int64_t u = 0; u < int64_t(units.size()); ++u)
      for (int64_t j = 0; j < units[u]; ++j) {
        unitOf.push_back(u);
        firstOfUnit.push_back(j == 0);
        lastOfUnit.push_back(j == units[u] - 1);
      }
  }

  std::string run(unsigned seed) {
    std::mt19937 rng(seed);
    double eagerness = std::vector<double>{0.5, 0.2, 0.05}[seed % 3];
    while (true) {
      std::vector<int> ready;
      for (int agent = 0; agent < 4; ++agent)
        if (canStep(agent))
          ready.push_back(agent);
      bool async = !copies.empty() || !tensorCore.empty();
      if (ready.empty() && !async)
        break;
      std::string error;
      if (ready.empty() ||
          (async && std::uniform_real_distribution<>()(rng) < eagerness)) {
        // A TMA copy completes, or the tensor core runs its next operation.
        bool copy = !copies.empty() &&
                    (tensorCore.empty() || std::bernoulli_distribution()(rng));
        error = copy ? completeCopy(std::uniform_int_distribution<size_t>(
                           0, copies.size() - 1)(rng))
                     : runTensorCore();
      } else {
        error = step(ready[std::uniform_int_distribution<size_t>(
            0, ready.size() - 1)(rng)]);
      }
      if (!error.empty())
        return error;
    }
    if (tma < kTiles || mma < kTiles || epilogue < int64_t(units.size()) ||
        (options.scaled && sfWarp < kTiles))
      return "deadlock: tma " + std::to_string(tma) + " sf " +
             std::to_string(sfWarp) + " mma " + std::to_string(mma) +
             " epilogue " + std::to_string(epilogue);
    return "";
  }

private:
  struct Copy {
    int64_t stage, tag;
    bool isA;
  };
  /// A queued tcgen05 operation: 0 cp, 1 mma, 2 commit (to empty[stage],
  /// or to accFull[-1 - stage] when stage < 0).
  struct Op {
    int kind;
    int64_t stage, tag;
  };
  /// An accumulator buffer's sums: of which unit, over how many k-tiles.
  struct Sums {
    int64_t unit = -1, kTiles = 0;
  };

  int64_t kTiles, stages, buffers;
  bool persistent;
  std::vector<int64_t> units;
  Options options;
  std::vector<Barrier> full, empty, accFull, accEmpty;
  std::vector<int64_t> a, b, sf, slot; // per stage: the k-tile held
  std::vector<Sums> acc;               // per accumulator buffer
  std::vector<bool> reading;           // the epilogue reads the buffer
  // Per k-tile of the block: its unit, and whether it begins / ends it.
  std::vector<int64_t> unitOf;
  std::vector<bool> firstOfUnit, lastOfUnit;
  std::vector<Copy> copies;
  std::deque<Op> tensorCore;
  // Progress: the k-tile each agent works on next (tma: also whether its
  // expect_tx is done; mma: whether it waited for the unit's buffer), the
  // unit the epilogue stores next and whether it has read it.
  int64_t tma = 0, sfWarp = 0, mma = 0, epilogue = 0;
  bool tmaExpected = false, bufferWaited = false, epilogueRead = false;

  bool refillWait(int64_t kt) const {
    return kt < stages || empty[kt % stages].passes((kt / stages - 1) & 1);
  }

  bool canStep(int agent) const {
    switch (agent) {
    case 0: // TMA thread
      return tma < kTiles && (tmaExpected || refillWait(tma));
    case 1: // scale-factor warp
      return options.scaled && sfWarp < kTiles &&
             (!options.sfWaitsEmpty || refillWait(sfWarp));
    case 2: { // MMA thread
      if (mma == kTiles)
        return false;
      int64_t u = unitOf[mma];
      // A unit's first MMA waits until the epilogue has emptied its buffer.
      if (firstOfUnit[mma] && !bufferWaited && persistent && u >= buffers &&
          options.mmaWaitsEmpty)
        return accEmpty[u % buffers].passes(((u / buffers) - 1) & 1);
      return full[mma % stages].passes((mma / stages) & 1);
    }
    default: // epilogue
      if (epilogue == int64_t(units.size()))
        return false;
      return epilogueRead ||
             accFull[epilogue % buffers].passes((epilogue / buffers) & 1);
    }
  }

  std::string step(int agent) {
    switch (agent) {
    case 0: {
      int64_t s = tma % stages;
      if (!tmaExpected) {
        full[s].tx += 2;
        full[s].arrive();
        tmaExpected = true;
        return "";
      }
      copies.push_back({s, tma, true});
      copies.push_back({s, tma, false});
      tmaExpected = false;
      ++tma;
      return "";
    }
    case 1: {
      int64_t s = sfWarp % stages;
      sf[s] = sfWarp;
      full[s].arrive(32);
      if (full[s].overArrived())
        return "the scale-factor warp arrives on stage " + std::to_string(s) +
               "'s full barrier beyond its count";
      ++sfWarp;
      return "";
    }
    case 2: {
      int64_t u = unitOf[mma];
      if (firstOfUnit[mma] && !bufferWaited && persistent && u >= buffers &&
          options.mmaWaitsEmpty) {
        bufferWaited = true;
        return "";
      }
      int64_t s = mma % stages;
      if (options.scaled)
        tensorCore.push_back({0, s, mma});
      tensorCore.push_back({1, s, mma});
      if (options.commitFrees)
        tensorCore.push_back({2, s, mma});
      else
        empty[s].arrive();
      // After the unit's last k-tile a commit to its buffer's full barrier.
      if (lastOfUnit[mma])
        tensorCore.push_back({2, -1 - u % buffers, mma});
      bufferWaited = false;
      ++mma;
      return "";
    }
    default: {
      int64_t buffer = epilogue % buffers;
      auto release = [&] {
        if (persistent)
          accEmpty[buffer].arrive();
      };
      if (!epilogueRead) {
        // tcgen05.ld of the unit's sums (the whole read, waited for).
        if (!options.releaseAfterRead)
          release();
        const Sums &sums = acc[buffer];
        if (sums.unit != epilogue || sums.kTiles != units[epilogue])
          return "the epilogue of unit " + std::to_string(epilogue) +
                 " reads buffer " + std::to_string(buffer) + " holding unit " +
                 std::to_string(sums.unit) + "'s sums of " +
                 std::to_string(sums.kTiles) + " k-tiles";
        reading[buffer] = true;
        epilogueRead = true;
        return "";
      }
      // The plane or D stored (and, stream-K, the arrival): the buffer is
      // released.
      reading[buffer] = false;
      if (options.releaseAfterRead)
        release();
      epilogueRead = false;
      ++epilogue;
      return "";
    }
    }
  }

  std::string completeCopy(size_t index) {
    Copy c = copies[index];
    copies.erase(copies.begin() + index);
    (c.isA ? a : b)[c.stage] = c.tag;
    full[c.stage].tx -= 1;
    full[c.stage].completeIfDone();
    return "";
  }

  std::string runTensorCore() {
    Op op = tensorCore.front();
    tensorCore.pop_front();
    std::string where = "k-tile " + std::to_string(op.tag) + " stage " +
                        std::to_string(op.stage);
    switch (op.kind) {
    case 0:
      if (sf[op.stage] != op.tag)
        return "tcgen05.cp of " + where + " copies the scale factors of " +
               "k-tile " + std::to_string(sf[op.stage]);
      slot[op.stage] = op.tag;
      return "";
    case 1:
      if (a[op.stage] != op.tag || b[op.stage] != op.tag)
        return "tcgen05.mma of " + where + " reads A of k-tile " +
               std::to_string(a[op.stage]) + ", B of k-tile " +
               std::to_string(b[op.stage]);
      if (options.scaled && slot[op.stage] != op.tag)
        return "tcgen05.mma of " + where + " reads the scale factors of " +
               "k-tile " + std::to_string(slot[op.stage]);
      {
        // It sums into the unit's buffer (the unit's first MMA overwrites).
        int64_t u = unitOf[op.tag], buffer = u % buffers;
        Sums &sums = acc[buffer];
        if (reading[buffer])
          return "tcgen05.mma of " + where + " (unit " + std::to_string(u) +
                 ") writes buffer " + std::to_string(buffer) +
                 " while the epilogue reads unit " + std::to_string(sums.unit) +
                 "'s sums";
        if (firstOfUnit[op.tag])
          sums = Sums{u, 0};
        if (sums.unit != u)
          return "tcgen05.mma of " + where + " adds to unit " +
                 std::to_string(sums.unit) + "'s sums";
        ++sums.kTiles;
      }
      return "";
    default:
      if (op.stage < 0)
        accFull[-1 - op.stage].arrive();
      else
        empty[op.stage].arrive();
      return "";
    }
  }
};

/// A persistent block's units through `buffers` accumulator buffers.
std::string check(std::vector<int64_t> units, int64_t stages, int64_t buffers,
                  Options options, bool persistent = true, int runs = 300) {
  for (int seed = 0; seed < runs; ++seed) {
    std::string error =
        Model(units, stages, buffers, persistent, options).run(seed);
    if (!error.empty())
      return "seed " + std::to_string(seed) + ": " + error;
  }
  return "";
}

/// One block per tile: one unit of `kTiles`, one buffer.
std::string check(int64_t kTiles, int64_t stages, Options options,
                  int runs = 300) {
  return check({kTiles}, stages, 1, options, /*persistent=*/false, runs);
}

TEST(Tcgen05Protocol, BlockScaled) {
  EXPECT_EQ(check(9, 5, {}), "");
  EXPECT_EQ(check(3, 4, {}), "");
}

TEST(Tcgen05Protocol, PerTensor) {
  Options perTensor;
  perTensor.scaled = false;
  EXPECT_EQ(check(9, 5, perTensor), "");
}

TEST(Tcgen05Protocol, StagesAreFreedByCommit) {
  // Freeing a stage when its MMA is queued rather than when it has run
  // lets TMA overwrite it first.
  Options early;
  early.commitFrees = false;
  std::string error = check(9, 3, early);
  EXPECT_NE(error.find("tcgen05."), std::string::npos) << error;
}

TEST(Tcgen05Protocol, ScaleFactorsWaitForTheRefill) {
  Options eager;
  eager.sfWaitsEmpty = false;
  // A scale-factor warp running ahead overwrites a stage's scale factors
  // before tcgen05.cp has copied them (or arrives on a phase not yet due).
  std::string error = check(9, 3, eager);
  EXPECT_NE(error, "");
}

TEST(Tcgen05Protocol, PersistentTwoBuffers) {
  // A persistent block's 5 tiles of 3 k-tiles (both buffers used two or
  // three times), block-scaled and per-tensor.
  EXPECT_EQ(check({3, 3, 3, 3, 3}, 4, 2, {}), "");
  Options perTensor;
  perTensor.scaled = false;
  EXPECT_EQ(check({3, 3, 3, 3, 3}, 4, 2, perTensor), "");
  // Units of one k-tile: the MMA thread runs furthest ahead.
  EXPECT_EQ(check({1, 1, 1, 1, 1, 1}, 3, 2, {}), "");
}

TEST(Tcgen05Protocol, PersistentOneBuffer) {
  // Block-scaled 128x256 tiles: one buffer, so unit u + 1's MMAs wait for
  // unit u's epilogue (its loads still run ahead through the ring).
  EXPECT_EQ(check({3, 3, 3, 3}, 4, 1, {}), "");
  EXPECT_EQ(check({2, 5, 1, 4, 1, 3}, 3, 1, {}), "");
}

TEST(Tcgen05Protocol, StreamKSegments) {
  // A stream-K block's segments: the tail of a shared tile, whole tiles,
  // the head of the next shared tile (k-tile counts 2, 5, 1, 4, 1, 3).
  EXPECT_EQ(check({2, 5, 1, 4, 1, 3}, 4, 2, {}), "");
  Options perTensor;
  perTensor.scaled = false;
  EXPECT_EQ(check({2, 5, 1, 4, 1, 3}, 5, 2, perTensor), "");
}

TEST(Tcgen05Protocol, BuffersWaitForTheEpilogue) {
  // An MMA thread that does not wait for the buffer's empty barrier sums
  // unit u + 2 into it while the epilogue still reads (or has not yet
  // read) unit u.
  Options eager;
  eager.mmaWaitsEmpty = false;
  std::string error = check({1, 1, 1, 1, 1, 1}, 3, 2, eager);
  EXPECT_NE(error.find("buffer"), std::string::npos) << error;
  // An epilogue that releases the buffer before reading it likewise.
  Options early;
  early.releaseAfterRead = false;
  error = check({2, 1, 2, 1, 2, 1}, 3, 2, early);
  EXPECT_NE(error.find("buffer"), std::string::npos) << error;
  // With one buffer the next unit's MMAs overwrite it.
  error = check({1, 1, 1, 1}, 3, 1, eager);
  EXPECT_NE(error.find("buffer"), std::string::npos) << error;
}

} // namespace
