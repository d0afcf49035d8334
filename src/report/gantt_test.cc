#include "report/gantt.h"
#include "report/plot.h"

#include <gtest/gtest.h>

#include "place/small_graphs.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

int count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

TEST(Gantt, OneLanePerDeviceOneBoxPerOpOneBandPerTransfer) {
  auto sp = make_small_problem({.ops = 12, .devices = 3, .seed = 4});
  const Problem& pb = *sp->problem;
  Placement p(pb.num_ops());
  for (int i = 0; i < pb.num_ops(); ++i) p[i] = i % 3;
  Simulator sim(pb);
  Schedule s = sim.run(p);
  ASSERT_FALSE(s.transfers.empty());
  const std::string svg = gantt_svg(pb, s);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  for (const auto& d : pb.cluster().devices) EXPECT_NE(svg.find(">" + d.name + "</text>"), std::string::npos) << d.name;
  EXPECT_EQ(count(svg, "<polygon"), static_cast<int>(s.transfers.size()));
  // Lanes (one rect each) + op boxes + legend swatches.
  EXPECT_GE(count(svg, "<rect"), 1 + pb.num_devices() + pb.num_ops());
}

TEST(Gantt, CapsTransfersAndEscapesTitles) {
  auto sp = make_small_problem({.ops = 30, .devices = 2, .seed = 9});
  const Problem& pb = *sp->problem;
  Placement p(pb.num_ops());
  for (int i = 0; i < pb.num_ops(); ++i) p[i] = i % 2;
  Simulator sim(pb);
  Schedule s = sim.run(p);
  ASSERT_GT(s.transfers.size(), 3u);
  GanttOptions o;
  o.max_transfers = 3;
  o.title = "a < b & c";
  const std::string svg = gantt_svg(pb, s, o);
  EXPECT_EQ(count(svg, "<polygon"), 3);
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
  o.draw_transfers = false;
  EXPECT_EQ(count(gantt_svg(pb, s, o), "<polygon"), 0);
}

TEST(Svg, TextIsEscapedForXml) { EXPECT_EQ(xml_escape("a<'&>b"), "a&lt;&apos;&amp;&gt;b"); }

}  // namespace
}  // namespace devplace
