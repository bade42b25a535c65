//===- GemmProtocolTest.cpp - the sm_90a GEMM's barrier protocol ----------===//
//
// A model of the sm_90a GEMM kernel's synchronization (GemmKernels.cpp,
// GemmKLoops.cpp), run under many random interleavings: the CPU emulation
// runs each block's steps in program order, so it cannot show a race or a
// hang; this can.
// Each block has a producer (TMA issue) and two consumer warpgroups; shared
// memory is a ring of `stages` stages, each with a full and an empty
// mbarrier (arrival counts, tx-count, phase parity as the PTX ISA defines
// them: try_wait.parity(P) passes once the current phase's parity is not
// P). TMA copies complete asynchronously, in any order, at any time. The
// schedules are the kernel's: one block per tile or persistent (from the
// same GemmPlan), cooperative or ping-pong consumers (with their named
// order barriers), per-tensor with fast_accumulate (one wgmma group in
// flight: a stage is freed one k-tile late) or promoting (block-scaled,
// and per-tensor's default split accumulator: freed inside its k-tile),
// alone or in multicast pairs (B's halves written into both blocks, empty
// barriers taking both blocks' consumers, a cluster barrier before exit).
//
// The consumers' own shared-memory buffers are modelled too: MN-major
// operands copied transposed into one or two buffers, NVFP4 converted
// into two f16 buffers and MXFP8 into two bf16 buffers (a k-tile's two
// halves), each written half by each consumer between named
// barrier 1 (bar.sync 1, 256) and read by both consumers' wgmmas, which
// run asynchronously until a wgmma.wait_group retires them.
//
// Checked: every consumer reads a stage holding exactly the k-tile it
// waited for (A and every part of B), no TMA writes a stage a consumer
// still reads, no consumer writes a buffer an in-flight wgmma reads, every
// wgmma reads a buffer both consumers wrote for its k-tile, and every
// agent finishes (no deadlock). QS_PROTOCOL_TRACE=1 prints each step.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "GemmTestPlans.h"
#include "gtest/gtest.h"
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace mlir::qs::gpuk::gemm;

namespace {

/// An mbarrier: `count` arrivals and a zero tx-count complete a phase.
struct Barrier {
  int64_t count = 1, pending = 1, tx = 0, phase = 0;
  void completeIfDone() {
    if (pending == 0 && tx == 0) {
      ++phase;
      pending = count;
    }
  }
  void arrive() {
    --pending;
    completeIfDone();
  }
  bool passes(int64_t parity) const { return (phase & 1) != parity; }
};

/// A named barrier of two agents (bar.sync / bar.arrive, 256 threads).
struct NamedBarrier {
  int64_t arrived = 0, generation = 0;
  void arrive() {
    if (++arrived == 2) {
      arrived = 0;
      ++generation;
    }
  }
};

enum class Op {
  WaitFull,    // consumer: try_wait.parity on full[stage]
  WaitEmpty,   // producer: try_wait.parity on empty[stage]
  ExpectTx,    // producer: arrive.expect_tx on full[stage]
  Load,        // producer: TMA of `part` into `targets` (async)
  Read,        // consumer: the wgmmas start reading the stage
  Free,        // consumer: arrive on empty[stage] (and the peer's)
  NamedSync,   // consumer: bar.sync id
  NamedArrive, // consumer: bar.arrive id
  ClusterWait, // everyone: barrier.cluster.arrive + wait
  WriteBuf,    // consumer: its half of buffer `part` (copy / conversion)
  Wgmma,       // consumer: wgmma group reading buffer `part` (-1: stage)
  WaitGroup,   // consumer: wgmma.wait_group `id`
};

struct Step {
  Op op;
  int64_t stage = 0, parity = 0, tag = 0, part = 0, id = 0;
  std::vector<int64_t> targets; // blocks a Load writes / a Free arrives on
};

/// Parts of a stage's data: A, then B whole (part 1) or B's halves (1, 2).
struct Block {
  std::vector<Barrier> full, empty;
  std::vector<std::vector<int64_t>> data;      // [stage][part] = tag
  std::vector<std::multiset<int64_t>> readers; // [stage] = consumers
  NamedBarrier named[4];
  // The consumers' buffers: [buffer][consumer] = k-tile written.
  std::vector<std::vector<int64_t>> buffers;
  // In-flight wgmma groups per consumer: the buffer each reads (-1: none).
  std::vector<std::vector<int64_t>> groups;
  // Multicast: the pair's cluster barrier (kept by its even block).
  int64_t clusterArrived = 0, clusterGeneration = 0;
};

struct Agent {
  int64_t block, consumer; // consumer -1: the producer
  std::vector<Step> steps;
  size_t next = 0;
  int64_t seenGeneration = -1; // NamedSync / ClusterWait in progress
  bool done() const { return next == steps.size(); }
};

struct AsyncCopy {
  int64_t block, stage, part, tag;
};

struct Options {
  bool inLoopFree = false;  // block-scaled / NVFP4 consumers
  bool orderBarrier = true; // ping-pong's named order barriers
  bool tileEndFree = true;  // persistent per-tensor: free the last stage
  bool remoteFree = true;   // multicast: free the peer's stage too
  // Consumer buffers: 0 none, 1 transposed MN-major tiles, 2 NVFP4 f16,
  // 3 MXFP8 bf16 (two halves of each k-tile, into buffers 0 and 1).
  int staging = 0;
  int64_t buffers = 2;      // transposed tiles: 1 or 2 buffers
  bool firstBarrier = true; // bar.sync 1 before writing a buffer
  // Promotion overlapped with the next k-tile's wgmmas (GemmPlan::
  // overlapsPromotion): runs of this many k-tiles (0: not overlapped),
  // each later k-tile issued before the previous one's wait_group 1 and
  // free; `freeNewest`: free the k-tile just issued instead (a bug the
  // model must find).
  int64_t overlapRun = 0;
  bool freeNewest = false;
};

class Model {
public:
  Model(const GemmPlan &plan, Options options) : plan(plan), options(options) {
    int64_t parts = plan.multicast() ? 3 : 2;
    blocks.resize(plan.blocks());
    for (Block &b : blocks) {
      b.full.assign(plan.stages, Barrier{1, 1, 0, 0});
      int64_t readers =
          plan.stageConsumers() * (options.remoteFree ? plan.cluster : 1);
      b.empty.assign(plan.stages, Barrier{readers, readers, 0, 0});
      b.data.assign(plan.stages, std::vector<int64_t>(parts, -1));
      b.readers.assign(plan.stages, {});
      b.buffers.assign(2, std::vector<int64_t>(kConsumers, -1));
      b.groups.assign(kConsumers, {});
    }
    for (int64_t b = 0; b < plan.blocks(); ++b) {
      agents.push_back(producer(b));
      for (int64_t c = 0; c < kConsumers; ++c)
        agents.push_back(consumer(b, c));
    }
  }

  /// Runs one random interleaving; returns "" or what went wrong.
  std::string run(unsigned seed) {
    std::mt19937 rng(seed);
    while (true) {
      std::vector<size_t> ready;
      for (size_t a = 0; a < agents.size(); ++a)
        if (!agents[a].done() && canStep(agents[a]))
          ready.push_back(a);
      if (ready.empty() && copies.empty())
        break;
      // Copies complete eagerly or late (seed-dependent), which exposes
      // waits that pass on an older phase.
      bool copy = ready.empty() ||
                  (!copies.empty() && std::uniform_real_distribution<>()(rng) <
                                          copyEagerness(seed));
      std::string error =
          copy ? complete(std::uniform_int_distribution<size_t>(
                     0, copies.size() - 1)(rng))
               : step(agents[ready[std::uniform_int_distribution<size_t>(
                     0, ready.size() - 1)(rng)]]);
      if (!error.empty())
        return error;
    }
    for (const Agent &a : agents)
      if (!a.done())
        return "deadlock: block " + std::to_string(a.block) + " agent " +
               std::to_string(a.consumer) + " stuck at step " +
               std::to_string(a.next) + " of " + std::to_string(a.steps.size());
    return "";
  }

private:
  static double copyEagerness(unsigned seed) {
    static const double levels[] = {0.5, 0.2, 0.05, 0.01};
    return levels[seed % 4];
  }

  const GemmPlan &plan;
  Options options;
  std::vector<Block> blocks;
  std::vector<Agent> agents;
  std::vector<AsyncCopy> copies;

  /// The block's work units (tiles; split-K: tile and range of K) as
  /// forEachTile walks them: their iterations.
  std::vector<int64_t> iterations(int64_t block) const {
    std::vector<int64_t> its;
    if (!plan.persistent())
      return {0};
    for (int64_t unit = block, j = 0; unit < plan.units();
         unit += plan.blocks(), ++j)
      its.push_back(j);
    return its;
  }
  int64_t peer(int64_t block) const { return block ^ 1; }

  Agent producer(int64_t b) const {
    Agent a{b, -1, {}};
    int64_t rank = b % 2;
    for (int64_t j : iterations(b))
      for (int64_t kt = 0; kt < plan.kTilesPerUnit(); ++kt) {
        int64_t it = j * plan.kTilesPerUnit() + kt, s = it % plan.stages;
        if (it >= plan.stages)
          a.steps.push_back(
              {Op::WaitEmpty, s, (it / plan.stages - 1) & 1, 0, 0, 0, {}});
        a.steps.push_back({Op::ExpectTx, s, 0, it, 0, 0, {}});
        a.steps.push_back({Op::Load, s, 0, it, 0, 0, {b}});
        if (plan.multicast())
          a.steps.push_back({Op::Load, s, 0, it, 1 + rank, 0, {b, peer(b)}});
        else
          a.steps.push_back({Op::Load, s, 0, it, 1, 0, {b}});
      }
    if (plan.multicast())
      a.steps.push_back({Op::ClusterWait, 0, 0, 0, 0, 0, {}});
    return a;
  }

  Agent consumer(int64_t b, int64_t c) const {
    Agent a{b, c, {}};
    std::vector<int64_t> frees = {b};
    if (plan.multicast() && options.remoteFree)
      frees.push_back(peer(b));
    std::vector<int64_t> its = iterations(b);
    for (size_t n = 0; n < its.size(); ++n) {
      int64_t j = its[n];
      if (plan.pingpong && j % 2 != c)
        continue;
      if (plan.pingpong && options.orderBarrier && j >= 1)
        a.steps.push_back({Op::NamedSync, 0, 0, 0, 0, 2 + c, {}});
      if (options.overlapRun > 0) {
        // The unit's whole runs, then its last k-tiles one at a time, as
        // Sm90Block::overlappedKLoop emits them.
        int64_t kTiles = plan.kTilesPerUnit(), length = options.overlapRun;
        auto stageOf = [&](int64_t kt) {
          return (j * kTiles + kt) % plan.stages;
        };
        auto issue = [&](int64_t kt) {
          int64_t it = j * kTiles + kt, s = stageOf(kt);
          a.steps.push_back(
              {Op::WaitFull, s, (it / plan.stages) & 1, 0, 0, 0, {}});
          a.steps.push_back({Op::Read, s, 0, it, 0, 0, {}});
          a.steps.push_back({Op::Wgmma, s, 0, it, -1, 0, {}});
        };
        auto retire = [&](int64_t kt, int64_t inFlight) {
          a.steps.push_back({Op::WaitGroup, 0, 0, 0, 0, inFlight, {}});
          a.steps.push_back({Op::Free, stageOf(kt), 0, 0, 0, 0, frees});
        };
        auto run = [&](int64_t first, int64_t count) {
          issue(first);
          for (int64_t u = 1; u < count; ++u) {
            issue(first + u);
            retire(options.freeNewest ? first + u : first + u - 1, 1);
          }
          retire(first + count - 1, 0);
        };
        for (int64_t r = 0; r < kTiles / length; ++r)
          run(r * length, length);
        for (int64_t kt = kTiles / length * length; kt < kTiles; ++kt)
          run(kt, 1);
        continue;
      }
      for (int64_t kt = 0; kt < plan.kTilesPerUnit(); ++kt) {
        int64_t it = j * plan.kTilesPerUnit() + kt, s = it % plan.stages;
        auto push = [&](Op op, int64_t stage = 0, int64_t tag = 0,
                        int64_t part = 0, int64_t id = 0) {
          a.steps.push_back({op, stage, 0, tag, part, id, {}});
        };
        auto free = [&](int64_t stage) {
          a.steps.push_back({Op::Free, stage, 0, 0, 0, 0, frees});
        };
        a.steps.push_back(
            {Op::WaitFull, s, (it / plan.stages) & 1, 0, 0, 0, {}});
        if (options.staging == 2) {
          // NVFP4: convert into f16 buffer kt % 2 between two barriers,
          // free the packed stage, one wgmma group in flight.
          if (options.firstBarrier)
            push(Op::NamedSync, 0, 0, 0, 1);
          push(Op::Read, s, it);
          push(Op::WriteBuf, 0, it, kt % 2);
          push(Op::NamedSync, 0, 0, 0, 1);
          free(s);
          push(Op::Wgmma, 0, it, kt % 2);
          push(Op::WaitGroup, 0, 0, 0, 1);
          continue;
        }
        if (options.staging == 3) {
          // MXFP8 converted: each half of the k-tile into bf16 buffer h
          // between two barriers, then its wgmmas, one group in flight;
          // the stage freed after the second half's conversion.
          for (int64_t h = 0; h < 2; ++h) {
            if (options.firstBarrier)
              push(Op::NamedSync, 0, 0, 0, 1);
            if (h == 0)
              push(Op::Read, s, it);
            push(Op::WriteBuf, 0, 2 * it + h, h);
            push(Op::NamedSync, 0, 0, 0, 1);
            if (h == 1)
              free(s);
            push(Op::Wgmma, 0, 2 * it + h, h);
            push(Op::WaitGroup, 0, 0, 0, 1);
          }
          continue;
        }
        if (options.staging == 1) {
          // MN-major: the transposing copy into buffer it % buffers.
          bool perTensor = !options.inLoopFree;
          if (perTensor && options.buffers == 1)
            push(Op::WaitGroup, 0, 0, 0, 0);
          if ((perTensor || options.buffers == 1) && options.firstBarrier)
            push(Op::NamedSync, 0, 0, 0, 1);
          push(Op::Read, s, it);
          push(Op::WriteBuf, 0, it, it % options.buffers);
          push(Op::NamedSync, 0, 0, 0, 1);
          push(Op::Wgmma, 0, it, it % options.buffers);
        } else {
          push(Op::Read, s, it);
          push(Op::Wgmma, s, it, -1);
        }
        if (options.inLoopFree) {
          push(Op::WaitGroup, 0, 0, 0, 0);
          free(s);
        } else {
          push(Op::WaitGroup, 0, 0, 0, 1);
          if (kt > 0)
            free((it - 1) % plan.stages);
        }
      }
      a.steps.push_back({Op::WaitGroup, 0, 0, 0, 0, 0, {}});
      if (plan.pingpong && options.orderBarrier && n + 1 < its.size())
        a.steps.push_back({Op::NamedArrive, 0, 0, 0, 0, 2 + (1 - c), {}});
      // Persistent per-tensor consumers free the tile's last stage.
      if (plan.persistent() && !options.inLoopFree && options.staging < 2 &&
          options.tileEndFree) {
        int64_t last =
            (j * plan.kTilesPerUnit() + plan.kTilesPerUnit() - 1) % plan.stages;
        a.steps.push_back({Op::Free, last, 0, 0, 0, 0, frees});
      }
    }
    if (plan.multicast())
      a.steps.push_back({Op::ClusterWait, 0, 0, 0, 0, 0, {}});
    return a;
  }

  /// Units of tx one stage expects: A, and B whole or as two halves.
  int64_t parts() const { return plan.multicast() ? 3 : 2; }
  Block &pairOf(const Agent &a) { return blocks[a.block & ~int64_t(1)]; }

  bool canStep(Agent &a) {
    const Step &s = a.steps[a.next];
    Block &b = blocks[a.block];
    switch (s.op) {
    case Op::WaitFull:
      return b.full[s.stage].passes(s.parity);
    case Op::WaitEmpty:
      return b.empty[s.stage].passes(s.parity);
    case Op::NamedSync:
      return a.seenGeneration < 0 ||
             b.named[s.id].generation != a.seenGeneration;
    case Op::ClusterWait:
      return a.seenGeneration < 0 ||
             pairOf(a).clusterGeneration != a.seenGeneration;
    default:
      return true;
    }
  }

  std::string step(Agent &a) {
    const Step &s = a.steps[a.next];
    if (getenv("QS_PROTOCOL_TRACE"))
      fprintf(stderr, "b%ld a%ld op%d stage %ld tag %ld part %ld\n",
              (long)a.block, (long)a.consumer, (int)s.op, (long)s.stage,
              (long)s.tag, (long)s.part);
    Block &b = blocks[a.block];
    std::string where = "block " + std::to_string(a.block) + " consumer " +
                        std::to_string(a.consumer) + " stage " +
                        std::to_string(s.stage);
    switch (s.op) {
    case Op::WaitFull:
    case Op::WaitEmpty:
      break;
    case Op::ExpectTx:
      b.full[s.stage].tx += parts();
      b.full[s.stage].arrive();
      break;
    case Op::Load:
      for (int64_t t : s.targets) {
        if (!blocks[t].readers[s.stage].empty())
          return "TMA overwrites block " + std::to_string(t) + " stage " +
                 std::to_string(s.stage) + " while a consumer reads it";
        copies.push_back({t, s.stage, s.part, s.tag});
      }
      break;
    case Op::Read: {
      const std::vector<int64_t> &parts = b.data[s.stage];
      for (size_t p = 0; p < parts.size(); ++p)
        if (parts[p] != s.tag)
          return where + ": reads k-tile " + std::to_string(parts[p]) +
                 " in part " + std::to_string(p) + ", waited for " +
                 std::to_string(s.tag);
      b.readers[s.stage].insert(a.consumer);
      break;
    }
    case Op::Free: {
      for (int64_t read : b.groups[a.consumer])
        if (read == -(s.stage + 2))
          return where + ": frees a stage its in-flight wgmmas read";
      auto it = b.readers[s.stage].find(a.consumer);
      if (it == b.readers[s.stage].end())
        return where + ": frees a stage it does not read";
      b.readers[s.stage].erase(it);
      for (int64_t t : s.targets)
        blocks[t].empty[s.stage].arrive();
      break;
    }
    case Op::NamedSync:
      if (a.seenGeneration < 0) {
        a.seenGeneration = b.named[s.id].generation;
        b.named[s.id].arrive();
        return "";
      }
      a.seenGeneration = -1;
      break;
    case Op::NamedArrive:
      b.named[s.id].arrive();
      break;
    case Op::WriteBuf:
      for (int64_t c = 0; c < kConsumers; ++c)
        for (int64_t read : b.groups[c])
          if (read == s.part)
            return where + ": overwrites buffer " + std::to_string(s.part) +
                   " while a wgmma of consumer " + std::to_string(c) +
                   " reads it";
      b.buffers[s.part][a.consumer] = s.tag;
      break;
    case Op::Wgmma:
      if (s.part >= 0)
        for (int64_t c = 0; c < kConsumers; ++c)
          if (b.buffers[s.part][c] != s.tag)
            return where + ": wgmma of k-tile " + std::to_string(s.tag) +
                   " reads buffer " + std::to_string(s.part) +
                   " whose half by consumer " + std::to_string(c) +
                   " holds k-tile " + std::to_string(b.buffers[s.part][c]);
      // A group reading the stage directly is recorded as -(stage + 2).
      b.groups[a.consumer].push_back(s.part >= 0 ? s.part : -(s.stage + 2));
      break;
    case Op::WaitGroup: {
      std::vector<int64_t> &groups = b.groups[a.consumer];
      while (int64_t(groups.size()) > s.id)
        groups.erase(groups.begin());
      break;
    }
    case Op::ClusterWait: {
      Block &pair = pairOf(a);
      if (a.seenGeneration < 0) {
        a.seenGeneration = pair.clusterGeneration;
        if (++pair.clusterArrived == 2 * (1 + kConsumers)) {
          pair.clusterArrived = 0;
          ++pair.clusterGeneration;
        }
        return "";
      }
      a.seenGeneration = -1;
      break;
    }
    }
    ++a.next;
    return "";
  }

  std::string complete(size_t index) {
    AsyncCopy c = copies[index];
    if (getenv("QS_PROTOCOL_TRACE"))
      fprintf(stderr, "copy b%ld stage %ld part %ld tag %ld\n", (long)c.block,
              (long)c.stage, (long)c.part, (long)c.tag);
    copies.erase(copies.begin() + index);
    Block &b = blocks[c.block];
    b.data[c.stage][c.part] = c.tag;
    b.full[c.stage].tx -= 1;
    b.full[c.stage].completeIfDone();
    return "";
  }
};

/// A plan of `tilesM` x `tilesN` tiles of `kTiles` k-tiles on a ring of
/// `stages` stages.
GemmPlan makePlan(int64_t tilesM, int64_t tilesN, int64_t kTiles,
                  int64_t stages, int64_t persistent = 0, int64_t cluster = 1,
                  bool pingpong = false, int64_t splitK = 1) {
  GemmPlan p = tiledPlan(tilesM, tilesN, kTiles, stages);
  p.persistentBlocks = persistent;
  p.cluster = cluster;
  p.pingpong = pingpong;
  p.splitK = splitK;
  return p;
}

std::string check(const GemmPlan &plan, Options options, int runs = 300) {
  for (int seed = 0; seed < runs; ++seed) {
    Model model(plan, options);
    std::string error = model.run(seed);
    if (!error.empty())
      return "seed " + std::to_string(seed) + ": " + error;
  }
  return "";
}

TEST(GemmProtocol, Cooperative) {
  EXPECT_EQ(check(makePlan(2, 2, 5, 3), {}), "");
  EXPECT_EQ(check(makePlan(1, 1, 2, 4), {}), "");
}

TEST(GemmProtocol, CooperativePersistent) {
  // 3 blocks over 7 tiles of 3 k-tiles: the ring (4 stages) wraps inside
  // and across tiles.
  EXPECT_EQ(check(makePlan(1, 7, 3, 4, 3), {}), "");
  EXPECT_EQ(check(makePlan(2, 3, 1, 3, 2), {}), "");
}

TEST(GemmProtocol, BlockScaledFreesInsideTheKTile) {
  Options inLoop;
  inLoop.inLoopFree = true;
  EXPECT_EQ(check(makePlan(2, 2, 5, 3), inLoop), "");
  EXPECT_EQ(check(makePlan(1, 7, 3, 4, 3), inLoop), "");
}

TEST(GemmProtocol, OverlappedPromotion) {
  // qs.gemm_promotion = "overlapped": a stage is freed after the
  // wait_group 1 that follows the next k-tile's wgmmas (within a run) or
  // after the run's closing wait_group 0. Runs of 2 over 5 k-tiles (two
  // runs and one single), of 3 over 3 and 6 (persistent: the ring wraps
  // across tiles), with multicast pairs and split-K units.
  for (int64_t length : {2, 3}) {
    Options overlapped;
    overlapped.overlapRun = length;
    EXPECT_EQ(check(makePlan(2, 2, 5, 3), overlapped), "") << length;
    EXPECT_EQ(check(makePlan(1, 7, 6, 4, 3), overlapped), "") << length;
    EXPECT_EQ(check(makePlan(1, 7, 3, 4, 3), overlapped), "") << length;
    EXPECT_EQ(check(makePlan(3, 2, 5, 3, 0, 2), overlapped), "") << length;
    EXPECT_EQ(check(makePlan(5, 2, 3, 4, 5, 2), overlapped), "") << length;
    EXPECT_EQ(check(makePlan(2, 2, 6, 3, 0, 1, false, 3), overlapped), "")
        << length;
  }
}

TEST(GemmProtocol, OverlappedPromotionFreesTheOlderStage) {
  // Freeing the k-tile just issued (whose wgmmas wait_group 1 leaves in
  // flight) would let TMA overwrite what they read: the model must find it.
  Options wrong;
  wrong.overlapRun = 3;
  wrong.freeNewest = true;
  std::string error = check(makePlan(2, 2, 6, 3), wrong);
  EXPECT_NE(error.find("frees a stage its in-flight wgmmas read"),
            std::string::npos)
      << error;
}

TEST(GemmProtocol, MulticastPairs) {
  Options inLoop;
  inLoop.inLoopFree = true;
  // 3 tile rows (a phantom fourth), 2 columns: 4 pairs.
  EXPECT_EQ(check(makePlan(3, 2, 5, 3, 0, 2), {}), "");
  EXPECT_EQ(check(makePlan(3, 2, 5, 3, 0, 2), inLoop), "");
  // Persistent: 5 -> 4 blocks over 12 tiles.
  EXPECT_EQ(check(makePlan(5, 2, 3, 4, 5, 2), {}), "");
  EXPECT_EQ(check(makePlan(5, 2, 3, 4, 5, 2), inLoop), "");
}

TEST(GemmProtocol, Pingpong) {
  // 2 blocks over 7 tiles (4 and 3 iterations), 3 k-tiles on 4 stages.
  EXPECT_EQ(check(makePlan(1, 7, 3, 4, 2, 1, true), {}), "");
  EXPECT_EQ(check(makePlan(1, 5, 1, 3, 1, 1, true), {}), "");
  // With multicast pairs: 4 blocks over 12 tiles.
  EXPECT_EQ(check(makePlan(5, 2, 3, 4, 5, 2, true), {}), "");
}

TEST(GemmProtocol, SplitK) {
  // qs.gemm_split_k: blocks (and persistent blocks' loops) walk units of
  // fewer k-tiles each, the stage ring counting the unit's k-tiles: 2 x 2
  // tiles of 6 k-tiles split 3 (2 each on 3 stages); persistent, 3 blocks
  // over 7 tiles split 2; ping-pong and multicast pairs split 2.
  Options inLoop;
  inLoop.inLoopFree = true;
  EXPECT_EQ(check(makePlan(2, 2, 6, 3, 0, 1, false, 3), {}), "");
  EXPECT_EQ(check(makePlan(2, 2, 6, 3, 0, 1, false, 3), inLoop), "");
  EXPECT_EQ(check(makePlan(1, 7, 6, 4, 3, 1, false, 2), {}), "");
  EXPECT_EQ(check(makePlan(1, 7, 6, 4, 2, 1, true, 2), {}), "");
  EXPECT_EQ(check(makePlan(3, 2, 4, 3, 5, 2, false, 2), inLoop), "");
}

TEST(GemmProtocol, PingpongNeedsItsOrderBarriers) {
  // Without them a consumer passes a full barrier two rounds early (same
  // parity) and reads the other consumer's k-tile, or the producer
  // overwrites a stage still read: the model must find it.
  Options unordered;
  unordered.orderBarrier = false;
  std::string error = check(makePlan(1, 7, 3, 4, 2, 1, true), unordered);
  EXPECT_NE(error, "");
  std::printf("without the order barriers: %s\n", error.c_str());
  EXPECT_TRUE(error.find("reads k-tile") != std::string::npos ||
              error.find("overwrites") != std::string::npos)
      << error;
}

TEST(GemmProtocol, TransposedTiles) {
  // MN-major operands: per-tensor with two buffers (and one, when two
  // would leave too few stages), block-scaled (MXFP8) with two; one block
  // per tile and persistent.
  for (int64_t buffers : {2, 1})
    for (int64_t persistent : {0, 2}) {
      Options perTensor;
      perTensor.staging = 1;
      perTensor.buffers = buffers;
      EXPECT_EQ(check(makePlan(1, 4, 5, 3, persistent), perTensor), "")
          << buffers << " buffers, persistent " << persistent;
      Options blockScaled = perTensor;
      blockScaled.inLoopFree = true;
      EXPECT_EQ(check(makePlan(1, 4, 5, 3, persistent), blockScaled), "")
          << buffers << " buffers, persistent " << persistent;
    }
}

TEST(GemmProtocol, Nvfp4F16Buffers) {
  // Buffer kt % 2: with 3 k-tiles per tile two consecutive k-tiles (a
  // tile's last, the next tile's first) use buffer 0; the tile-end
  // wait_group 0 keeps that safe.
  Options fp4;
  fp4.staging = 2;
  EXPECT_EQ(check(makePlan(1, 4, 3, 3, 2), fp4), "");
  EXPECT_EQ(check(makePlan(2, 2, 4, 3), fp4), "");
}

TEST(GemmProtocol, Mxfp8Bf16Halves) {
  // Two conversions per k-tile into buffers 0 and 1: the barrier before
  // each, after both consumers' wait_group 1, keeps the wgmmas of the half
  // before last (the buffer's last reader) complete before it is
  // rewritten; persistent and multicast blocks too.
  Options mx;
  mx.staging = 3;
  EXPECT_EQ(check(makePlan(1, 4, 3, 3, 2), mx), "");
  EXPECT_EQ(check(makePlan(2, 2, 4, 4), mx), "");
  EXPECT_EQ(check(makePlan(2, 2, 5, 3, 0, 2), mx), "");
  mx.firstBarrier = false;
  std::string error = check(makePlan(1, 2, 6, 3), mx);
  EXPECT_NE(error.find("overwrites buffer"), std::string::npos) << error;
}

TEST(GemmProtocol, BuffersNeedTheirFirstBarrier) {
  // Without the barrier before the copy / conversion, a consumer could
  // overwrite a buffer the other's wgmmas (two k-tiles back) still read.
  Options transposed;
  transposed.staging = 1;
  transposed.firstBarrier = false;
  std::string error = check(makePlan(1, 2, 6, 3), transposed);
  EXPECT_NE(error.find("overwrites buffer"), std::string::npos) << error;
  Options fp4;
  fp4.staging = 2;
  fp4.firstBarrier = false;
  error = check(makePlan(1, 2, 6, 3), fp4);
  EXPECT_NE(error.find("overwrites buffer"), std::string::npos) << error;
}

TEST(GemmProtocol, MulticastNeedsRemoteFrees) {
  // Empty barriers that counted only the block's own consumers would let
  // the peer's producer write its half of B into a stage still read.
  Options localOnly;
  localOnly.remoteFree = false;
  std::string error = check(makePlan(3, 2, 5, 3, 0, 2), localOnly);
  EXPECT_NE(error.find("overwrites"), std::string::npos) << error;
}

TEST(GemmProtocol, FindsAMissingFree) {
  // A persistent per-tensor kernel that did not free each tile's last
  // stage (after its final wait_group 0) would hang its producer.
  Options noTileEndFree;
  noTileEndFree.tileEndFree = false;
  std::string error = check(makePlan(1, 6, 3, 4, 2), noTileEndFree, 20);
  EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
}

} // namespace
