// devplace::Error: the one exception type devplace throws, at its public API and inside, for bad
// input or impossible requests.
// It carries where the problem is (file, node) and what it is, so the command line can print
// one line that a user can act on. Library code throws it; only the CLI catches and prints.
#pragma once

#include <stdexcept>
#include <string>

namespace devplace {

class Error : public std::runtime_error {
 public:
  // `file` and `node` may be empty when they do not apply.
  Error(std::string file, std::string node, std::string reason);

  const std::string& file() const { return file_; }
  const std::string& node() const { return node_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_, node_, reason_;
};

// Formats "file: node 'x': reason", leaving out the parts that are empty.
std::string format_error(const std::string& file, const std::string& node, const std::string& reason);

}  // namespace devplace
