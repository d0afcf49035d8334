#include "report/gantt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "graph/op_costs.h"
#include "report/plot.h"

namespace devplace {

namespace {

// One colour per op class (graph/op_costs.h order).
const char* class_colour(OpClass c) {
  switch (c) {
    case OpClass::conv:
      return "#1f77b4";
    case OpClass::matmul:
      return "#d62728";
    case OpClass::pool:
      return "#2ca02c";
    case OpClass::elementwise:
      return "#ff7f0e";
    case OpClass::normalization:
      return "#9467bd";
    case OpClass::softmax:
      return "#8c564b";
    case OpClass::reduce:
      return "#e377c2";
    case OpClass::data_movement:
      return "#17becf";
    case OpClass::free:
      return "#bbbbbb";
    case OpClass::other:
      return "#7f7f7f";
  }
  return "#7f7f7f";
}

}  // namespace

std::string gantt_svg(const Problem& problem, const Schedule& s, const GanttOptions& o) {
  const Graph& g = problem.graph();
  const int D = problem.num_devices();
  const int left = 90, right = 20, top = 40, bottom = 70;
  const int W = std::max(100, o.width - left - right);
  const int lanes_h = D * o.lane_height;
  const int height = top + lanes_h + bottom;
  double end = 0;
  for (const auto& op : s.ops)
    if (std::isfinite(op.end)) end = std::max(end, op.end);
  for (const auto& t : s.transfers)
    if (std::isfinite(t.end)) end = std::max(end, t.end);
  if (end <= 0) end = 1e-6;
  auto px = [&](double t) { return left + t / end * W; };
  auto lane_top = [&](int d) { return top + d * o.lane_height; };
  const double box_h = o.lane_height * 0.55;

  std::string out;
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' "
                "font-size='11'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
                o.width, height);
  out += buf;
  std::string title = o.title;
  if (title.empty()) {
    std::snprintf(buf, sizeof buf, "%s on %s: %.3f ms", g.name().c_str(), problem.cluster().name.c_str(),
                  s.makespan * 1e3);
    title = buf;
  }
  if (!s.feasible) title += " (infeasible: " + s.infeasible_reason + ")";
  std::snprintf(buf, sizeof buf, "<text x='%d' y='20' font-size='14' font-weight='bold'>%s</text>\n", left,
                xml_escape(title).c_str());
  out += buf;

  // Lanes and their labels, with each device's busy share.
  for (int d = 0; d < D; ++d) {
    const double busy = d < static_cast<int>(s.busy.size()) ? s.busy[d] : 0;
    std::snprintf(buf, sizeof buf,
                  "<rect x='%d' y='%d' width='%d' height='%d' fill='%s' stroke='#ddd'/>\n"
                  "<text x='%d' y='%.1f' text-anchor='end' font-weight='bold'>%s</text>\n"
                  "<text x='%d' y='%.1f' text-anchor='end' fill='#666'>busy %.0f%%</text>\n",
                  left, lane_top(d), W, o.lane_height, d % 2 ? "#fafafa" : "#f2f2f2", left - 6,
                  lane_top(d) + o.lane_height * 0.45, xml_escape(problem.cluster().devices[d].name).c_str(), left - 6,
                  lane_top(d) + o.lane_height * 0.8, 100 * busy / end);
    out += buf;
  }

  // Transfers first, so op boxes stay on top: a translucent band between the source and the
  // destination lane over the transfer's time, with a diagonal from the source at the start
  // to the destination at the end (the direction).
  if (o.draw_transfers && !s.transfers.empty()) {
    std::vector<int> idx(s.transfers.size());
    std::iota(idx.begin(), idx.end(), 0);
    if (static_cast<int>(idx.size()) > o.max_transfers) {
      std::nth_element(idx.begin(), idx.begin() + o.max_transfers, idx.end(), [&](int a, int b) {
        return s.transfers[a].end - s.transfers[a].start > s.transfers[b].end - s.transfers[b].start;
      });
      idx.resize(o.max_transfers);
    }
    out += "<g stroke='#444' stroke-opacity='0.5' fill='#444' fill-opacity='0.15'>\n";
    for (int k : idx) {
      const auto& t = s.transfers[k];
      if (t.src < 0 || t.dst < 0 || t.src >= D || t.dst >= D || !std::isfinite(t.end)) continue;
      const double pad = (o.lane_height - box_h) / 2;
      const double ys = t.src < t.dst ? lane_top(t.src) + pad + box_h : lane_top(t.src) + pad;
      const double yd = t.src < t.dst ? lane_top(t.dst) + pad : lane_top(t.dst) + pad + box_h;
      const double x0 = px(t.start), x1 = std::max(px(t.end), x0 + 0.5);
      const std::string tname = t.tensor >= 0 && t.tensor < g.num_tensors() ? g.tensor(t.tensor).name : "?";
      std::snprintf(buf, sizeof buf,
                    "<polygon points='%.2f,%.2f %.2f,%.2f %.2f,%.2f %.2f,%.2f'><title>%s: %s -&gt; %s, %.1f us</title>"
                    "</polygon><line x1='%.2f' y1='%.2f' x2='%.2f' y2='%.2f'/>\n",
                    x0, ys, x1, ys, x1, yd, x0, yd, xml_escape(tname).c_str(),
                    xml_escape(problem.cluster().devices[t.src].name).c_str(),
                    xml_escape(problem.cluster().devices[t.dst].name).c_str(), (t.end - t.start) * 1e6, x0, ys, x1, yd);
      out += buf;
    }
    out += "</g>\n";
  }

  // Ops.
  std::vector<char> seen(10, 0);
  for (int i = 0; i < static_cast<int>(s.ops.size()) && i < g.num_ops(); ++i) {
    const auto& span = s.ops[i];
    if (span.device < 0 || span.device >= D || !std::isfinite(span.end)) continue;
    const OpClass c = classify(g.op(i).type);
    seen[static_cast<int>(c)] = 1;
    const double x0 = px(span.start), w = std::max(px(span.end) - x0, 0.6);
    std::snprintf(buf, sizeof buf,
                  "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='%s' stroke='none'><title>%s (%s): "
                  "%.1f us</title></rect>\n",
                  x0, lane_top(span.device) + (o.lane_height - box_h) / 2, w, box_h, class_colour(c),
                  xml_escape(g.op(i).name).c_str(), xml_escape(g.op(i).type).c_str(), (span.end - span.start) * 1e6);
    out += buf;
  }

  // Time axis and legend.
  const int axis_y = top + lanes_h;
  std::snprintf(buf, sizeof buf, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#888'/>\n", left, axis_y, left + W,
                axis_y);
  out += buf;
  for (int k = 0; k <= 5; ++k) {
    const double t = end * k / 5;
    std::snprintf(buf, sizeof buf,
                  "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#888'/><text x='%.1f' y='%d' "
                  "text-anchor='middle'>%.3g ms</text>\n",
                  px(t), axis_y, px(t), axis_y + 4, px(t), axis_y + 16, t * 1e3);
    out += buf;
  }
  int lx = left;
  const int ly = axis_y + 38;
  for (int c = 0; c < 10; ++c) {
    if (!seen[c]) continue;
    const auto cls = static_cast<OpClass>(c);
    std::snprintf(buf, sizeof buf,
                  "<rect x='%d' y='%d' width='10' height='10' fill='%s'/><text x='%d' y='%d'>%s</text>\n", lx, ly - 9,
                  class_colour(cls), lx + 14, ly, op_class_name(cls));
    out += buf;
    lx += 24 + 7 * static_cast<int>(std::string(op_class_name(cls)).size());
  }
  if (o.draw_transfers && !s.transfers.empty()) {
    std::snprintf(buf, sizeof buf,
                  "<rect x='%d' y='%d' width='10' height='10' fill='#444' fill-opacity='0.3'/><text x='%d' "
                  "y='%d'>transfer (%zu)</text>\n",
                  lx, ly - 9, lx + 14, ly, s.transfers.size());
    out += buf;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace devplace
