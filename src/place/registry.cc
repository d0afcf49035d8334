#include <algorithm>
#include <functional>
#include <map>

#include "place/placer.h"
#include "place/segment_search.h"
#include "place/tarnawski_placers.h"
#include "util/error.h"

namespace devplace {

namespace {
const std::map<std::string, std::function<std::unique_ptr<Placer>()>>& factories() {
  static const std::map<std::string, std::function<std::unique_ptr<Placer>()>> f = {
      {"hetero", make_hetero_placer},
      {"random", make_random_placer},
      {"random-best", make_random_best_placer},
      {"round-robin", make_round_robin_placer},
      {"heft", make_heft_placer},
      {"m-topo", make_mtopo_placer},
      {"m-etf", make_metf_placer},
      {"m-sct", make_msct_placer},
      {"metis", make_metis_placer},
      {"local-search", make_local_search_placer},
      {"exact", make_exact_placer},
      {"tarnawski-greedy", make_tarnawski_greedy_placer},
      {"tarnawski-dp", make_tarnawski_dp_placer},
      {"segment-search", make_segment_search_placer},
  };
  return f;
}

Error unknown_algorithm(const std::string& name, const std::vector<std::string>& known) {
  std::string list;
  for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
  return Error("", "", "unknown algorithm '" + name + "' (known: " + list + ", <device>-only)", ErrorKind::not_found);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

void PlacerRegistry::add(const std::string& name, PlacerMaker maker) {
  for (auto& [n, m] : makers_)
    if (n == name) return void(m = std::move(maker));
  makers_.emplace_back(name, std::move(maker));
}

bool PlacerRegistry::contains(const std::string& name) const {
  return std::any_of(makers_.begin(), makers_.end(), [&](const auto& nm) { return nm.first == name; });
}

std::vector<std::string> PlacerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& nm : makers_) out.push_back(nm.first);
  return out;
}

std::unique_ptr<Placer> PlacerRegistry::make(const Problem& problem, const std::string& name,
                                             const PlaceOptions& options) const {
  for (const auto& [n, maker] : makers_)
    if (n == name) return maker(problem, options);
  if (ends_with(name, "-only")) {
    const std::string dev = name.substr(0, name.size() - 5);
    const int d = problem.cluster().find_device(dev);
    if (d < 0) throw Error("", "", "cluster '" + problem.cluster().name + "' has no device '" + dev + "'", ErrorKind::not_found);
    return make_single_device(d, dev);
  }
  throw unknown_algorithm(name, names());
}

PlacerRegistry classical_placers() {
  PlacerRegistry r;
  for (const auto& [name, f] : factories()) r.add(name, [f](const Problem&, const PlaceOptions&) { return f(); });
  return r;
}

std::vector<std::string> classical_placer_names() {
  std::vector<std::string> names;
  for (auto& [n, f] : factories()) names.push_back(n);
  return names;
}

std::unique_ptr<Placer> make_placer(const std::string& name) {
  auto it = factories().find(name);
  if (it == factories().end()) throw unknown_algorithm(name, classical_placer_names());
  return it->second();
}

}  // namespace devplace
