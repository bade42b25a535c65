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
// the last k-tile a commit arrives on the "done" barrier, which the
// epilogue waits for.
//
// Checked: each tcgen05.cp and tcgen05.mma, when it runs, finds the stage
// (and the tensor-memory slot) holding its own k-tile; every agent
// finishes.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"
#include <cstdint>
#include <deque>
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
};

class Model {
public:
  Model(int64_t kTiles, int64_t stages, Options options)
      : kTiles(kTiles), stages(stages), options(options),
        full(stages, Barrier(options.scaled ? 1 + 32 : 1)),
        empty(stages, Barrier(1)), done(1), a(stages, -1), b(stages, -1),
        sf(stages, -1), slot(stages, -1) {}

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
    if (tma < kTiles || mma < kTiles + 1 || !epilogueDone ||
        (options.scaled && sfWarp < kTiles))
      return "deadlock: tma " + std::to_string(tma) + " sf " +
             std::to_string(sfWarp) + " mma " + std::to_string(mma);
    return "";
  }

private:
  struct Copy {
    int64_t stage, tag;
    bool isA;
  };
  /// A queued tcgen05 operation: 0 cp, 1 mma, 2 commit (to empty[stage],
  /// or to done when stage < 0).
  struct Op {
    int kind;
    int64_t stage, tag;
  };

  int64_t kTiles, stages;
  Options options;
  std::vector<Barrier> full, empty;
  Barrier done;
  std::vector<int64_t> a, b, sf, slot; // per stage: the k-tile held
  std::vector<Copy> copies;
  std::deque<Op> tensorCore;
  // Progress: the k-tile each agent works on next (tma: also whether its
  // expect_tx is done), and the MMA thread's final commit (mma == kTiles).
  int64_t tma = 0, sfWarp = 0, mma = 0;
  bool tmaExpected = false, epilogueDone = false;

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
    case 2: // MMA thread
      return mma < kTiles ? full[mma % stages].passes((mma / stages) & 1)
                          : mma == kTiles;
    default: // epilogue
      return !epilogueDone && mma > kTiles && done.passes(0);
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
      if (mma == kTiles) { // the final commit, to "done"
        tensorCore.push_back({2, -1, mma});
        ++mma;
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
      ++mma;
      return "";
    }
    default:
      epilogueDone = true;
      return "";
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
      return "";
    default:
      if (op.stage < 0)
        done.arrive();
      else
        empty[op.stage].arrive();
      return "";
    }
  }
};

std::string check(int64_t kTiles, int64_t stages, Options options,
                  int runs = 300) {
  for (int seed = 0; seed < runs; ++seed) {
    std::string error = Model(kTiles, stages, options).run(seed);
    if (!error.empty())
      return "seed " + std::to_string(seed) + ": " + error;
  }
  return "";
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

} // namespace
