// Reading a JSON file with the project's error contract: a missing or unparsable file is an
// Error naming the file and what is wrong, never an exception of the JSON library.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace devplace {

// Throws Error(path, "", "cannot open ..." | "invalid JSON: ...").
nlohmann::json read_json_file(const std::string& path);

}  // namespace devplace
