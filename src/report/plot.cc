#include "report/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace devplace {

namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string num(double v) {
  char buf[32];
  if (v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-2))
    std::snprintf(buf, sizeof buf, "%.2g", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Draws one panel at vertical offset `top` of height `h` into `out`.
void panel(std::string& out, const std::vector<Series>& series, const ChartOptions& o, int top, int h) {
  const int left = 70, right = 20, tpad = 30, bpad = 45;
  const int W = o.width - left - right, H = h - tpad - bpad;
  auto tx = [&](double v) { return o.log_x ? std::log10(std::max(v, 1e-300)) : v; };
  auto ty = [&](double v) { return o.log_y ? std::log10(std::max(v, 1e-300)) : v; };
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, tx(s.x[i])), x1 = std::max(x1, tx(s.x[i]));
      y0 = std::min(y0, ty(s.y[i])), y1 = std::max(y1, ty(s.y[i]));
    }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1;
  const double pad = 0.05 * (y1 - y0);
  y0 -= pad, y1 += pad;
  auto px = [&](double v) { return left + (tx(v) - x0) / (x1 - x0) * W; };
  auto py = [&](double v) { return top + tpad + H - (ty(v) - y0) / (y1 - y0) * H; };
  char buf[512];
  std::snprintf(buf, sizeof buf, "<text x='%d' y='%d' font-size='14' font-weight='bold'>%s</text>\n", left, top + 18,
                xml_escape(o.title).c_str());
  out += buf;
  std::snprintf(buf, sizeof buf, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n", left,
                top + tpad, W, H);
  out += buf;
  for (int k = 0; k <= 4; ++k) {
    double fy = y0 + (y1 - y0) * k / 4, fx = x0 + (x1 - x0) * k / 4;
    double vy = o.log_y ? std::pow(10, fy) : fy, vx = o.log_x ? std::pow(10, fx) : fx;
    double yy = top + tpad + H - H * k / 4.0, xx = left + W * k / 4.0;
    std::snprintf(buf, sizeof buf,
                  "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#eee'/><text x='%d' y='%.1f' font-size='11' "
                  "text-anchor='end'>%s</text>\n<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%s</text>\n",
                  left, yy, left + W, yy, left - 5, yy + 4, num(vy).c_str(), xx, top + tpad + H + 15, num(vx).c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>%s</text>\n", left + W / 2,
                top + h - 10, xml_escape(o.x_label).c_str());
  out += buf;
  std::snprintf(buf, sizeof buf,
                "<text x='15' y='%d' font-size='12' text-anchor='middle' transform='rotate(-90 15 %d)'>%s</text>\n",
                top + tpad + H / 2, top + tpad + H / 2, xml_escape(o.y_label).c_str());
  out += buf;
  for (std::size_t s = 0; s < series.size(); ++s) {
    const auto& se = series[s];
    const char* colour = kColours[s % 8];
    std::string pts;
    for (std::size_t i = 0; i < se.x.size() && i < se.y.size(); ++i) {
      if (!std::isfinite(se.y[i])) continue;
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", px(se.x[i]), py(se.y[i]));
      pts += buf;
    }
    out += "<polyline fill='none' stroke-width='1.8' stroke='" + std::string(colour) + "' points='" + pts + "'/>\n";
    if (se.x.size() <= 30)
      for (std::size_t i = 0; i < se.x.size() && i < se.y.size(); ++i)
        if (std::isfinite(se.y[i])) {
          std::snprintf(buf, sizeof buf, "<circle cx='%.1f' cy='%.1f' r='2.5' fill='%s'/>\n", px(se.x[i]), py(se.y[i]),
                        colour);
          out += buf;
        }
    std::snprintf(buf, sizeof buf,
                  "<rect x='%d' y='%d' width='12' height='3' fill='%s'/><text x='%d' y='%d' font-size='11'>%s</text>\n",
                  left + W - 170, top + tpad + 10 + 15 * static_cast<int>(s), colour, left + W - 154,
                  top + tpad + 15 + 15 * static_cast<int>(s), xml_escape(se.name).c_str());
    out += buf;
  }
}

std::string open_svg(int w, int h) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' "
                "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
                w, h, w, h);
  return buf;
}

}  // namespace

std::string line_chart_svg(const std::vector<Series>& series, const ChartOptions& o) {
  std::string out = open_svg(o.width, o.height);
  panel(out, series, o, 0, o.height);
  return out + "</svg>\n";
}

std::string two_panel_svg(const std::string& title, const std::string& x_label, const Series& top,
                          const Series& bottom) {
  ChartOptions a{title, x_label, top.name}, b{"", x_label, bottom.name};
  std::string out = open_svg(a.width, 2 * a.height);
  panel(out, {top}, a, 0, a.height);
  panel(out, {bottom}, b, a.height, a.height);
  return out + "</svg>\n";
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '\'')
      o += "&apos;";
    else
      o += c;
  }
  return o;
}

}  // namespace devplace
