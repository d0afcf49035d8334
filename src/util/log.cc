#include "util/log.h"

#include <unistd.h>

#include <cstdio>
#include <map>

namespace devplace::log {
namespace {
bool g_quiet = false;
std::map<std::string, std::size_t>& counts() {
  static std::map<std::string, std::size_t> c;
  return c;
}
}  // namespace

void set_quiet(bool q) { g_quiet = q; }
bool quiet() { return g_quiet; }

void warn(const std::string& key, const std::string& message) {
  auto& c = counts();
  if (c[key]++ == 0 && !g_quiet) std::fprintf(stderr, "warning: %s\n", message.c_str());
}

void flush_warnings() {
  for (auto& [key, n] : counts())
    if (n > 1 && !g_quiet) std::fprintf(stderr, "warning: (%zu more like '%s')\n", n - 1, key.c_str());
  counts().clear();
}

bool progress_enabled() { return !g_quiet && isatty(fileno(stderr)); }

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), active_(progress_enabled()) {}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t done, const std::string& status) {
  if (!active_) return;
  const int width = 24;
  int filled = total_ ? static_cast<int>(width * done / total_) : width;
  std::string bar(filled, '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %s", label_.c_str(), bar.c_str(), done, total_, status.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (active_ && !finished_) std::fprintf(stderr, "\n");
  finished_ = true;
}

}  // namespace devplace::log
