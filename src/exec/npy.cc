#include "exec/npy.h"

#include <cstring>
#include <regex>

#include "util/error.h"
#include "util/files.h"

namespace devplace::exec {

namespace {

struct Dtype {
  const char* descr;
  at::ScalarType type;
};
constexpr Dtype kDtypes[] = {{"<f4", at::kFloat}, {"<f8", at::kDouble}, {"<f2", at::kHalf},
                             {"<i8", at::kLong},  {"<i4", at::kInt},    {"<i2", at::kShort},
                             {"|i1", at::kChar},  {"|u1", at::kByte},   {"|b1", at::kBool}};

}  // namespace

at::Tensor read_npy(const std::string& path) {
  const std::string data = read_file(path);
  auto bad = [&](const std::string& why) { return Error(path, "", "not a readable .npy file: " + why, ErrorKind::corrupt); };
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) throw bad("no NumPy magic");
  const int major = static_cast<unsigned char>(data[6]);
  std::size_t header_len = 0, start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(data[8]) | static_cast<std::size_t>(static_cast<unsigned char>(data[9]))
                                                           << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12) throw bad("truncated header");
    for (int k = 0; k < 4; ++k)
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(data[8 + k])) << (8 * k);
    start = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (data.size() < start + header_len) throw bad("truncated header");
  const std::string header = data.substr(start, header_len);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'"))) throw bad("no descr in the header");
  const std::string descr = m[1];
  if (std::regex_search(header, std::regex("'fortran_order'\\s*:\\s*True")))
    throw bad("Fortran order (save a C-ordered array)");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)"))) throw bad("no shape in the header");
  std::vector<std::int64_t> shape;
  const std::string dims = m[1];
  const std::regex number("[0-9]+");
  for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it)
    shape.push_back(std::stoll(it->str()));
  const Dtype* dt = nullptr;
  for (const Dtype& d : kDtypes)
    if (descr == d.descr || (descr.size() == 3 && descr[0] == '=' && descr.substr(1) == std::string(d.descr).substr(1)))
      dt = &d;
  if (!dt) throw bad("dtype '" + descr + "' (supported: little-endian float16/32/64, int8/16/32/64, uint8, bool)");
  at::Tensor v = at::empty(shape, at::TensorOptions().dtype(dt->type));
  const std::size_t bytes = static_cast<std::size_t>(v.numel()) * v.element_size();
  if (data.size() - start - header_len != bytes)
    throw bad(std::to_string(data.size() - start - header_len) + " data bytes for a shape that needs " +
              std::to_string(bytes));
  if (bytes) std::memcpy(v.data_ptr(), data.data() + start + header_len, bytes);
  return v;
}

void write_npy(const std::string& path, const at::Tensor& value) {
  const at::Tensor c = value.to(at::kCPU).contiguous();
  const Dtype* dt = nullptr;
  for (const Dtype& d : kDtypes)
    if (d.type == c.scalar_type()) dt = &d;
  if (!dt) throw Error(path, "", std::string("cannot write a tensor of type ") + at::toString(c.scalar_type()), ErrorKind::unsupported);
  std::string shape = "(";
  for (std::int64_t k = 0; k < c.dim(); ++k) shape += (k ? ", " : "") + std::to_string(c.size(k));
  shape += c.dim() == 1 ? ",)" : ")";  // NumPy's tuples: (), (5,), (2, 3)
  std::string header = std::string("{'descr': '") + dt->descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(c.data_ptr()), static_cast<std::size_t>(c.numel()) * c.element_size());
  write_file_atomic(path, out);
}

}  // namespace devplace::exec
