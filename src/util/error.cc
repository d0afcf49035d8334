#include "util/error.h"

namespace devplace {

std::string format_error(const std::string& file, const std::string& node, const std::string& reason) {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!node.empty()) out += "node '" + node + "': ";
  return out + reason;
}

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_argument: return "invalid argument";
    case ErrorKind::not_found: return "not found";
    case ErrorKind::corrupt: return "corrupt";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::io: return "I/O";
  }
  return "invalid argument";
}

Error::Error(std::string file, std::string node, std::string reason, ErrorKind kind)
    : std::runtime_error(format_error(file, node, reason)),
      file_(std::move(file)),
      node_(std::move(node)),
      reason_(std::move(reason)),
      kind_(kind) {}

}  // namespace devplace
