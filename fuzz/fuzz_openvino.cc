// OpenVINO IR import (XML, shape propagation, costs) on arbitrary text.
#include "fuzz_input.h"
#include "io/model.h"
#include "io/openvino_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return devplace::fuzz::expect_only_errors([&] {
    devplace::Graph g = devplace::import_openvino_text(devplace::fuzz::as_text(data, size), "fuzz.xml");
    devplace::check_limits(g, devplace::ModelLimits{});
  });
}
