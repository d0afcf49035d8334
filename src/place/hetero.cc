// OpenVINO-HETERO-like placement: every op goes to the first device in a priority list that
// supports its op type (the cluster file's per-device `supported_ops`), falling back to the
// next. This is what HETERO:GPU,CPU does without manual affinities.
#include "place/placer.h"
#include "util/error.h"

namespace devplace {

namespace {

class Hetero : public Placer {
 public:
  std::string name() const override { return "hetero"; }
  Placement place(const Problem& p, const PlaceOptions& o) override {
    const Cluster& c = p.cluster();
    std::vector<int> order;
    for (const auto& n : o.hetero.device_priority) {
      int d = c.find_device(n);
      if (d < 0) throw Error(c.name, "", "hetero priority names unknown device '" + n + "'", ErrorKind::not_found);
      order.push_back(d);
    }
    if (order.empty()) {
      // HETERO's usual order: accelerators first, the CPU as the fallback.
      for (int d = 0; d < c.num_devices(); ++d)
        if (c.devices[d].kind != "cpu") order.push_back(d);
      for (int d = 0; d < c.num_devices(); ++d)
        if (c.devices[d].kind == "cpu") order.push_back(d);
    }
    Placement out(p.num_ops(), order.back());
    for (int i = 0; i < p.num_ops(); ++i)
      for (int d : order)
        if (c.devices[d].supports(p.graph().op(i).type) && p.op_time(i, d) < kInfeasibleTime) {
          out[i] = d;
          break;
        }
    return out;
  }
};

}  // namespace

std::unique_ptr<Placer> make_hetero_placer() { return std::make_unique<Hetero>(); }

}  // namespace devplace
