#include "util/json_file.h"

#include "util/error.h"
#include "util/files.h"

namespace devplace {

nlohmann::json read_json_file(const std::string& path) {
  const std::string text = read_file(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "", std::string("invalid JSON: ") + e.what(), ErrorKind::corrupt);
  }
}

}  // namespace devplace
