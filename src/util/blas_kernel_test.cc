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

TEST(BlasKernel, DescribesWhatIsLoaded) {
  EXPECT_EQ(describe_blas(BlasKernel{}), "no OpenBLAS loaded");
  EXPECT_EQ(describe_blas(BlasKernel{"OpenBLAS", "Haswell", "", ""}), "OpenBLAS kernel Haswell");
  EXPECT_EQ(describe_blas(BlasKernel{"OpenBLAS", "Haswell", "", "Haswell"}),
            "OpenBLAS kernel Haswell, forced by OPENBLAS_CORETYPE=Haswell");
}

}  // namespace
}  // namespace devplace
