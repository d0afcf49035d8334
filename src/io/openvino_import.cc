#include "io/openvino_import.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <string_view>
#include <unordered_map>

#include "graph/op_costs.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace {
namespace {

constexpr std::int64_t U = kUnknownDim;

bool known(std::int64_t d) { return d != U; }

bool fully_known(const Shape& s) { return std::all_of(s.begin(), s.end(), known); }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(trim(std::string_view(s).substr(start, i - start)));
      start = i + 1;
    }
  return parts;
}

bool parse_i64(const std::string& s, std::int64_t& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e;
}

bool parse_f64(const std::string& s, double& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e;
}

// "3" -> int, "1,1" -> ints, "1e-05" -> double, "0.5,2" -> doubles, anything else -> the string.
AttrValue parse_attr_value(const std::string& raw) {
  const std::string s = trim(raw);
  if (s.empty()) return raw;
  auto parts = split(s, ',');
  std::vector<std::int64_t> ints;
  std::vector<double> dbls;
  bool all_int = true;
  for (const auto& p : parts) {
    if (p.empty() || !(std::isdigit(static_cast<unsigned char>(p[0])) || p[0] == '-' || p[0] == '.')) return raw;
    std::int64_t i;
    double d;
    if (parse_i64(p, i)) {
      ints.push_back(i);
      dbls.push_back(static_cast<double>(i));
    } else if (parse_f64(p, d)) {
      all_int = false;
      dbls.push_back(d);
    } else {
      return raw;
    }
  }
  if (parts.size() == 1) return all_int ? AttrValue(ints[0]) : AttrValue(dbls[0]);
  return all_int ? AttrValue(ints) : AttrValue(dbls);
}

// "-1" / "?" / "" -> unknown; "1..128" -> unknown unless both ends agree; a number >= 0 -> itself.
bool parse_dim(const std::string& raw, std::int64_t& out) {
  const std::string s = trim(raw);
  if (s == "?" || s == "-1") return out = U, true;
  if (auto pos = s.find(".."); pos != std::string::npos) {
    std::int64_t lo, hi;
    bool lo_ok = parse_i64(trim(s.substr(0, pos)), lo), hi_ok = parse_i64(trim(s.substr(pos + 2)), hi);
    out = (lo_ok && hi_ok && lo == hi && lo >= 0) ? lo : U;
    return true;
  }
  std::int64_t v;
  if (!parse_i64(s, v) || v < -1) return false;
  out = v;
  return true;
}

// The `names` attribute: comma-separated, "\," escapes a comma inside a name.
std::vector<std::string> parse_names(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == ',') {
      cur += ',';
      ++i;
    } else if (s[i] == ',') {
      if (auto t = trim(cur); !t.empty()) out.push_back(t);
      cur.clear();
    } else {
      cur += s[i];
    }
  }
  if (auto t = trim(cur); !t.empty()) out.push_back(t);
  return out;
}

struct PortInfo {
  int id = 0;
  Shape dims;
  std::string precision;
  std::vector<std::string> names;
};

struct LayerInfo {
  std::string id, name, type;
  pugi::xml_node node;
  std::vector<PortInfo> inputs, outputs;
};

struct Source {
  int layer = -1;  // index into layers
  int port = 0;
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool attr_bool(const Op& op, const std::string& key) {
  auto it = op.attrs.find(key);
  if (it == op.attrs.end()) return false;
  if (auto* s = std::get_if<std::string>(&it->second)) return lower(*s) == "true";
  return op.attr_int(key, 0) != 0;
}

std::int64_t product(const Shape& s) {
  std::int64_t p = 1;
  for (auto d : s) p *= d;
  return p;
}

// ---- shape rules: each returns a candidate per output (dims may be U); merge fills only U dims.

Shape broadcast(const std::vector<const Shape*>& ins, bool none_mode) {
  std::size_t r = 0;
  for (auto* s : ins) r = std::max(r, s->size());
  Shape out(r, U);
  for (std::size_t i = 0; i < r; ++i) {
    bool all_known = true;
    std::int64_t big = -1, any = U;
    for (auto* s : ins) {
      if (s->size() <= i) continue;
      std::int64_t d = (*s)[s->size() - 1 - i];
      if (!known(d)) {
        all_known = false;
      } else {
        if (!known(any)) any = d;
        if (d != 1 && big < 0) big = d;
      }
    }
    std::int64_t v = big >= 0 ? big : (all_known ? 1 : U);
    if (none_mode && !known(v)) v = any;
    out[r - 1 - i] = v;
  }
  return out;
}

std::optional<Shape> matmul(const Op& op, Shape a, Shape b) {
  if (a.empty() || b.empty()) return std::nullopt;
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1)
    a = {1, a[0]};
  else if (attr_bool(op, "transpose_a"))
    std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (b1)
    b = {b[0], 1};
  else if (attr_bool(op, "transpose_b"))
    std::swap(b[b.size() - 1], b[b.size() - 2]);
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape out = broadcast({&ab, &bb}, false);
  if (!a1) out.push_back(a[a.size() - 2]);
  if (!b1) out.push_back(b.back());
  return out;
}

std::int64_t window_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t pb,
                        std::int64_t pe, const std::string& auto_pad, bool ceil_mode) {
  if (!known(in) || !known(k) || s <= 0) return U;
  if (auto_pad == "same_upper" || auto_pad == "same_lower") return (in + s - 1) / s;
  if (auto_pad == "valid") pb = pe = 0;
  std::int64_t span = in + pb + pe - d * (k - 1) - 1;
  if (span < 0) return U;
  return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

std::int64_t at(const std::vector<std::int64_t>& v, std::size_t i, std::int64_t fallback) {
  return i < v.size() ? v[i] : fallback;
}

std::optional<Shape> conv_or_pool(const Op& op, const Shape& x, const Shape* w) {
  if (x.size() < 3) return std::nullopt;
  const std::size_t sr = x.size() - 2;
  Shape out = {x[0], x[1]};
  Shape kernel;
  if (w) {  // Convolution [Cout, Cin, k...] / GroupConvolution [G, Cout/G, Cin/G, k...]
    const bool group = op.type == "GroupConvolution";
    if (w->size() != sr + (group ? 3 : 2)) return std::nullopt;
    out[1] = group ? (known((*w)[0]) && known((*w)[1]) ? (*w)[0] * (*w)[1] : U) : (*w)[0];
    kernel.assign(w->end() - static_cast<std::ptrdiff_t>(sr), w->end());
  } else {
    auto k = op.attr_ints("kernel");
    if (k.size() != sr) return std::nullopt;
    kernel = k;
  }
  auto strides = op.attr_ints("strides"), dil = op.attr_ints("dilations");
  auto pb = op.attr_ints("pads_begin"), pe = op.attr_ints("pads_end");
  const std::string auto_pad = lower(op.attr_string("auto_pad", "explicit"));
  const bool ceil_mode = lower(op.attr_string("rounding_type", "floor")) == "ceil";
  for (std::size_t i = 0; i < sr; ++i)
    out.push_back(window_out(x[2 + i], kernel[i], at(strides, i, 1), at(dil, i, 1), at(pb, i, 0), at(pe, i, 0),
                             auto_pad, ceil_mode));
  return out;
}

bool compatible(const Shape& cand, const Shape& ir) {
  if (cand.size() != ir.size()) return false;
  for (std::size_t i = 0; i < ir.size(); ++i)
    if (known(cand[i]) && known(ir[i]) && cand[i] != ir[i]) return false;
  return true;
}

// Keeps the candidates consistent with the IR's static dims; returns the dims they all agree on.
std::optional<Shape> consensus(const std::vector<Shape>& cands, const Shape& ir) {
  std::optional<Shape> out;
  for (const auto& c : cands) {
    if (!compatible(c, ir)) continue;
    if (!out) {
      out = c;
      continue;
    }
    for (std::size_t i = 0; i < c.size(); ++i)
      if ((*out)[i] != c[i]) (*out)[i] = U;
  }
  return out;
}

// Reshape / Squeeze / Unsqueeze: the target values live in the .bin, so we use what the dims say.
Shape reshape_like(const Shape& in, const Shape& in_ir, const Shape& out_ir) {
  Shape out = out_ir;
  int unknown = static_cast<int>(std::count(out.begin(), out.end(), U));
  if (unknown == 0) return out;
  // (b) element count is conserved: one unknown output dim follows from a fully known input.
  if (unknown == 1 && fully_known(in)) {
    std::int64_t rest = 1;
    for (auto d : out) rest *= known(d) ? d : 1;
    std::int64_t total = product(in);
    if (rest > 0 && total > 0 && total % rest == 0) *std::find(out.begin(), out.end(), U) = total / rest;
    return out;
  }
  // (a) same rank and every static output dim equals the input's: the unknown dims are kept.
  if (in.size() == out.size()) {
    bool same = true;
    for (std::size_t i = 0; i < in.size(); ++i)
      if (known(out_ir[i]) && out_ir[i] != in[i]) same = false;
    if (same) {
      for (std::size_t i = 0; i < in.size(); ++i)
        if (!known(out[i])) out[i] = in[i];
      return out;
    }
  }
  // (c) as many dynamic dims in as out and equal products of the static ones: the dynamic dims
  // pass through in order ([B,S,768] -> [B,S,12,64], [S] -> [1,S]).
  std::vector<std::size_t> in_dyn, out_dyn;
  std::int64_t in_static = 1, out_static = 1;
  for (std::size_t i = 0; i < in_ir.size(); ++i) known(in_ir[i]) ? void(in_static *= in_ir[i]) : in_dyn.push_back(i);
  for (std::size_t i = 0; i < out_ir.size(); ++i)
    known(out_ir[i]) ? void(out_static *= out_ir[i]) : out_dyn.push_back(i);
  if (!in_dyn.empty() && in_dyn.size() == out_dyn.size() && in_static == out_static && in.size() == in_ir.size())
    for (std::size_t k = 0; k < in_dyn.size(); ++k) out[out_dyn[k]] = in[in_dyn[k]];
  return out;
}

// Transpose: the permutation is a Const we cannot read; the output is a permutation of the input
// dims, so the static output dims are taken out of the input's and the rest keep their order.
std::optional<Shape> transpose_like(const Shape& in, const Shape& out_ir) {
  if (in.size() != out_ir.size()) return std::nullopt;
  std::vector<bool> used(in.size(), false);
  for (auto d : out_ir) {
    if (!known(d)) continue;
    bool found = false;
    for (std::size_t i = 0; i < in.size() && !found; ++i)
      if (!used[i] && in[i] == d) used[i] = found = true;
    if (!found) return std::nullopt;
  }
  Shape out = out_ir;
  std::size_t next = 0;
  for (auto& d : out) {
    if (known(d)) continue;
    while (next < in.size() && used[next]) ++next;
    if (next == in.size()) return std::nullopt;
    d = in[next++];
  }
  return out;
}

// Candidate output shapes of `op` from its current input shapes and the IR's output shapes.
std::vector<std::optional<Shape>> infer(const Op& op, const std::vector<const Shape*>& in,
                                        const std::vector<const Shape*>& in_ir, const std::vector<Shape>& out_ir) {
  std::vector<std::optional<Shape>> out(out_ir.size());
  if (out_ir.empty()) return out;
  auto all = [&](const std::optional<Shape>& s) {
    for (auto& o : out) o = s;
  };
  const std::string& t = op.type;
  if (t == "Parameter" || t == "Const") return out;
  const ShapeRule rule = op_type_info(t).shape_rule;
  if (rule == ShapeRule::same_as_input && !in.empty()) {
    all(*in[0]);
  } else if (rule == ShapeRule::broadcasting && !in.empty()) {
    all(broadcast(in, lower(op.attr_string("auto_broadcast", "numpy")) == "none"));
  } else if (t == "MatMul" && in.size() >= 2) {
    all(matmul(op, *in[0], *in[1]));
  } else if ((t == "Convolution" || t == "GroupConvolution" || t == "BinaryConvolution") && in.size() >= 2) {
    all(conv_or_pool(op, *in[0], in[1]));
  } else if ((t == "MaxPool" || t == "AvgPool") && !in.empty()) {
    all(conv_or_pool(op, *in[0], nullptr));
  } else if (t == "Concat" && !in.empty()) {
    const std::size_t r = in[0]->size();
    std::int64_t axis = op.attr_int("axis", 0);
    if (axis < 0) axis += static_cast<std::int64_t>(r);
    if (axis < 0 || axis >= static_cast<std::int64_t>(r)) return out;
    Shape s(r, U);
    std::int64_t sum = 0;
    for (auto* x : in) {
      if (x->size() != r) return out;
      for (std::size_t i = 0; i < r; ++i)
        if (static_cast<std::int64_t>(i) != axis && !known(s[i])) s[i] = (*x)[i];
      sum = (known(sum) && known((*x)[axis])) ? sum + (*x)[axis] : U;
    }
    s[axis] = sum;
    all(s);
  } else if (t == "Gather" && in.size() >= 2) {
    // The axis is a Const input; try every axis and keep what all IR-consistent ones agree on.
    const Shape& data = *in[0];
    const Shape& idx = *in[1];
    std::int64_t bd = op.attr_int("batch_dims", 0);
    if (bd < 0) bd += static_cast<std::int64_t>(idx.size());
    if (bd < 0 || bd > static_cast<std::int64_t>(idx.size())) return out;
    std::vector<Shape> cands;
    for (std::size_t a = static_cast<std::size_t>(bd); a < data.size(); ++a) {
      Shape c(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(a));
      c.insert(c.end(), idx.begin() + bd, idx.end());
      c.insert(c.end(), data.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.end());
      cands.push_back(std::move(c));
    }
    out[0] = consensus(cands, out_ir[0]);
  } else if ((t == "Split" || t == "VariadicSplit") && !in.empty()) {
    const Shape& data = *in[0];
    for (std::size_t k = 0; k < out_ir.size(); ++k) {
      std::vector<Shape> cands;
      for (std::size_t a = 0; a < data.size(); ++a) {
        Shape c = data;
        c[a] = U;
        cands.push_back(std::move(c));
      }
      out[k] = consensus(cands, out_ir[k]);
    }
  } else if ((t == "Reshape" || t == "Squeeze" || t == "Unsqueeze") && !in.empty()) {
    all(reshape_like(*in[0], *in_ir[0], out_ir[0]));
  } else if (t == "Transpose" && !in.empty()) {
    all(transpose_like(*in[0], out_ir[0]));
  } else if (t.rfind("Reduce", 0) == 0 && !in.empty()) {
    if (attr_bool(op, "keep_dims") && in[0]->size() == out_ir[0].size()) all(*in[0]);
  } else if (t == "Broadcast" && !in.empty()) {
    // The target shape is a value we cannot read; numpy/bidirectional broadcasting keeps every
    // input dim that is not 1 (right-aligned).
    const std::string mode = lower(op.attr_string("mode", "numpy"));
    const Shape& x = *in[0];
    if ((mode == "numpy" || mode == "bidirectional") && x.size() <= out_ir[0].size()) {
      Shape s = out_ir[0];
      const std::size_t off = s.size() - x.size();
      for (std::size_t i = 0; i < x.size(); ++i)
        if (known(x[i]) && x[i] != 1) s[off + i] = x[i];
      all(s);
    }
  } else if (t == "ReadValue" && !in.empty() && in[0]->size() == out_ir[0].size()) {
    // A state (KV cache) read at its initial value: the first, prefill call of a stateful model.
    all(*in[0]);
  } else if (t == "ShapeOf" && !in.empty()) {
    all(Shape{static_cast<std::int64_t>(in[0]->size())});
  } else if (t == "ScaledDotProductAttention" && in.size() >= 3 && !in[0]->empty() && !in[2]->empty()) {
    Shape s = *in[0];
    s.back() = in[2]->back();
    all(s);
  }
  return out;
}

struct Binding {
  std::int64_t batch = U, seq = U;
};

}  // namespace

Graph import_openvino_text(const std::string& xml_text, const std::string& src, const ImportOptions& opts,
                           OpenVinoImportStats* stats_out) {
  pugi::xml_document doc;
  pugi::xml_parse_result res = doc.load_buffer(xml_text.data(), xml_text.size());
  if (!res)
    throw Error(src, "",
                std::string("not parseable as XML: ") + res.description() + " at byte " + std::to_string(res.offset));
  pugi::xml_node net = doc.child("net");
  if (!net) throw Error(src, "", "no <net> root element (not an OpenVINO IR .xml)");
  pugi::xml_node layers_node = net.child("layers");
  if (!layers_node) throw Error(src, "", "no <layers> element in <net>");

  OpenVinoImportStats stats;
  std::string gname = std::filesystem::path(src).stem().string();
  if (gname.empty()) gname = net.attribute("name").as_string();
  Graph g(gname, src);

  // ---- layers and their ports
  std::vector<LayerInfo> layers;
  std::unordered_map<std::string, int> by_id;
  std::set<std::string> names_used;
  for (pugi::xml_node l : layers_node.children("layer")) {
    LayerInfo L;
    L.node = l;
    L.id = l.attribute("id").as_string();
    L.type = l.attribute("type").as_string();
    L.name = l.attribute("name").as_string();
    if (L.id.empty()) throw Error(src, L.name, "<layer> without an id attribute");
    if (L.name.empty()) {
      L.name = (L.type.empty() ? "layer" : L.type) + "_" + L.id;
      log::warn("openvino-noname:" + src, src + ": layer id " + L.id + " has no name; called it '" + L.name + "'");
    }
    if (L.type.empty()) throw Error(src, L.name, "<layer> without a type attribute");
    if (!by_id.emplace(L.id, static_cast<int>(layers.size())).second)
      throw Error(src, L.name, "duplicate layer id " + L.id);
    if (!names_used.insert(L.name).second) {
      std::string base = L.name + "#" + L.id, unique = base;
      for (int k = 2; names_used.count(unique); ++k) unique = base + "_" + std::to_string(k);
      log::warn("openvino-dupname:" + src, src + ": layer name '" + L.name + "' is used by several layers; layer id " +
                                               L.id + " renamed '" + unique + "' (and likewise for others)");
      L.name = unique;
      names_used.insert(unique);
    }
    const std::string elem_type = l.child("data").attribute("element_type").as_string();
    for (const char* dir : {"input", "output"}) {
      for (pugi::xml_node p : l.child(dir).children("port")) {
        PortInfo P;
        std::int64_t pid;
        if (!parse_i64(trim(p.attribute("id").as_string()), pid))
          throw Error(src, L.name, std::string(dir) + " <port> without a numeric id");
        P.id = static_cast<int>(pid);
        for (pugi::xml_node d : p.children("dim")) {
          std::int64_t v;
          if (!parse_dim(d.text().as_string(), v))
            throw Error(src, L.name, "port " + std::to_string(P.id) + ": bad <dim> '" + d.text().as_string() + "'");
          P.dims.push_back(v);
        }
        P.precision = p.attribute("precision").as_string();
        if (P.precision.empty()) P.precision = elem_type;
        P.names = parse_names(p.attribute("names").as_string());
        auto& list = std::string(dir) == "input" ? L.inputs : L.outputs;
        for (const auto& q : list)
          if (q.id == P.id) throw Error(src, L.name, "duplicate port id " + std::to_string(P.id));
        list.push_back(std::move(P));
      }
    }
    layers.push_back(std::move(L));
  }
  stats.layers = static_cast<int>(layers.size());

  // ---- edges: every input port gets exactly one source
  auto port_index = [](const std::vector<PortInfo>& ports, int id) {
    for (std::size_t i = 0; i < ports.size(); ++i)
      if (ports[i].id == id) return static_cast<int>(i);
    return -1;
  };
  std::vector<std::vector<Source>> sources(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) sources[i].resize(layers[i].inputs.size());
  pugi::xml_node edges_node = net.child("edges");
  for (pugi::xml_node e : edges_node.children("edge")) {
    ++stats.edges;
    const std::string fl = e.attribute("from-layer").as_string(), tl = e.attribute("to-layer").as_string();
    std::int64_t fp, tp;
    const std::string what = "edge from-layer=" + fl + " to-layer=" + tl;
    if (fl.empty() || tl.empty() || !parse_i64(trim(e.attribute("from-port").as_string()), fp) ||
        !parse_i64(trim(e.attribute("to-port").as_string()), tp))
      throw Error(src, "", what + ": needs from-layer, from-port, to-layer and to-port");
    auto fit = by_id.find(fl), tit = by_id.find(tl);
    if (fit == by_id.end()) throw Error(src, "", what + ": there is no layer with id " + fl);
    if (tit == by_id.end()) throw Error(src, layers[fit->second].name, what + ": there is no layer with id " + tl);
    const LayerInfo& F = layers[fit->second];
    const LayerInfo& T = layers[tit->second];
    if (port_index(F.outputs, static_cast<int>(fp)) < 0)
      throw Error(src, F.name, what + ": port " + std::to_string(fp) + " is not an output port of this layer");
    int ti = port_index(T.inputs, static_cast<int>(tp));
    if (ti < 0) throw Error(src, T.name, what + ": port " + std::to_string(tp) + " is not an input port of this layer");
    Source& s = sources[tit->second][ti];
    if (s.layer >= 0) throw Error(src, T.name, "input port " + std::to_string(tp) + " has more than one incoming edge");
    s = {fit->second, static_cast<int>(fp)};
  }

  // ---- ops and tensors
  auto tname = [&](int layer, int port) { return layers[layer].name + ":" + std::to_string(port); };
  std::map<std::string, int> param_by_name;  // layer name and port names -> layer index
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const LayerInfo& L = layers[li];
    Op op;
    op.name = L.name;
    op.type = L.type;
    for (pugi::xml_attribute a : L.node.child("data").attributes()) op.attrs[a.name()] = parse_attr_value(a.value());
    for (std::size_t k = 0; k < L.inputs.size(); ++k) {
      const Source& s = sources[li][k];
      if (s.layer < 0)
        throw Error(src, L.name,
                    "input port " + std::to_string(L.inputs[k].id) + " has no incoming edge" +
                        (edges_node ? "" : " (the file has no <edges> section)"), ErrorKind::corrupt);
      int t = g.tensor_id(tname(s.layer, s.port));
      op.inputs.push_back(t);
      if (L.type == "Result") g.tensor(t).is_graph_output = true;
    }
    for (const auto& P : L.outputs) {
      int t = g.tensor_id(tname(static_cast<int>(li), P.id));
      Tensor& T = g.tensor(t);
      T.shape = P.dims;
      T.dtype = parse_dtype(P.precision);
      if (L.type == "Parameter") T.is_graph_input = true;
      if (L.type == "Const") T.is_constant = true;
      op.outputs.push_back(t);
    }
    if (L.type == "Parameter") {
      param_by_name[L.name] = static_cast<int>(li);
      for (const auto& P : L.outputs)
        for (const auto& n : P.names) param_by_name.emplace(n, static_cast<int>(li));
    }
    g.add_op(std::move(op));
  }

  std::vector<Shape> ir(g.num_tensors());
  for (int t = 0; t < g.num_tensors(); ++t) {
    ir[t] = g.tensor(t).shape;
    stats.dynamic_dims += static_cast<int>(std::count(ir[t].begin(), ir[t].end(), U));
  }

  // ---- bindings
  auto describe_inputs = [&]() {
    std::string s;
    for (const auto& L : layers)
      if (L.type == "Parameter" && !L.outputs.empty())
        s += (s.empty() ? "" : ", ") + L.name + shape_to_string(L.outputs[0].dims);
    return s.empty() ? std::string("none") : s;
  };
  std::map<int, Shape> bound;  // Parameter layer -> binding
  for (const auto& [name, shape] : opts.input_shapes) {
    auto it = param_by_name.find(name);
    if (it == param_by_name.end())
      throw Error(src, "",
                  "--input '" + name + "' names no Parameter of this model; its inputs are " + describe_inputs(), ErrorKind::not_found);
    const LayerInfo& L = layers[it->second];
    if (L.outputs.empty()) continue;
    const Shape& dims = L.outputs[0].dims;
    if (shape.size() != dims.size())
      throw Error(src, L.name,
                  "--input " + name + "=" + shape_to_string(shape) + " has rank " + std::to_string(shape.size()) +
                      " but the input is " + shape_to_string(dims));
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (known(dims[i]) && known(shape[i]) && dims[i] != shape[i])
        throw Error(src, L.name,
                    "--input " + name + "=" + shape_to_string(shape) + " contradicts the static shape " +
                        shape_to_string(dims));
    bound[it->second] = shape;
  }
  Binding fb;
  std::map<std::int64_t, int> seq_votes;
  std::vector<std::int64_t> seq_order;
  for (const auto& [li, shape] : bound) {  // layer (file) order
    Tensor& T = g.tensor(g.find_tensor(tname(li, layers[li].outputs[0].id)));
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (known(T.shape[i]) || !known(shape[i])) continue;
      T.shape[i] = shape[i];
      ++stats.bound;
      if (i == 0) {
        if (!known(fb.batch)) fb.batch = shape[i];
      } else if (seq_votes[shape[i]]++ == 0) {
        seq_order.push_back(shape[i]);
      }
    }
  }
  int best = 0;
  for (auto v : seq_order)
    if (seq_votes[v] > best) best = seq_votes[v], fb.seq = v;
  if (!bound.empty() && !known(fb.batch)) fb.batch = 1;

  g.finalize();

  // ---- constants fold forward: an op whose inputs are all constant makes constants.
  for (const Op& op : g.ops()) {
    if (op.inputs.empty() || op.type == "Parameter" || op.type == "ReadValue") continue;
    bool all_const = std::all_of(op.inputs.begin(), op.inputs.end(), [&](int t) { return g.tensor(t).is_constant; });
    if (all_const)
      for (int t : op.outputs) g.tensor(t).is_constant = true;
  }

  // ---- forward shape propagation, topological order (op index after finalize)
  for (const Op& op : g.ops()) {
    bool need = false;
    for (int t : op.outputs) need |= !fully_known(g.tensor(t).shape);
    if (!need) continue;
    std::vector<const Shape*> in, in_ir;
    for (int t : op.inputs) in.push_back(&g.tensor(t).shape), in_ir.push_back(&ir[t]);
    std::vector<Shape> out_ir;
    for (int t : op.outputs) out_ir.push_back(ir[t]);
    auto cands = infer(op, in, in_ir, out_ir);
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      if (!cands[k]) continue;
      Shape& s = g.tensor(op.outputs[k]).shape;
      if (cands[k]->size() != s.size()) continue;
      for (std::size_t i = 0; i < s.size(); ++i)
        if (!known(s[i]) && known((*cands[k])[i]) && (*cands[k])[i] >= 0) {
          s[i] = (*cands[k])[i];
          ++stats.propagated;
        }
    }
    // Where the rules stop, the fallback guesses right away so that what follows propagates
    // from the guess (and stays consistent with it).
    if (bound.empty()) continue;
    const bool reshape = op.type == "Reshape" || op.type == "Squeeze" || op.type == "Unsqueeze";
    for (int t : op.outputs) {
      Shape& s = g.tensor(t).shape;
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (known(s[i])) continue;
        if (reshape && std::count(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(), U) == 1) {
          // The last unknown dim of a reshape follows from the element count, if the input is known.
          Shape c = reshape_like(g.tensor(op.inputs[0]).shape, ir[op.inputs[0]], s);
          if (known(c[i])) {
            s[i] = c[i], ++stats.fallback;
            continue;
          }
        }
        // A dim dynamic in the IR of both this output and a same-rank input at the same axis is
        // most often the same symbol (batch, sequence) passing through; else batch / sequence.
        std::int64_t v = U;
        for (int x : op.inputs)
          if (ir[x].size() == s.size() && !known(ir[x][i]) && known(g.tensor(x).shape[i]) && !known(v))
            v = g.tensor(x).shape[i];
        if (!known(v)) v = (i == 0 && (s.size() >= 2 || op.type == "Parameter")) ? fb.batch : fb.seq;
        if (known(v)) s[i] = v, ++stats.fallback;
      }
    }
  }

  for (int t = 0; t < g.num_tensors(); ++t) {
    const Shape& s = g.tensor(t).shape;
    stats.unknown += static_cast<int>(std::count(s.begin(), s.end(), U));
  }
  if (bound.empty() && stats.unknown > 0) {
    log::warn("openvino-unbound:" + src, src + ": " + std::to_string(stats.unknown) +
                                             " dims are dynamic and count as 1; bind the inputs (" + describe_inputs() +
                                             ") with --input NAME=1,128");
  } else if (stats.fallback > 0 || stats.unknown > 0) {
    std::string unbound;
    for (const auto& L : layers)
      if (L.type == "Parameter" && !bound.count(by_id[L.id]) && !L.outputs.empty() && !fully_known(L.outputs[0].dims))
        unbound += (unbound.empty() ? "" : ", ") + L.name;
    log::warn("openvino-fallback:" + src,
              src + ": " + std::to_string(stats.fallback) + " of " + std::to_string(stats.dynamic_dims) +
                  " dynamic dims were not resolved by shape propagation and were guessed (axis 0 -> batch " +
                  (known(fb.batch) ? std::to_string(fb.batch) : "?") + ", other axes -> sequence " +
                  (known(fb.seq) ? std::to_string(fb.seq) : "? (kept unknown)") + ")" +
                  (stats.unknown ? "; " + std::to_string(stats.unknown) + " stay unknown" : "") +
                  (unbound.empty() ? "" : "; unbound inputs: " + unbound));
  }

  annotate_costs(g);
  if (stats_out) *stats_out = stats;
  return g;
}

Graph import_openvino(const std::string& xml_path, const ImportOptions& opts, OpenVinoImportStats* stats) {
  return import_openvino_text(read_file(xml_path), xml_path, opts, stats);
}

}  // namespace devplace
