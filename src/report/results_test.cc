#include "report/results.h"

#include <gtest/gtest.h>

#include <cmath>

namespace devplace {
namespace {

TEST(Results, MarkdownTableEscapesPadsAndAligns) {
  MarkdownTable t{{"a", "b", "c"}, "lr", {{"x|y", "1"}, {"z", "2", "3"}}};
  EXPECT_EQ(t.render(), "| a | b | c |\n|---|---:|---|\n| x\\|y | 1 |  |\n| z | 2 | 3 |\n");
}

TEST(Results, NumberFormats) {
  EXPECT_EQ(fmt_ms(0.0123456), "12.346");
  EXPECT_EQ(fmt_ms(INFINITY), "inf");
  EXPECT_EQ(fmt_ratio(2.454), "2.45x");
  EXPECT_EQ(fmt_ratio(0), "-");
  EXPECT_EQ(fmt_gap(0.149), "+14.9%");
  EXPECT_EQ(fmt_gap(-0.5), "-50.0%");
  EXPECT_EQ(fmt_seconds(0.0001), "<0.001");
  EXPECT_EQ(fmt_seconds(12.34), "12.3");
  EXPECT_EQ(short_error("first\nsecond"), "first");
  EXPECT_EQ(short_error(std::string(300, 'x'), 10), "xxxxxxx...");
}

TEST(Results, GridBoldsBestAndListsErrors) {
  ResultGrid g({"slow", "fast", "broken", "overflow", "skipped"}, {"m"});
  g.at(0, 0) = {true, "", {0.004, true, ""}, 1.0, 0.5, 0.01};
  g.at(1, 0) = {true, "", {0.002, true, ""}, 2.0, 0.0, 1.5};
  g.at(2, 0) = {true, "unknown algorithm 'broken'", {INFINITY, false, ""}, 0, NAN, 0};
  g.at(3, 0) = {true, "", {INFINITY, false, "gpu over capacity by 3 MiB"}, 0, NAN, 0.2};
  const std::string md = grid_markdown(g);
  EXPECT_NE(md.find("| slow | 4.000 | 1.00x | +50.0% | 0.010 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| fast | **2.000** | 2.00x | +0.0% | 1.500 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| broken | n/a | - | - | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| overflow | infeasible | - | - | 0.200 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| skipped | - | - | - | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("- broken on m: unknown algorithm 'broken'"), std::string::npos) << md;
  EXPECT_NE(md.find("- overflow on m: infeasible: gpu over capacity by 3 MiB"), std::string::npos) << md;
}

TEST(Results, MachineInfoNeverEmpty) {
  MachineInfo m = machine_info("/nonexistent-dir");
  EXPECT_GT(m.cores, 0);
  EXPECT_FALSE(m.cpu_model.empty());
  EXPECT_EQ(m.commit, "unknown");
}

}  // namespace
}  // namespace devplace
