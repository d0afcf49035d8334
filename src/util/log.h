// Warnings and progress for long operations. Warnings go to stderr once per distinct message
// key (with a count at the end) so that a graph with 300 unknown dims prints one line, not 300.
// Progress draws a single updating line on a terminal and stays silent otherwise or when quiet.
// Not thread-safe: call from the thread that drives the command.
#pragma once

#include <cstddef>
#include <string>

namespace devplace::log {

// Quiet mode silences warnings summaries and progress (errors still surface as exceptions).
void set_quiet(bool quiet);
bool quiet();

// Emits `message` the first time `key` is seen; later calls with the same key are counted.
void warn(const std::string& key, const std::string& message);
// Prints "(N more like this)" lines for repeated keys and resets the counters.
void flush_warnings();

// True when stderr is a terminal and we are not quiet.
bool progress_enabled();

class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  // Updates the bar; `status` is a short free text shown after the counter.
  void update(std::size_t done, const std::string& status = "");
  void finish();

 private:
  std::string label_;
  std::size_t total_;
  bool active_;
  bool finished_ = false;
};

}  // namespace devplace::log
