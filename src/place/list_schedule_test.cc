// Shared pieces of the list schedulers (place/list_schedule.h) on hand-computed graphs.
#include "place/list_schedule.h"

#include <gtest/gtest.h>

#include "sim/simulator.h"
#include "sim/test_graphs.h"

namespace devplace {
namespace {

// PEFT's optimistic cost table: a -> b -> c and a -> d; seconds on cpu / gpu: a 1 / 2, b 1 / 1.6,
// c 10 / 1, d 3 / 3; moving a's output costs 0.5, b's 5, the others' 0.5.
TEST(ListSchedule, OptimisticCostsTakeTheBestDeviceOfEveryLaterOpAndTheLongestPath) {
  test::Builder b;
  b.op("a", {}, 1, 2);
  b.op("b", {"a"}, 1, 1.6, 5.0);
  b.op("c", {"b"}, 10, 1);
  b.op("d", {"a"}, 3, 3);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  const std::vector<double> oct = optimistic_costs(p, EdgeCosts(p));
  auto at = [&](const char* op, int d) { return oct[static_cast<std::size_t>(b.g.find_op(op)) * 2 + d]; };
  // Exits cost nothing after themselves.
  EXPECT_DOUBLE_EQ(at("c", 0), 0);
  EXPECT_DOUBLE_EQ(at("d", 1), 0);
  // b on the cpu: c on the gpu after the 5 s copy, 5 + 1 (on the cpu: 10); on the gpu: 1.
  EXPECT_DOUBLE_EQ(at("b", 0), 6);
  EXPECT_DOUBLE_EQ(at("b", 1), 1);
  // a on the cpu: the path through b is min(6 + 1, 1 + 1.6 + 0.5) = 3.1, through d min(3, 3.5) = 3;
  // on the gpu: min(6 + 1 + 0.5, 1 + 1.6) = 2.6 and min(3 + 0.5, 3) = 3.
  EXPECT_DOUBLE_EQ(at("a", 0), 3.1);
  EXPECT_DOUBLE_EQ(at("a", 1), 3);
}

// Under an execution model the table charges each later op what its worker spends on it
// (dispatch + op_scale x the op's time), so that it stays below every schedule's remaining time:
// with op_scale 0.5 the table's op times would otherwise be twice what the simulator charges,
// and a rollout that ranks its episodes by finish + oct would rank them by a bound it breaks.
TEST(ListSchedule, OptimisticCostsUnderAnExecutionModelAreWhatTheWorkersSpend) {
  test::Builder b;
  b.op("a", {}, 4, 4);
  b.op("b", {"a"}, 4, 6);
  b.op("c", {"b"}, 4, 6);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  ExecutionModel m = test::two_devices_execution();
  m.devices[0].op_scale = 0.5;
  m.devices[0].wake = 0;
  m.devices[1].op_scale = 0.5;
  p.set_execution(m, "");
  const std::vector<double> oct = optimistic_costs(p, EdgeCosts(p));
  auto at = [&](const char* op, int d) { return oct[static_cast<std::size_t>(b.g.find_op(op)) * 2 + d]; };
  // c on the cpu: 0.1 + 0.5 x 4 = 2.1; on the gpu: 0.5 x 6 = 3 (no dispatch there).
  EXPECT_DOUBLE_EQ(at("b", 0), 2.1);
  // b then c on the cpu: 2.1 + 2.1.
  EXPECT_DOUBLE_EQ(at("a", 0), 4.2);
  // Every op's simulated end plus its table entry stays within the makespan, on either device alone.
  for (int d : {0, 1}) {
    const Placement all(3, d);
    const Schedule s = Simulator(p).run(all);
    for (int v = 0; v < 3; ++v) EXPECT_LE(s.ops[v].end + oct[static_cast<std::size_t>(v) * 2 + d], s.makespan + 1e-12);
  }
}

}  // namespace
}  // namespace devplace
