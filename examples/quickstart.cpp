#include <devplace/devplace.h>

#include <cstdio>

int main(int argc, char** argv) {
  try {
    devplace::WorkloadSpec spec;
    spec.model = argc > 1 ? argv[1] : "resnet50";  // a model file or a bundled name
    spec.cluster = "paper";                        // a cluster file or a preset
    devplace::Workload w = devplace::Workload::load(spec);

    devplace::PlaceOptions options;
    options.seed = 7;
    options.eval_budget = 2000;  // reward evaluations for search and learned placers
    for (const char* algo : {"gpu-only", "heft", "local-search"}) {
      devplace::Placement p = devplace::place(w, algo, options);  // a device index per op
      devplace::Verdict v = devplace::judge(w, p);                 // simulated latency
      std::printf("%-13s %8.3f ms\n", algo, v.latency * 1e3);
    }
  } catch (const devplace::Error& e) {  // names the file, the node and the problem
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
