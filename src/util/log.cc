#include "util/log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

namespace devplace::log {
namespace {

struct State {
  std::mutex mutex;
  bool quiet = false;
  Sink sink;  // empty members: the default behaviour
  std::map<std::string, std::size_t> counts;
};

State& state() {
  static State s;
  return s;
}

// When the replaced sink takes this kind of message, calls it with the lock released (a sink
// may log itself) and returns true; otherwise returns false with the lock still held.
template <typename Member, typename... Args>
bool to_sink(std::unique_lock<std::mutex>& lock, const Member& member, Args&&... args) {
  if (!member) return false;
  auto call = member;
  lock.unlock();
  call(std::forward<Args>(args)...);
  return true;
}

}  // namespace

Sink set_sink(Sink sink) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::swap(s.sink, sink);
  return sink;
}

void set_quiet(bool q) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.quiet = q;
}

bool quiet() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.quiet;
}

void warn(const std::string& key, const std::string& message) {
  State& s = state();
  std::unique_lock lock(s.mutex);
  if (to_sink(lock, s.sink.warning, key, message)) return;
  if (s.counts[key]++ == 0 && !s.quiet) std::fprintf(stderr, "warning: %s\n", message.c_str());
}

void info(const std::string& message) {
  State& s = state();
  std::unique_lock lock(s.mutex);
  if (to_sink(lock, s.sink.info, message)) return;
  if (!s.quiet) std::fprintf(stderr, "%s\n", message.c_str());
}

void infof(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  std::string line = buf;
  if (!line.empty() && line.back() == '\n') line.pop_back();
  info(line);
}

void flush_warnings() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  for (auto& [key, n] : s.counts)
    if (n > 1 && !s.quiet) std::fprintf(stderr, "warning: (%zu more like '%s')\n", n - 1, key.c_str());
  s.counts.clear();
}

bool progress_enabled() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.sink.progress) return true;
  return !s.quiet && isatty(fileno(stderr));
}

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), active_(progress_enabled()) {}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t done, const std::string& status) {
  if (!active_) return;
  State& s = state();
  std::unique_lock lock(s.mutex);
  if (to_sink(lock, s.sink.progress, label_, done, total_, status)) return;
  const int width = 24;
  int filled = total_ ? static_cast<int>(width * done / total_) : width;
  std::string bar(filled, '#');
  bar.resize(width, '.');
  std::fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %s", label_.c_str(), bar.c_str(), done, total_, status.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (!active_ || finished_) return;
  finished_ = true;
  State& s = state();
  std::unique_lock lock(s.mutex);
  if (to_sink(lock, s.sink.progress, label_, total_, total_, std::string("done"))) return;
  std::fprintf(stderr, "\n");
}

}  // namespace devplace::log
