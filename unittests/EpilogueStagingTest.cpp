//===- EpilogueStagingTest.cpp - the staged epilogues' protocol -----------===//
//
// A model of the GEMM epilogues that stage D in shared memory (GemmKernels.cpp
// Sm90Block::storeTile, GemmTcgen05.cpp Tcgen05Block::stagedEpilogue), run
// under random interleavings: the CPU emulation runs the staging groups one
// after another, so it cannot show a race between them, nor with the TMA
// stores that read the buffers asynchronously.
//
// A staging group (an sm_90a consumer warpgroup, a tcgen05 epilogue warp)
// is one agent here: its threads' own handoffs (consumer barriers 4/5,
// bar.warp.sync) are taken as given. Each group has two buffers and walks
// its units' store chunks in order, filling buffer c % 2 with chunk c, and
// then either
//  - issues a TMA store of the buffer (qs.gemm_epilogue = "tma"): an
//    asynchronous read at any later time, in any order among the pending
//    ones; before refilling a buffer the group waits with
//    cp.async.bulk.wait_group.read N (every store but its N most recent
//    has read its buffer), and waits for all of them before it exits; or
//  - reads a pass of chunks back (staged blocks, GemmPlan::stagesBlocks:
//    stagedChunkGroup() chunks), its own buffers or (FP8 1x128 column
//    blocks, GemmPlan::stagesAcrossGroups) every group's, meeting the other
//    groups at a named barrier of all of them before the pass's fills and
//    after them.
// The schedule of each group is derived from the plan as the kernels
// derive theirs.
//
// Checked: every read-back finds each buffer it reads holding the chunk of
// its own unit and pass, every TMA store reads the chunk it was issued
// for (no refill before it), no TMA store is pending when its group exits,
// and every group finishes (no deadlock).
//
//===----------------------------------------------------------------------===//

#include "GemmTestPlans.h"
#include "Kernels.h"
#include "gtest/gtest.h"
#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {

enum class Op {
  Fill,     // the chunk's values into buffer `buffer` (tag)
  Store,    // TMA store of buffer `buffer` (asynchronous read of `tag`)
  WaitRead, // cp.async.bulk.wait_group.read `n`
  Barrier,  // the named barrier of every group
  ReadBack, // read the pass's chunks back (tags `expect`)
};

struct Step {
  Op op;
  int64_t buffer = 0, tag = 0, n = 0;
  /// ReadBack: (group, buffer, tag) of every buffer read.
  std::vector<std::array<int64_t, 3>> expect;
};

/// A TMA store not yet read: the `order`-th its group issued.
struct Pending {
  int64_t group, buffer, tag, order;
};

/// What the kernels do, per option: `barrierBeforeFills` (stagesAcrossGroups:
/// the barrier before each pass's fills), `waitBeforeRefill` (the
/// wait_group.read before a TMA-store buffer's refill) and
/// `firstChunkWaitsAll` can be dropped to show that the model finds the
/// race.
struct Options {
  int64_t units = 1;
  bool barrierBeforeFills = true;
  bool waitBeforeRefill = true;
  /// sm_90a: wait_group.read 0 (not 1) before a tile's first chunk.
  bool firstChunkWaitsAll = true;
};

int64_t tagOf(int64_t unit, int64_t chunk) { return unit * 1000 + chunk; }

/// Group g's steps for `units` units of the plan's tile (its chunks).
std::vector<Step> schedule(const GemmPlan &plan, int64_t g,
                           const Options &options) {
  std::vector<Step> steps;
  bool blocks = plan.stagesBlocks(), across = plan.stagesAcrossGroups();
  int64_t group = plan.stagedChunkGroup(), chunks = plan.storeChunks();
  int64_t groups = across ? plan.stagingGroups() : 1;
  for (int64_t unit = 0; unit < options.units; ++unit)
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      int64_t buffer = chunk % 2;
      if (!blocks && options.waitBeforeRefill) {
        // sm_90a: read 0 at a tile's first chunk (a tile's chunk count may
        // be odd), else 1; tcgen05: 1 from chunk 2 on, or from the first
        // when persistent (a tile's chunk count is even there).
        if (!plan.tcgen05)
          steps.push_back({Op::WaitRead,
                           0,
                           0,
                           chunk == 0 && options.firstChunkWaitsAll ? 0 : 1,
                           {}});
        else if (chunk >= 2 || plan.persistent())
          steps.push_back({Op::WaitRead, 0, 0, 1, {}});
      }
      if (across && chunk % group == 0 && options.barrierBeforeFills)
        steps.push_back({Op::Barrier, 0, 0, 0, {}});
      steps.push_back({Op::Fill, buffer, tagOf(unit, chunk), 0, {}});
      if (!blocks) {
        steps.push_back({Op::Store, buffer, tagOf(unit, chunk), 0, {}});
        continue;
      }
      if ((chunk + 1) % group != 0)
        continue;
      if (across)
        steps.push_back({Op::Barrier, 0, 0, 0, {}});
      Step read{Op::ReadBack, 0, 0, 0, {}};
      int64_t first = chunk + 1 - group;
      for (int64_t reader = 0; reader < groups; ++reader)
        for (int64_t c = first; c <= chunk; ++c)
          read.expect.push_back({across ? reader : g, c % 2, tagOf(unit, c)});
      steps.push_back(read);
    }
  if (!blocks)
    steps.push_back({Op::WaitRead, 0, 0, 0, {}});
  return steps;
}

class Model {
public:
  Model(const GemmPlan &plan, const Options &options) {
    int64_t groups = plan.stagingGroups();
    buffers.assign(groups, std::vector<int64_t>(2, -1));
    for (int64_t g = 0; g < groups; ++g)
      agents.push_back(schedule(plan, g, options));
    next.assign(groups, 0);
    arrived.assign(groups, false);
    issued.assign(groups, 0);
  }

  std::string run(unsigned seed) {
    std::mt19937 rng(seed);
    int64_t groups = agents.size();
    while (true) {
      // Candidates: groups that can take their next step, and (index
      // groups + i) the pending TMA stores' reads.
      std::vector<int64_t> ready;
      for (int64_t g = 0; g < groups; ++g)
        if (next[g] < agents[g].size() && canStep(g))
          ready.push_back(g);
      for (size_t i = 0; i < pending.size(); ++i)
        ready.push_back(groups + i);
      if (ready.empty()) {
        for (int64_t g = 0; g < groups; ++g)
          if (next[g] < agents[g].size())
            return "deadlock: group " + std::to_string(g) + " at step " +
                   std::to_string(next[g]);
        return "";
      }
      int64_t pick = ready[rng() % ready.size()];
      std::string error = pick < groups ? step(pick) : complete(pick - groups);
      if (!error.empty())
        return error;
    }
  }

private:
  std::vector<std::vector<Step>> agents;
  std::vector<size_t> next;
  std::vector<std::vector<int64_t>> buffers; // [group][buffer] = tag
  std::vector<Pending> pending;
  std::vector<bool> arrived;   // at the current barrier
  std::vector<int64_t> issued; // [group] = TMA stores issued

  int64_t pendingOf(int64_t g) const {
    int64_t n = 0;
    for (const Pending &p : pending)
      n += p.group == g;
    return n;
  }

  bool canStep(int64_t g) const {
    const Step &s = agents[g][next[g]];
    if (s.op == Op::WaitRead) {
      // Every pending store of g is among its n most recent (the PTX
      // ISA's wait_group.read: those before them have all been read).
      for (const Pending &p : pending)
        if (p.group == g && p.order < issued[g] - s.n)
          return false;
      return true;
    }
    if (s.op == Op::Barrier)
      return !arrived[g];
    return true;
  }

  std::string step(int64_t g) {
    const Step &s = agents[g][next[g]];
    std::string who = "group " + std::to_string(g);
    switch (s.op) {
    case Op::Fill:
      for (const Pending &p : pending)
        if (p.group == g && p.buffer == s.buffer)
          return who + " refills buffer " + std::to_string(s.buffer) +
                 " (chunk tag " + std::to_string(s.tag) +
                 ") before the TMA store of tag " + std::to_string(p.tag) +
                 " read it";
      buffers[g][s.buffer] = s.tag;
      break;
    case Op::Store:
      pending.push_back({g, s.buffer, s.tag, issued[g]++});
      break;
    case Op::WaitRead:
      break;
    case Op::Barrier: {
      // Arrive; the last of all groups releases everyone.
      arrived[g] = true;
      bool all = true;
      for (bool a : arrived)
        all = all && a;
      if (!all)
        return ""; // blocked here until released (next[g] unchanged)
      for (size_t o = 0; o < arrived.size(); ++o) {
        arrived[o] = false;
        ++next[o];
      }
      return "";
    }
    case Op::ReadBack:
      for (const auto &[group, buffer, tag] : s.expect)
        if (buffers[group][buffer] != tag)
          return who + " reads group " + std::to_string(group) + "'s buffer " +
                 std::to_string(buffer) + " holding tag " +
                 std::to_string(buffers[group][buffer]) + ", not " +
                 std::to_string(tag);
      break;
    }
    ++next[g];
    if (next[g] == agents[g].size() && pendingOf(g))
      return who + " exits with a TMA store pending";
    return "";
  }

  std::string complete(size_t i) {
    Pending p = pending[i];
    pending.erase(pending.begin() + i);
    if (buffers[p.group][p.buffer] != p.tag)
      return "the TMA store of group " + std::to_string(p.group) + "'s tag " +
             std::to_string(p.tag) + " reads tag " +
             std::to_string(buffers[p.group][p.buffer]);
    return "";
  }
};

std::string check(const GemmPlan &plan, const Options &options,
                  int runs = 300) {
  for (int seed = 0; seed < runs; ++seed) {
    std::string error = Model(plan, options).run(seed);
    if (!error.empty())
      return "seed " + std::to_string(seed) + ": " + error;
  }
  return "";
}

/// A plan of 2 x 2 tiles `tileN` wide with a bf16 output on sm_90a or
/// (`tcgen05`) sm_100a, with the TMA-store epilogue or a block quantizer
/// of `block` (32: MXFP8, 128: FP8 1x128) with column-wise blocks (sm_90a
/// stages row-wise ones too; those are read by each consumer alone).
GemmPlan stagedPlan(bool tcgen05, int64_t tileN, bool persistent,
                    int64_t block = 0, bool columnwise = true) {
  static mlir::MLIRContext context;
  GemmPlan p = tiledPlan(2, 2, 2, 4);
  p.tcgen05 = tcgen05;
  p.tileN = tileN;
  p.n = 2 * tileN;
  p.persistentBlocks = persistent ? 2 : 0;
  p.outType = mlir::BFloat16Type::get(&context);
  p.tmaStore = block == 0;
  if (block) {
    auto q = std::make_shared<ProducerBlockQuantizer>();
    q->block = block;
    q->nominal = p.outType;
    if (columnwise)
      q->columnScale = [](KernelEnv &, mlir::Value, mlir::Value, mlir::Value,
                          mlir::Value) { return mlir::Value(); };
    p.outputBlocks = q;
  }
  return p;
}

TEST(EpilogueStaging, TmaStores) {
  // Both chips, one block per tile and persistent (three units in turn),
  // tiles of 2, 3 (sm_90a's 128x192) and 4 chunks of 64 bf16 columns.
  for (bool tcgen05 : {false, true})
    for (bool persistent : {false, true})
      for (int64_t tileN : {128, 192, 256}) {
        if (tcgen05 && tileN == 192)
          continue;
        Options options;
        options.units = persistent ? 3 : 1;
        EXPECT_EQ(check(stagedPlan(tcgen05, tileN, persistent), options), "")
            << (tcgen05 ? "sm_100a" : "sm_90a") << " tileN " << tileN
            << (persistent ? " persistent" : "");
      }
}

TEST(EpilogueStaging, BlocksOfEachGroup) {
  // MXFP8 column blocks (a pass per chunk) and sm_90a's row-wise FP8
  // 1x128 blocks (a pass per two chunks): each group reads its own
  // buffers.
  for (bool tcgen05 : {false, true})
    for (int64_t tileN : {128, 256}) {
      Options options;
      options.units = 3;
      EXPECT_EQ(check(stagedPlan(tcgen05, tileN, true, 32), options), "");
    }
  Options options;
  options.units = 3;
  EXPECT_EQ(check(stagedPlan(false, 256, true, 128, false), options), "");
}

TEST(EpilogueStaging, ColumnBlocksAcrossGroups) {
  // FP8 1x128 column blocks: both consumers (sm_90a) or four warps
  // (sm_100a) stage each pass of two chunks and read every group's.
  for (bool tcgen05 : {false, true})
    for (bool persistent : {false, true})
      for (int64_t tileN : {128, 256}) {
        GemmPlan plan = stagedPlan(tcgen05, tileN, persistent, 128);
        ASSERT_TRUE(plan.stagesAcrossGroups());
        ASSERT_EQ(plan.stagedChunkGroup(), 2);
        Options options;
        options.units = persistent ? 3 : 1;
        EXPECT_EQ(check(plan, options), "")
            << (tcgen05 ? "sm_100a" : "sm_90a") << " tileN " << tileN
            << (persistent ? " persistent" : "");
      }
}

TEST(EpilogueStaging, AcrossGroupsNeedTheBarrierBeforeFills) {
  // Without it a group refills a buffer of the next pass (or the next
  // unit's first) while another group still has the previous pass to read.
  for (bool tcgen05 : {false, true}) {
    Options options;
    options.units = 3;
    options.barrierBeforeFills = false;
    std::string error = check(stagedPlan(tcgen05, 256, true, 128), options);
    EXPECT_NE(error.find("reads group"), std::string::npos) << error;
  }
}

TEST(EpilogueStaging, TmaStoresNeedTheWaitBeforeRefills) {
  for (bool tcgen05 : {false, true}) {
    Options options;
    options.units = 3;
    options.waitBeforeRefill = false;
    std::string error = check(stagedPlan(tcgen05, 256, true), options);
    EXPECT_NE(error.find("before the TMA store"), std::string::npos) << error;
  }
}

TEST(EpilogueStaging, OddChunkCountsWaitForAllAtATilesStart) {
  // sm_90a 128x192 tiles have 3 chunks: a persistent block's next tile
  // starts in buffer 0, which the previous tile's last store (its most
  // recent) reads: wait_group.read 1 there would not wait for it.
  Options options;
  options.units = 3;
  options.firstChunkWaitsAll = false;
  std::string error = check(stagedPlan(false, 192, true), options);
  EXPECT_NE(error.find("before the TMA store"), std::string::npos) << error;
  std::printf("wait_group.read 1 at a 3-chunk tile's start: %s\n",
              error.c_str());
}

} // namespace
