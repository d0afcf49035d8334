// Segment search: a local search for the latency model of Tarnawski et al. (docs/design/tarnawski.md)
// whose moves keep the shape good placements there have. Lay the colour-class blocks out in one
// topological order; a placement is then a sequence of segments (maximal runs of consecutive
// blocks on one device). A move shifts the boundary between two neighbouring segments (by 1, 2,
// 4, 8 or 16 blocks, or all the way: one segment joins its neighbour's device), sends a whole
// segment to the host, or, once none of those helps, opens an unused accelerator on a stretch of
// a host segment (lengths 2, 4, 8, ... at steps of half the length). Single-op moves cannot
// make these changes: moving one op of a chain across an expensive edge only adds a crossing.
// Shifts and joins are taken best-first over the whole neighbourhood, openings first-improvement.
// Infeasible placements score +inf and are never kept, so the result is as feasible as the start.
// Torch-free: learned placers (learn/learned_placers.cc) start it from their own placements, the
// `segment-search` control from CPU-only or the published greedy.
#pragma once

#include <cstdint>
#include <vector>

#include "cost/cost_model.h"
#include "place/placer.h"

namespace devplace {

// The blocks of tarnawski_blocks() (ops that must share a device), as lists of ops, in a
// topological order free of the ops' numbering: Kahn's algorithm taking the ready block whose
// leader has the highest upward rank (ties by name), so a renumbered graph gives the same order.
std::vector<std::vector<int>> segment_units(const Problem& problem);

// Segment search from `start` with at most `budget` calls of `score` (seconds, +inf when
// infeasible; the start's own evaluation counts). Returns the best placement found (the start
// when nothing beats it). `evaluations`, when given, receives the number of calls made. A
// placement already scored is never scored again. REQUIRES: problem has a host device; units
// partition the ops; start places every op.
Placement segment_search(const Problem& problem, const std::vector<std::vector<int>>& units, ObjectiveFn& score,
                         Placement start, std::int64_t budget, std::int64_t* evaluations = nullptr);

// The control `segment-search`: the better of CPU-only and tarnawski-greedy, then segment search
// (eval_budget, default 2000). Objective tarnawski only.
std::unique_ptr<Placer> make_segment_search_placer();

}  // namespace devplace
