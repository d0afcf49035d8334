// Shared by the libFuzzer targets: the contract every parser is held to. Bad bytes may only
// raise devplace::Error (naming the file); anything else (another exception, a sanitizer
// report, a crash, an out-of-memory) is a finding. Path-based parsers read a per-process
// temporary file.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "devplace/error.h"

namespace devplace::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Writes `text` to /tmp/devplace-fuzz-<pid><suffix> and returns the path.
inline std::string temp_file(const std::string& text, const std::string& suffix) {
  const std::string path = "/tmp/devplace-fuzz-" + std::to_string(getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

// Runs `parse`, accepting devplace::Error as the one way to refuse input.
template <typename F>
int expect_only_errors(F&& parse) {
  try {
    parse();
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace devplace::fuzz
