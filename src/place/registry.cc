#include <functional>
#include <map>

#include "place/placer.h"
#include "place/tarnawski_placers.h"
#include "util/error.h"

namespace devplace {

namespace {
const std::map<std::string, std::function<std::unique_ptr<Placer>()>>& factories() {
  static const std::map<std::string, std::function<std::unique_ptr<Placer>()>> f = {
      {"hetero", make_hetero_placer},     {"random", make_random_placer}, {"round-robin", make_round_robin_placer},
      {"heft", make_heft_placer},         {"m-topo", make_mtopo_placer},  {"m-etf", make_metf_placer},
      {"m-sct", make_msct_placer},        {"metis", make_metis_placer},   {"local-search", make_local_search_placer},
      {"exact", make_exact_placer},
      {"tarnawski-greedy", make_tarnawski_greedy_placer}, {"tarnawski-dp", make_tarnawski_dp_placer},
  };
  return f;
}
}  // namespace

std::vector<std::string> placer_names() {
  std::vector<std::string> names;
  for (auto& [n, f] : factories()) names.push_back(n);
  return names;
}

std::unique_ptr<Placer> make_placer(const std::string& name) {
  auto it = factories().find(name);
  if (it == factories().end()) {
    std::string list;
    for (auto& n : placer_names()) list += (list.empty() ? "" : ", ") + n;
    throw Error("", "", "unknown algorithm '" + name + "' (known: " + list + ", <device>-only)");
  }
  return it->second();
}

}  // namespace devplace
