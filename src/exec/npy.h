// NumPy .npy files for tensors (format 1.0-3.0, little-endian, C order): what `run` reads as
// inputs and writes as outputs, so a placed run can be checked against any reference. LibTorch
// (internal to exec/).
#pragma once

#include <ATen/ATen.h>

#include <string>

namespace devplace::exec {

// Reads a .npy file. Throws Error naming the file for a bad magic or header, Fortran order, a
// big-endian or unsupported dtype, or a size that does not match the shape.
at::Tensor read_npy(const std::string& path);
// Writes `value` (any device; made contiguous on the CPU) as a .npy file, atomically.
void write_npy(const std::string& path, const at::Tensor& value);

}  // namespace devplace::exec
