// The README's library example: place a bundled model with two placers and compare them.
// Built in the tree and, by the test suite, against an installed devplace (find_package).
#include <devplace/devplace.h>

#include <cstdio>

int main(int argc, char** argv) {
  try {
    devplace::WorkloadSpec spec;
    spec.model = argc > 1 ? argv[1] : "resnet50";  // a model file or a bundled name
    spec.cluster = "paper";                        // a cluster file or preset
    devplace::Workload w = devplace::Workload::load(spec);

    devplace::PlaceOptions options;
    options.seed = 7;
    options.eval_budget = 2000;  // reward evaluations for search and learned placers
    for (const char* algo : {"gpu-only", "heft", "local-search"}) {
      devplace::Placement p = devplace::place(w, algo, options);
      devplace::Verdict v = devplace::judge(w, p);
      std::printf("%-13s %8.3f ms%s\n", algo, v.latency * 1e3, v.feasible ? "" : " (infeasible)");
    }
    std::printf("%d ops on %d devices\n", w.num_ops(), w.num_devices());
  } catch (const devplace::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
