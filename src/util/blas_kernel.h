// Which kernel the process's BLAS runs, and the fix for a known trap: Debian's OpenBLAS 0.3.21
// does not recognise some newer CPUs and falls back to an old generic kernel (Prescott: SSE3),
// which makes matrix products 2-4x slower on a CPU with AVX2 or AVX-512 (issue 18: BERT-base
// 790 ms instead of 242). OpenBLAS reads OPENBLAS_CORETYPE once, when it is loaded, so the fix
// is a restart of the process with it set (the CLI does that in main; a library caller sets it
// before loading devplace). Torch-free; the BLAS is found by symbol at run time.
#pragma once

#include <string>

namespace devplace {

struct BlasKernel {
  std::string library;  // "OpenBLAS", or empty when none with a known query is loaded
  std::string core;     // the kernel it chose, e.g. "Haswell", "SkylakeX", "Prescott"
  std::string config;   // its build configuration line
  std::string forced;   // OPENBLAS_CORETYPE when the environment sets it (OpenBLAS then skips detection)
};

// What the loaded BLAS reports (empty fields when there is no OpenBLAS).
BlasKernel loaded_blas_kernel();

// "OpenBLAS kernel Haswell (...)", with ", forced by OPENBLAS_CORETYPE=..." when the environment
// chose it, or "no OpenBLAS loaded", for run and profile.
std::string describe_blas(const BlasKernel& kernel);

struct CpuVector {
  bool avx2_fma = false;  // AVX2 and FMA3
  bool avx512 = false;    // AVX-512 F, BW, DQ and VL (SkylakeX's kernels)
};
// This CPU's vector units (cpuid).
CpuVector this_cpu();

// The OPENBLAS_CORETYPE to restart with, or "" to leave things as they are: only when the
// kernel OpenBLAS chose is an old generic one (Prescott, Core2, Nehalem, Katmai ... or Generic)
// while the CPU has AVX2+FMA (-> "Haswell") or AVX-512 (-> "SkylakeX"), and only when the user
// has not set OPENBLAS_CORETYPE (`user_setting` null or empty).
std::string better_openblas_core(const std::string& chosen, const CpuVector& cpu, const char* user_setting);

// A line for the user when OPENBLAS_CORETYPE forced a kernel older than the CPU (an AVX2 or
// generic kernel on a CPU with AVX-512, a generic one on a CPU with AVX2), "" otherwise: devplace
// keeps the user's setting, but says what it costs. The executor's products, convolutions and
// pooling run on oneDNN (exec/cpu_kernels.h), whatever this kernel; training's products do not.
std::string forced_kernel_hint(const BlasKernel& kernel, const CpuVector& cpu);

}  // namespace devplace
