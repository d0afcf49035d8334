// devplace::Error: the one exception type devplace throws, at its public API and inside, for bad
// input or impossible requests.
// It carries where the problem is (file, node) and what it is, so the command line can print
// one line that a user can act on. Library code throws it; only the CLI catches and prints.
#pragma once

#include <stdexcept>
#include <string>

namespace devplace {

// What went wrong, for callers that react differently (Python raises one class per kind).
enum class ErrorKind {
  invalid_argument,  // a value, option or combination the call does not accept
  not_found,         // a file, bundled model, preset, placer, op or device that does not exist
  corrupt,           // a file that exists but does not parse as what it should be
  unsupported,       // valid input devplace cannot handle (an op without a kernel, a mode not offered)
  io,                // reading or writing failed (permissions, full disk)
};

// "invalid argument", "not found", "corrupt", "unsupported", "I/O".
const char* error_kind_name(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  // `file` and `node` may be empty when they do not apply.
  Error(std::string file, std::string node, std::string reason, ErrorKind kind = ErrorKind::invalid_argument);

  const std::string& file() const { return file_; }
  const std::string& node() const { return node_; }
  const std::string& reason() const { return reason_; }
  ErrorKind kind() const { return kind_; }

 private:
  std::string file_, node_, reason_;
  ErrorKind kind_;
};

// Formats "file: node 'x': reason", leaving out the parts that are empty.
std::string format_error(const std::string& file, const std::string& node, const std::string& reason);

}  // namespace devplace
