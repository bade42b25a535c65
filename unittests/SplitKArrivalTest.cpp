//===- SplitKArrivalTest.cpp - the fused split-K reduction's protocol -----===//
//
// A model of qs.gemm_split_k_reduce = "fused" (BlockEmitter::
// arriveAndReduce, GemmKernels.cpp), run under many random interleavings:
// the CPU emulation runs blocks one after another, so it cannot show a
// race. Each block's storing threads (a barrier group: both consumer
// warpgroups of a cooperative sm_90a block, one ping-pong consumer with
// its own barrier and flag word, or the sm_100a block's 128 threads) walk
// their work units (one per block, or persistent: b, b + blocks, ...; a
// ping-pong group every other one of its block's). Per unit each thread
// stores its share of the unit's plane, meets its group at a barrier, the
// leader counts the unit on its tile's counter (zeroing it when it read
// S - 1) and writes the group's flag word, the group meets again, and each
// thread reads the flag; the last unit's threads read every plane of the
// tile. Two launches in a row share the counters and the planes' memory
// (values are tagged with their launch).
//
// Checked: exactly one unit per tile and launch reduces, after every
// unit of the tile stored its plane (no plane of the previous launch or a
// missing one is read), every thread of a unit reads its own unit's flag
// (the next unit's leader cannot overwrite it first), the counters are
// zero after each launch, and every thread finishes (no deadlock). The
// model is sequentially consistent: the fences that make the plane stores
// visible across multiprocessors (fence.acq_rel.gpu on both sides of the
// barriers, atom.acq_rel) are what the PTX memory model needs on top.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"
#include <cstdint>
#include <random>
#include <vector>

namespace {

struct Params {
  int64_t tiles, splits, blocks;
  /// Barrier groups per block and the units each walks: 1 (cooperative /
  /// sm_100a: the block's units) or 2 (ping-pong: group g takes the
  /// block's iterations g, g + 2, ...).
  int64_t groups = 1;
  int64_t threadsPerGroup = 3;
  int64_t units() const { return tiles * splits; }
};

/// A barrier of `count` threads (bar.sync with a thread count).
struct Barrier {
  int64_t count = 0, arrived = 0, generation = 0;
};

struct Thread {
  int64_t block, group, index;
  /// The group's units, in order; the current one and its step.
  std::vector<int64_t> units;
  size_t next = 0;
  int step = 0;
  int64_t waitingFor = -1; // the barrier generation it waits to pass
  bool done() const { return next == units.size(); }
};

class Model {
public:
  Model(const Params &p, uint64_t seed) : p(p), rng(seed) {}

  void run(int64_t launches) {
    counters.assign(p.tiles, 0);
    planes.assign(p.units() * p.threadsPerGroup, -1);
    for (int64_t launch = 0; launch < launches; ++launch) {
      runLaunch(launch);
      if (::testing::Test::HasFatalFailure())
        return;
      for (int64_t t = 0; t < p.tiles; ++t)
        ASSERT_EQ(counters[t], 0) << "tile " << t << " after launch " << launch;
    }
  }

private:
  void runLaunch(int64_t launch) {
    int64_t blocks = std::min(p.blocks, p.units());
    std::vector<Thread> threads;
    barriers.assign(blocks * p.groups, Barrier());
    flags.assign(blocks * p.groups, -1);
    flagUnit.assign(blocks * p.groups, -1);
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t g = 0; g < p.groups; ++g) {
        barriers[b * p.groups + g].count = p.threadsPerGroup;
        std::vector<int64_t> units;
        int64_t iteration = 0;
        for (int64_t u = b; u < p.units(); u += blocks, ++iteration)
          if (iteration % p.groups == g)
            units.push_back(u);
        for (int64_t t = 0; t < p.threadsPerGroup; ++t)
          threads.push_back(Thread{b, g, t, units});
      }
    reducers.assign(p.tiles, 0);
    while (true) {
      std::vector<size_t> runnable;
      bool unfinished = false;
      for (size_t i = 0; i < threads.size(); ++i) {
        Thread &t = threads[i];
        if (t.done())
          continue;
        unfinished = true;
        Barrier &bar = barriers[t.block * p.groups + t.group];
        if (t.waitingFor < 0 || bar.generation > t.waitingFor)
          runnable.push_back(i);
      }
      if (!unfinished)
        break;
      ASSERT_FALSE(runnable.empty()) << "deadlock in launch " << launch;
      step(threads[runnable[rng() % runnable.size()]], launch);
      if (::testing::Test::HasFatalFailure())
        return;
    }
    for (int64_t t = 0; t < p.tiles; ++t)
      ASSERT_EQ(reducers[t], 1) << "tile " << t << " reduced by " << reducers[t]
                                << " units in launch " << launch;
  }

  void arriveAt(Thread &t) {
    Barrier &bar = barriers[t.block * p.groups + t.group];
    t.waitingFor = bar.generation;
    if (++bar.arrived == bar.count) {
      bar.arrived = 0;
      ++bar.generation;
    }
  }

  /// One step of the unit's arrival, as arriveAndReduce emits it.
  void step(Thread &t, int64_t launch) {
    int64_t unit = t.units[t.next], tile = unit % p.tiles;
    int64_t slot = t.block * p.groups + t.group;
    t.waitingFor = -1;
    switch (t.step++) {
    case 0: // the plane store, then fence.acq_rel.gpu and the barrier
      planes[unit * p.threadsPerGroup + t.index] = launch;
      arriveAt(t);
      return;
    case 1: // the leader's atom.add, reset and flag
      if (t.index == 0) {
        int64_t before = counters[tile]++;
        bool last = before == p.splits - 1;
        if (last)
          counters[tile] = 0;
        flags[slot] = last;
        flagUnit[slot] = unit;
      }
      arriveAt(t);
      return;
    default: { // ld.shared of the flag; the last unit reads the planes
      ASSERT_EQ(flagUnit[slot], unit) << "block " << t.block << " thread "
                                      << t.index << " read another unit's flag";
      if (flags[slot]) {
        for (int64_t s = 0; s < p.splits; ++s)
          ASSERT_EQ(planes[(s * p.tiles + tile) * p.threadsPerGroup + t.index],
                    launch)
              << "the last unit of tile " << tile << " read split " << s
              << " before it was stored (launch " << launch << ")";
        if (t.index == 0)
          ++reducers[tile];
      }
      t.step = 0;
      ++t.next;
      return;
    }
    }
  }

  Params p;
  std::mt19937_64 rng;
  std::vector<int64_t> counters, planes, flags, flagUnit, reducers;
  std::vector<Barrier> barriers;
};

void check(const Params &p) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Model(p, seed).run(/*launches=*/2);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "tiles " << p.tiles << ", splits " << p.splits
                    << ", blocks " << p.blocks << ", groups " << p.groups
                    << ", seed " << seed;
      return;
    }
  }
}

TEST(SplitKArrival, OneBlockPerUnit) {
  check({/*tiles=*/3, /*splits=*/4, /*blocks=*/12});
  check({1, 16, 16}); // the bundle's gemm70: 16 blocks on one counter
}

TEST(SplitKArrival, PersistentBlocksReuseTheFlag) {
  // Units b, b + blocks, ...: a block's next unit may be another split of
  // the same tile, or the tile's last.
  check({3, 4, 5});
  check({2, 3, 2});
  check({1, 4, 1}); // one block does every split of the tile in turn
}

TEST(SplitKArrival, PingPongGroups) {
  // Two groups per block, each with its own barrier and flag word.
  check({3, 2, 2, /*groups=*/2});
  check({1, 4, 1, 2});
}

} // namespace
