// File helpers: where bundled data lives, whole-file reads, and atomic writes (temp file +
// rename) so an interrupted run never leaves a half-written output.
#pragma once

#include <string>

namespace devplace {

// The devplace home: $DEVPLACE_HOME, else the source tree the binary was built from.
std::string home_dir();
// ../shared beside the home (the workplace's shared data); may not exist.
std::string shared_dir();
bool file_exists(const std::string& path);
// Reads a whole file; throws Error(path, "", reason) if it cannot.
std::string read_file(const std::string& path);
// Writes `content` to `path` atomically; throws Error on failure.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace devplace
