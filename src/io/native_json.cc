#include "io/native_json.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/json_file.h"

namespace devplace {
namespace {

using nlohmann::json;

// Doubles: finite ones as JSON numbers (nlohmann prints the shortest exact form, so they read
// back bit for bit); the rest as strings, since JSON has no NaN or infinity.
json double_to_json(double d) {
  if (std::isfinite(d)) return d;
  if (std::isnan(d)) return "nan";
  return d > 0 ? "inf" : "-inf";
}

struct Ctx {
  const std::string& file;
  std::string node;
  [[noreturn]] void fail(const std::string& reason) const { throw Error(file, node, reason); }
};

double double_from_json(const json& v, const Ctx& c, const std::string& what) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  c.fail("'" + what + "' must be a number, got " + v.dump());
}

std::int64_t int_from_json(const json& v, const Ctx& c, const std::string& what) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      c.fail("'" + what + "' does not fit in int64: " + v.dump());
    return v.get<std::int64_t>();
  }
  c.fail("'" + what + "' must be an integer, got " + v.dump());
}

const json& field(const json& obj, const char* key, const Ctx& c) {
  auto it = obj.find(key);
  if (it == obj.end()) c.fail(std::string("missing field '") + key + "'");
  return *it;
}

std::string string_field(const json& obj, const char* key, const Ctx& c) {
  const json& v = field(obj, key, c);
  if (!v.is_string()) c.fail(std::string("'") + key + "' must be a string, got " + v.dump());
  return v.get<std::string>();
}

bool bool_field(const json& obj, const char* key, const Ctx& c) {
  const json& v = field(obj, key, c);
  if (!v.is_boolean()) c.fail(std::string("'") + key + "' must be true or false, got " + v.dump());
  return v.get<bool>();
}

const json& array_field(const json& obj, const char* key, const Ctx& c) {
  const json& v = field(obj, key, c);
  if (!v.is_array()) c.fail(std::string("'") + key + "' must be an array");
  return v;
}

json attr_to_json(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::int64_t>) return {{"int", x}};
        if constexpr (std::is_same_v<T, double>) return {{"float", double_to_json(x)}};
        if constexpr (std::is_same_v<T, std::string>) return {{"string", x}};
        if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) return {{"ints", x}};
        if constexpr (std::is_same_v<T, std::vector<double>>) {
          json a = json::array();
          for (double d : x) a.push_back(double_to_json(d));
          return {{"floats", a}};
        }
      },
      v);
}

AttrValue attr_from_json(const json& v, const Ctx& c, const std::string& key) {
  if (!v.is_object() || v.size() != 1)
    c.fail("attr '" + key + "' must be an object with one tag (int, float, string, ints, floats), got " + v.dump());
  const auto it = v.begin();
  const std::string& tag = it.key();
  const json& x = it.value();
  const std::string what = "attr " + key;
  if (tag == "int") return int_from_json(x, c, what);
  if (tag == "float") return double_from_json(x, c, what);
  if (tag == "string") {
    if (!x.is_string()) c.fail("'" + what + "' must be a string, got " + x.dump());
    return x.get<std::string>();
  }
  if (tag == "ints" || tag == "floats") {
    if (!x.is_array()) c.fail("'" + what + "' must be an array, got " + x.dump());
    if (tag == "ints") {
      std::vector<std::int64_t> out;
      for (const auto& e : x) out.push_back(int_from_json(e, c, what));
      return out;
    }
    std::vector<double> out;
    for (const auto& e : x) out.push_back(double_from_json(e, c, what));
    return out;
  }
  c.fail("attr '" + key + "' has unknown tag '" + tag + "' (expected int, float, string, ints, floats)");
}

}  // namespace

bool is_graph_json(const json& j) {
  if (!j.is_object()) return false;
  auto it = j.find("format");
  return it != j.end() && it->is_string() && it->get<std::string>() == kGraphJsonFormat;
}

json graph_to_json(const Graph& g) {
  json j;
  j["format"] = kGraphJsonFormat;
  j["version"] = kGraphJsonVersion;
  j["name"] = g.name();
  j["source"] = g.source();
  json tensors = json::array();
  for (const Tensor& t : g.tensors()) {
    json jt;
    jt["name"] = t.name;
    jt["shape"] = t.shape;
    jt["dtype"] = dtype_name(t.dtype);
    jt["fixed_bytes"] = t.fixed_bytes;
    jt["is_graph_input"] = t.is_graph_input;
    jt["is_graph_output"] = t.is_graph_output;
    jt["is_constant"] = t.is_constant;
    tensors.push_back(std::move(jt));
  }
  json ops = json::array();
  for (const Op& op : g.ops()) {
    json jo;
    jo["name"] = op.name;
    jo["type"] = op.type;
    json in = json::array(), out = json::array();
    for (int t : op.inputs) in.push_back(g.tensor(t).name);
    for (int t : op.outputs) out.push_back(g.tensor(t).name);
    jo["inputs"] = std::move(in);
    jo["outputs"] = std::move(out);
    json attrs = json::object();
    for (const auto& [k, v] : op.attrs) attrs[k] = attr_to_json(v);
    jo["attrs"] = std::move(attrs);
    jo["flops"] = double_to_json(op.flops);
    jo["macs"] = double_to_json(op.macs);
    jo["weight_bytes"] = op.weight_bytes;
    jo["bytes_accessed"] = op.bytes_accessed;
    ops.push_back(std::move(jo));
  }
  j["tensors"] = std::move(tensors);
  j["ops"] = std::move(ops);
  return j;
}

void write_graph_json(const Graph& g, const std::string& path) {
  write_file_atomic(path, graph_to_json(g).dump(2) + "\n");
}

Graph graph_from_json(const json& j, const std::string& file) {
  Ctx top{file, ""};
  if (!j.is_object()) top.fail("expected a JSON object with \"format\": \"devplace-graph\"");
  if (!is_graph_json(j))
    top.fail(std::string("not a devplace graph: \"format\" must be \"") + kGraphJsonFormat + "\", got " +
             (j.contains("format") ? j["format"].dump() : std::string("nothing")));
  const std::int64_t version = int_from_json(field(j, "version", top), top, "version");
  if (version != kGraphJsonVersion)
    top.fail("unsupported version " + std::to_string(version) + " (this build reads " +
             std::to_string(kGraphJsonVersion) + ")");

  Graph g(string_field(j, "name", top), file);
  const json& tensors = array_field(j, "tensors", top);
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const json& jt = tensors[k];
    Ctx c{file, "tensors[" + std::to_string(k) + "]"};
    if (!jt.is_object()) c.fail("a tensor must be an object");
    const std::string name = string_field(jt, "name", c);
    c.node = name;
    if (g.find_tensor(name) >= 0) c.fail("duplicate tensor name");
    Tensor& t = g.tensor(g.tensor_id(name));
    for (const auto& d : array_field(jt, "shape", c)) t.shape.push_back(int_from_json(d, c, "shape"));
    const std::string dtype = string_field(jt, "dtype", c);
    t.dtype = parse_dtype(dtype);
    if (t.dtype == DType::unknown && dtype != dtype_name(DType::unknown)) c.fail("unknown dtype '" + dtype + "'");
    t.fixed_bytes = int_from_json(field(jt, "fixed_bytes", c), c, "fixed_bytes");
    t.is_graph_input = bool_field(jt, "is_graph_input", c);
    t.is_graph_output = bool_field(jt, "is_graph_output", c);
    t.is_constant = bool_field(jt, "is_constant", c);
  }

  const json& ops = array_field(j, "ops", top);
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const json& jo = ops[k];
    Ctx c{file, "ops[" + std::to_string(k) + "]"};
    if (!jo.is_object()) c.fail("an op must be an object");
    Op op;
    op.name = string_field(jo, "name", c);
    c.node = op.name;
    op.type = string_field(jo, "type", c);
    auto refs = [&](const char* key, std::vector<int>& out) {
      for (const auto& r : array_field(jo, key, c)) {
        if (!r.is_string()) c.fail(std::string("'") + key + "' must list tensor names, got " + r.dump());
        int id = g.find_tensor(r.get<std::string>());
        if (id < 0) c.fail("unknown tensor '" + r.get<std::string>() + "' in " + key + " (not in \"tensors\")");
        out.push_back(id);
      }
    };
    refs("inputs", op.inputs);
    refs("outputs", op.outputs);
    const json& attrs = field(jo, "attrs", c);
    if (!attrs.is_object()) c.fail("'attrs' must be an object");
    for (const auto& [key, v] : attrs.items()) op.attrs[key] = attr_from_json(v, c, key);
    op.flops = double_from_json(field(jo, "flops", c), c, "flops");
    op.macs = double_from_json(field(jo, "macs", c), c, "macs");
    op.weight_bytes = int_from_json(field(jo, "weight_bytes", c), c, "weight_bytes");
    op.bytes_accessed = int_from_json(field(jo, "bytes_accessed", c), c, "bytes_accessed");
    g.add_op(std::move(op));
  }
  g.finalize();
  return g;
}

Graph read_graph_json(const std::string& path) {
  nlohmann::json j = read_json_file(path);
  return graph_from_json(j, path);
}

}  // namespace devplace
