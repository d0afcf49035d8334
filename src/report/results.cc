#include "report/results.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>

namespace devplace {

namespace {

std::string cell_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '|')
      o += "\\|";
    else if (c == '\n' || c == '\r')
      o += ' ';
    else
      o += c;
  }
  return o;
}

// Runs a shell command and returns its first output line ("" on failure).
std::string first_line_of(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::array<char, 512> buf{};
  std::string out;
  if (std::fgets(buf.data(), buf.size(), pipe.get())) out = buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

std::string MarkdownTable::render() const {
  std::string out = "|";
  for (const auto& h : header) out += " " + cell_escape(h) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < header.size(); ++c) {
    const char a = c < align.size() ? align[c] : 'l';
    out += a == 'r' ? "---:|" : a == 'c' ? ":---:|" : "---|";
  }
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (std::size_t c = 0; c < header.size(); ++c) out += " " + (c < row.size() ? cell_escape(row[c]) : "") + " |";
    out += "\n";
  }
  return out;
}

std::string fmt_ms(double seconds) {
  if (!std::isfinite(seconds)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds * 1e3);
  return buf;
}

std::string fmt_ratio(double ratio) {
  if (!std::isfinite(ratio) || ratio <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", ratio);
  return buf;
}

std::string fmt_gap(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * fraction);
  return buf;
}

std::string fmt_seconds(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  char buf[32];
  if (seconds < 0.001)
    std::snprintf(buf, sizeof buf, "<0.001");
  else if (seconds < 10)
    std::snprintf(buf, sizeof buf, "%.3f", seconds);
  else
    std::snprintf(buf, sizeof buf, "%.1f", seconds);
  return buf;
}

std::string short_error(const std::string& message, std::size_t max_chars) {
  std::string s = message.substr(0, message.find('\n'));
  if (s.size() > max_chars) s = s.substr(0, max_chars - 3) + "...";
  return s;
}

ResultGrid::ResultGrid(std::vector<std::string> m, std::vector<std::string> c)
    : methods(std::move(m)), models(std::move(c)), cells(methods.size(), std::vector<ResultCell>(models.size())) {}

std::string grid_markdown(const ResultGrid& grid, const std::string& speedup_label) {
  MarkdownTable t;
  t.header = {"method"};
  t.align = "l";
  for (const auto& m : grid.models) {
    t.header.insert(t.header.end(), {m + " (ms)", speedup_label, "gap LB", "time (s)"});
    t.align += "rrrr";
  }
  std::vector<double> best(grid.models.size(), INFINITY);
  for (std::size_t r = 0; r < grid.methods.size(); ++r)
    for (std::size_t c = 0; c < grid.models.size(); ++c) {
      const auto& cell = grid.cells[r][c];
      if (cell.ran && cell.error.empty() && cell.verdict.feasible) best[c] = std::min(best[c], cell.verdict.latency);
    }
  std::string notes;
  for (std::size_t r = 0; r < grid.methods.size(); ++r) {
    std::vector<std::string> row = {grid.methods[r]};
    for (std::size_t c = 0; c < grid.models.size(); ++c) {
      const auto& cell = grid.cells[r][c];
      if (!cell.ran) {
        row.insert(row.end(), {"-", "-", "-", "-"});
      } else if (!cell.error.empty()) {
        row.insert(row.end(), {"n/a", "-", "-", "-"});
        notes += "- " + grid.methods[r] + " on " + grid.models[c] + ": " + short_error(cell.error) + "\n";
      } else if (!cell.verdict.feasible) {
        row.insert(row.end(), {"infeasible", "-", "-", fmt_seconds(cell.seconds)});
        notes += "- " + grid.methods[r] + " on " + grid.models[c] + ": infeasible: " + short_error(cell.verdict.reason) + "\n";
      } else {
        std::string lat = fmt_ms(cell.verdict.latency);
        if (cell.verdict.latency <= best[c]) lat = "**" + lat + "**";
        row.insert(row.end(), {lat, fmt_ratio(cell.speedup), fmt_gap(cell.gap), fmt_seconds(cell.seconds)});
      }
    }
    t.rows.push_back(std::move(row));
  }
  std::string out = t.render();
  if (!notes.empty()) out += "\n" + notes;
  return out;
}

MachineInfo machine_info(const std::string& repo_dir) {
  MachineInfo m;
  m.cores = static_cast<int>(std::thread::hardware_concurrency());
  m.cpu_model = "unknown";
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        m.cpu_model = line.substr(colon + 1);
        m.cpu_model.erase(0, m.cpu_model.find_first_not_of(" \t"));
      }
      break;
    }
  }
  const std::string git = "git -C '" + repo_dir + "' ";
  m.commit = first_line_of(git + "rev-parse HEAD 2>/dev/null");
  if (m.commit.empty())
    m.commit = "unknown";
  else
    m.dirty = !first_line_of(git + "status --porcelain 2>/dev/null").empty();
  return m;
}

}  // namespace devplace
