#include "util/error.h"

namespace devplace {

std::string format_error(const std::string& file, const std::string& node, const std::string& reason) {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!node.empty()) out += "node '" + node + "': ";
  return out + reason;
}

Error::Error(std::string file, std::string node, std::string reason)
    : std::runtime_error(format_error(file, node, reason)),
      file_(std::move(file)),
      node_(std::move(node)),
      reason_(std::move(reason)) {}

}  // namespace devplace
