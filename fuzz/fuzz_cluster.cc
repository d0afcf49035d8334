// Cluster files, TOML and JSON (the first byte picks which).
#include "cost/cluster.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const char* suffix = data[0] % 2 ? ".toml" : ".json";
  const std::string path = devplace::fuzz::temp_file(devplace::fuzz::as_text(data + 1, size - 1), suffix);
  return devplace::fuzz::expect_only_errors([&] { devplace::load_cluster(path); });
}
