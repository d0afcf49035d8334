// Warnings and progress for long operations, delivered to a sink the caller can replace.
// The default sink prints each warning to stderr once per distinct key (with a count at the
// end, so a graph with 300 unknown dims prints one line, not 300) and draws progress as one
// updating line on a terminal (silent otherwise or when quiet). Every function here is
// thread-safe: executor workers may warn while the driving thread draws progress.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace devplace::log {

// Where warnings and progress go. Empty members drop that kind of message.
struct Sink {
  // `key` groups repeats of one kind of warning; `message` is the text for a person.
  std::function<void(const std::string& key, const std::string& message)> warning;
  // `label` names the operation, `done` of `total` steps, `status` a short free text;
  // done == total with status "done" ends it.
  std::function<void(const std::string& label, std::size_t done, std::size_t total, const std::string& status)>
      progress;
  // Status lines of long reports ("wrote docs/results/benchmark.md"); the default prints them to stderr
  // unless quiet.
  std::function<void(const std::string& message)> info;
};

// Replaces the sink for the whole process and returns the previous one (an empty Sink restores
// the default). Library callers that want their own logging set it once, or use ScopedSink.
Sink set_sink(Sink sink);

// A sink for the lifetime of this object; the previous one comes back on destruction.
class ScopedSink {
 public:
  explicit ScopedSink(Sink sink) : previous_(set_sink(std::move(sink))) {}
  ~ScopedSink() { set_sink(std::move(previous_)); }
  ScopedSink(const ScopedSink&) = delete;
  ScopedSink& operator=(const ScopedSink&) = delete;

 private:
  Sink previous_;
};

// Quiet mode silences the default sink's warning summaries and progress (errors still surface
// as exceptions). A replaced sink decides for itself.
void set_quiet(bool quiet);
bool quiet();

// A status line (no newline needed).
void info(const std::string& message);
// printf-style convenience for info().
void infof(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Emits `message` the first time `key` is seen (default sink); later calls are counted.
void warn(const std::string& key, const std::string& message);
// Prints "(N more like this)" lines for repeated keys and resets the counters (default sink).
void flush_warnings();

// True when the default sink would draw: stderr is a terminal and we are not quiet; true
// whenever a replaced sink takes progress.
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
