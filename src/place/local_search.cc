// Placeholder until the algorithm lands.
#include "place/placer.h"
#include "util/error.h"
namespace devplace {
std::unique_ptr<Placer> make_local_search_placer() { throw Error("", "", "make_local_search_placer: not implemented yet"); }
}  // namespace devplace
