// The ONNX backend test suite against the executor (docs/design/execution.md, "Supported ops and ONNX conformance"): every
// test directory (model.onnx + test_data_set_N/{input,output}_K.pb, the layout of onnx/backend/
// test/data and Debian's libonnx-testdata) whose op types the executor supports is imported, run
// on one cpu worker with the test's inputs, and its outputs compared with the expected ones
// (ONNX's own tolerance: |got - want| <= atol + rtol * |want|, rtol 1e-3, atol 1e-7; NaN equals
// NaN; integers and booleans exactly). A test with any other op type is listed as unsupported,
// not run. LibTorch-free header.
#pragma once

#include <string>
#include <vector>

namespace devplace {

struct ConformanceCase {
  std::string name;                   // "node/test_abs"
  std::vector<std::string> op_types;  // distinct op types of the model's graph, sorted
  enum class Status { passed, failed, unsupported } status = Status::unsupported;
  std::string detail;  // failed: what differed or the error; unsupported: the op types missing
};

struct ConformanceOptions {
  double rtol = 1e-3, atol = 1e-7;
  std::string filter;  // only tests whose name contains this
};

// Every test under root's suites (node, pytorch-converted, pytorch-operator, simple, real; or
// root itself when it holds test directories), in name order. Throws Error when root holds none.
std::vector<ConformanceCase> run_conformance(const std::string& root, const ConformanceOptions& options = {});

// One test directory (model.onnx and its data sets).
ConformanceCase run_conformance_case(const std::string& dir, const std::string& name,
                                     const ConformanceOptions& options = {});

}  // namespace devplace
