#include "util/blas_threads.h"

#include <dlfcn.h>

#include <utility>

namespace devplace {

ScopedBlasThreads::ScopedBlasThreads(int threads) {
  using Set = void (*)(int);
  using Get = int (*)();
  // RTLD_DEFAULT: the symbols of whatever BLAS LibTorch pulled in, if any.
  for (auto [set, get] : {std::pair{"openblas_set_num_threads", "openblas_get_num_threads"},
                          std::pair{"bli_thread_set_num_threads", "bli_thread_get_num_threads"}}) {
    auto s = reinterpret_cast<Set>(dlsym(RTLD_DEFAULT, set));
    auto g = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, get));
    if (!s || !g) continue;
    set_ = s;
    previous_ = g();
    set_(threads);
    return;
  }
}

ScopedBlasThreads::~ScopedBlasThreads() {
  if (set_ && previous_ > 0) set_(previous_);
}

}  // namespace devplace
