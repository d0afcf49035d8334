// Markdown writers for benchmark reports (docs/results/benchmark.md): a small table type, number
// formatting shared by every table, the methods x models grid of the paper's main table, and
// the machine description printed at the top of a report. Pure functions except
// machine_info(), which reads /proc/cpuinfo and runs `git rev-parse`.
#pragma once

#include <string>
#include <vector>

#include "devplace/types.h"

namespace devplace {

// A GitHub-flavoured markdown table. `align` per column: 'l', 'r' or 'c' (missing = 'l').
// Cells are escaped ('|' and newlines); rows shorter than the header are padded with "".
struct MarkdownTable {
  std::vector<std::string> header;
  std::string align;
  std::vector<std::vector<std::string>> rows;
  std::string render() const;
};

// Number formats: latency in ms with 3 decimals ("inf" when not finite), a ratio as "2.45x",
// a relative gap as "+14.9%", a wall time in seconds with 2-3 significant digits.
std::string fmt_ms(double seconds);
std::string fmt_ratio(double ratio);
std::string fmt_gap(double fraction);
std::string fmt_seconds(double seconds);

// One method on one model, as the main table shows it.
struct ResultCell {
  bool ran = false;      // false: not run (shown as "-")
  std::string error;     // the placer refused or is unknown (shown as "n/a", listed below)
  Verdict verdict;       // latency in seconds; infeasible ones are shown as "infeasible", the reason below
  double speedup = 0;    // reference latency / latency
  double gap = 0;        // latency / lower bound - 1
  double seconds = 0;    // placement or training wall time
};

// Rows = methods, columns = models; cells[method][model].
struct ResultGrid {
  std::vector<std::string> methods, models;
  std::vector<std::vector<ResultCell>> cells;
  ResultGrid(std::vector<std::string> methods, std::vector<std::string> models);
  ResultCell& at(int method, int model) { return cells[method][model]; }
  const ResultCell& at(int method, int model) const { return cells[method][model]; }
};

// The main table: per model four columns (latency ms, speed-up, gap to the lower bound, time
// s); the best feasible latency of each model in bold. Errors follow as a list of notes.
std::string grid_markdown(const ResultGrid& grid, const std::string& speedup_label = "speed-up");

// Shortens an error message to its first line and at most `max_chars` characters.
std::string short_error(const std::string& message, std::size_t max_chars = 160);

struct MachineInfo {
  int cores = 0;
  std::string cpu_model;  // from /proc/cpuinfo, "unknown" if unreadable
  std::string commit;     // `git rev-parse HEAD` in `repo_dir`, "unknown" if unavailable
  bool dirty = false;     // the working tree has uncommitted changes
};
MachineInfo machine_info(const std::string& repo_dir);

}  // namespace devplace
