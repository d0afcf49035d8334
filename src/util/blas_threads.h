// The BLAS library's own thread pool. Debian's LibTorch calls OpenBLAS for matrix products, and
// the pthread build of OpenBLAS keeps a process-wide pool sized to every core, which
// at::set_num_threads does not touch. Left alone, a "single-thread" executor worker secretly
// uses every core for each MatMul, and two workers calling it at once fight over one pool.
// (Training leaves the pool alone: its small products are faster with it.)
#pragma once

namespace devplace {

// Sets the thread count of the BLAS the process loaded (OpenBLAS or BLIS, found by symbol at run
// time, so nothing links against a particular BLAS) for as long as this object lives, then puts
// the previous count back. Does nothing where no such BLAS is loaded (reference BLAS has no
// threads).
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads);
  ~ScopedBlasThreads();
  ScopedBlasThreads(const ScopedBlasThreads&) = delete;
  ScopedBlasThreads& operator=(const ScopedBlasThreads&) = delete;

 private:
  void (*set_)(int) = nullptr;
  int previous_ = 0;
};

}  // namespace devplace
