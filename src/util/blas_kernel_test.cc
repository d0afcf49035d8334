#include "util/blas_kernel.h"

#include <gtest/gtest.h>

namespace devplace {
namespace {

TEST(BlasKernel, AGenericKernelOnAVectorCpuIsReplaced) {
  const CpuVector avx512{true, true}, avx2{true, false}, old{false, false};
  EXPECT_EQ(better_openblas_core("Prescott", avx512, nullptr), "SkylakeX");
  EXPECT_EQ(better_openblas_core("Prescott", avx2, nullptr), "Haswell");
  EXPECT_EQ(better_openblas_core("NEHALEM", avx2, ""), "Haswell");
  EXPECT_EQ(better_openblas_core("Prescott", old, nullptr), "");  // nothing better to offer
}

TEST(BlasKernel, AGoodKernelOrTheUsersChoiceIsLeftAlone) {
  const CpuVector avx512{true, true};
  EXPECT_EQ(better_openblas_core("Haswell", avx512, nullptr), "");  // a real kernel, if not the best
  EXPECT_EQ(better_openblas_core("SkylakeX", avx512, nullptr), "");
  EXPECT_EQ(better_openblas_core("Zen", avx512, nullptr), "");
  EXPECT_EQ(better_openblas_core("Prescott", avx512, "Prescott"), "");  // OPENBLAS_CORETYPE set
}

TEST(BlasKernel, AForcedOlderKernelGetsAHint) {
  const CpuVector avx512{true, true}, avx2{true, false};
  const BlasKernel forced_haswell{"OpenBLAS", "Haswell", "", "Haswell"};
  EXPECT_NE(forced_kernel_hint(forced_haswell, avx512).find("unset it"), std::string::npos);
  EXPECT_EQ(forced_kernel_hint(forced_haswell, avx2), "");  // the right kernel for that CPU
  EXPECT_EQ(forced_kernel_hint(BlasKernel{"OpenBLAS", "Haswell", "", ""}, avx512), "");  // not forced
  EXPECT_NE(forced_kernel_hint(BlasKernel{"OpenBLAS", "Prescott", "", "Prescott"}, avx2), "");
  EXPECT_EQ(forced_kernel_hint(BlasKernel{"OpenBLAS", "SkylakeX", "", "SkylakeX"}, avx512), "");
}

TEST(BlasKernel, DescribesWhatIsLoaded) {
  EXPECT_EQ(describe_blas(BlasKernel{}), "no OpenBLAS loaded");
  EXPECT_EQ(describe_blas(BlasKernel{"OpenBLAS", "Haswell", "", ""}), "OpenBLAS kernel Haswell");
  EXPECT_EQ(describe_blas(BlasKernel{"OpenBLAS", "Haswell", "", "Haswell"}),
            "OpenBLAS kernel Haswell, forced by OPENBLAS_CORETYPE=Haswell");
}

}  // namespace
}  // namespace devplace
