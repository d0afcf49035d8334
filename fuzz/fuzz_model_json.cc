// The JSON model formats: devplace's native graph JSON and the cost graphs of Tarnawski et al.,
// through load_model as a user's file would go.
#include "fuzz_input.h"
#include "io/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = devplace::fuzz::temp_file(devplace::fuzz::as_text(data, size), ".json");
  return devplace::fuzz::expect_only_errors([&] { devplace::load_model(path); });
}
