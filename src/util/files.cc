#include "util/files.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "util/error.h"

namespace devplace {

std::string home_dir() {
  if (const char* h = std::getenv("DEVPLACE_HOME"); h && *h) return h;
#ifdef DEVPLACE_SOURCE_DIR
  return DEVPLACE_SOURCE_DIR;
#else
  return ".";
#endif
}

std::string shared_dir() { return home_dir() + "/../shared"; }

bool file_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path, "", "is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path, "", std::string("cannot open: ") + std::strerror(errno),
                errno == ENOENT ? ErrorKind::not_found : ErrorKind::io);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  if (target.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path, "", std::string("cannot write: ") + std::strerror(errno), ErrorKind::io);
    out << content;
    out.flush();
    if (!out) throw Error(path, "", "write failed (disk full?)", ErrorKind::io);
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error(path, "", "cannot rename temporary file into place", ErrorKind::io);
  }
}

}  // namespace devplace
