// ONNX import (protobuf, shape inference, folding, costs) on arbitrary bytes.
#include "fuzz_input.h"
#include "io/model.h"
#include "io/onnx_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return devplace::fuzz::expect_only_errors([&] {
    devplace::Graph g = devplace::import_onnx_bytes(devplace::fuzz::as_text(data, size), "fuzz.onnx");
    devplace::check_limits(g, devplace::ModelLimits{});
  });
}
