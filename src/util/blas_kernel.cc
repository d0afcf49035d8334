#include "util/blas_kernel.h"

#include <cstdlib>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>

namespace devplace {

BlasKernel loaded_blas_kernel() {
  BlasKernel k;
  using Query = char* (*)();
  auto core = reinterpret_cast<Query>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  auto config = reinterpret_cast<Query>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  if (!core) return k;
  k.library = "OpenBLAS";
  if (const char* forced = std::getenv("OPENBLAS_CORETYPE"); forced && *forced) k.forced = forced;
  if (const char* c = core()) k.core = c;
  if (config)
    if (const char* c = config()) k.config = c;
  return k;
}

std::string describe_blas(const BlasKernel& k) {
  if (k.library.empty()) return "no OpenBLAS loaded";
  return k.library + " kernel " + k.core + (k.forced.empty() ? "" : ", forced by OPENBLAS_CORETYPE=" + k.forced) +
         (k.config.empty() ? "" : " (" + k.config + ")");
}

CpuVector this_cpu() {
  CpuVector v;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  v.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  v.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
  return v;
}

std::string better_openblas_core(const std::string& chosen, const CpuVector& cpu, const char* user_setting) {
  if (user_setting && *user_setting) return "";
  std::string c = chosen;
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char x) { return std::tolower(x); });
  // OpenBLAS's pre-AVX x86 kernels: what it falls back to for a CPU it does not know.
  static const char* generic[] = {"generic",    "prescott",  "core2",  "penryn", "dunnington", "nehalem",  "katmai",
                                  "coppermine", "northwood", "banias", "atom",   "opteron",    "barcelona"};
  if (std::none_of(std::begin(generic), std::end(generic), [&](const char* g) { return c == g; })) return "";
  if (cpu.avx512) return "SkylakeX";
  if (cpu.avx2_fma) return "Haswell";
  return "";
}

std::string forced_kernel_hint(const BlasKernel& k, const CpuVector& cpu) {
  if (k.forced.empty()) return "";
  std::string c = k.core;
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char x) { return std::tolower(x); });
  const bool avx2_kernel = c == "haswell" || c == "zen";
  const bool generic = !better_openblas_core(k.core, cpu, nullptr).empty();
  if (!(cpu.avx512 && avx2_kernel) && !generic) return "";
  return "OPENBLAS_CORETYPE=" + k.forced + " forces an older kernel than this CPU supports (" +
         (cpu.avx512 ? "AVX-512" : "AVX2") +
         "); what still runs on OpenBLAS (training's matrix products, the few the executor leaves to ATen) "
         "may run 1.5x slower or more: unset it to let OpenBLAS choose";
}

}  // namespace devplace
