// Placing one model as a library call, the one path behind `devplace place`, the C++ API's
// place() and Python's: the placer made by name (every classical and learned one), its
// options checked once, its verdict, and the rule for cost tables fitted to measured runs.
// The CLI only maps flags onto a PlaceRequest and prints the PlaceResult.
#pragma once

#include <memory>
#include <string>

#include "devplace/types.h"
#include "place/placer.h"

namespace devplace {

// Every placer by name: the registry's (classical and learned, "<device>-only"), and the
// shorthand "hsdag:POLICY[:N]" / "placeto:POLICY[:N]" (place zero-shot with a trained policy,
// after N fine-tuning episodes when given). `options` reach the learned placers' makers.
// Throws Error (not found) listing the known names.
std::unique_ptr<Placer> make_any_placer(const Problem& problem, const std::string& name,
                                        const PlaceOptions& options = {});

// Places `problem` as `request` asks. Throws Error (invalid argument) for options the placer
// cannot take: a policy file for a placer that loads none, fine-tuning without a policy.
PlaceResult place_problem(const Problem& problem, const PlaceRequest& request);

}  // namespace devplace
