// Placeholder until the algorithm lands.
#include "place/placer.h"
#include "util/error.h"
namespace devplace {
std::unique_ptr<Placer> make_mtopo_placer() { throw Error("", "", "make_mtopo_placer: not implemented yet"); }
std::unique_ptr<Placer> make_metf_placer() { throw Error("", "", "make_metf_placer: not implemented yet"); }
std::unique_ptr<Placer> make_msct_placer() { throw Error("", "", "make_msct_placer: not implemented yet"); }
}  // namespace devplace
