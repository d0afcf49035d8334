// Small SVG charts written by the project itself (no Python needed): line charts of training
// curves and scaling measurements. Output is a complete standalone SVG document.
#pragma once

#include <string>
#include <vector>

namespace devplace {

struct Series {
  std::string name;
  std::vector<double> x, y;
};

struct ChartOptions {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  int width = 640, height = 360;
};

// One panel with several series (distinct colours, legend).
std::string line_chart_svg(const std::vector<Series>& series, const ChartOptions& options);
// Two stacked panels sharing the x axis (e.g. reward above, best latency below).
std::string two_panel_svg(const std::string& title, const std::string& x_label, const Series& top,
                          const Series& bottom);

// `s` escaped for SVG/XML text and attribute values (< > & ').
std::string xml_escape(const std::string& s);

}  // namespace devplace
