// `devplace conformance [DATA]`: the ONNX backend test suite against the executor
// (exec/conformance.h). Prints the totals, a Markdown table of tests run and passed per op type
// (a test counts for every op type in it), and each failure; `--report FILE` writes the table
// too. With `--known-failures FILE` (a test name per line, `#` comments) it fails when a test
// outside the list fails or a listed one passes or is gone, so the list stays exact.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cli/command_list.h"
#include "exec/conformance.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace::cli {

namespace {

std::set<std::string> read_known_failures(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path, "", "cannot read the list of known failures", ErrorKind::io);
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const auto b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
    if (b != std::string::npos) names.insert(line.substr(b, e - b + 1));
  }
  return names;
}

std::string report(const std::vector<ConformanceCase>& cases, const std::string& root) {
  struct Count {
    int run = 0, passed = 0, unsupported = 0;
  };
  std::map<std::string, Count> per_op;
  int passed = 0, failed = 0, unsupported = 0;
  for (const auto& c : cases) {
    using S = ConformanceCase::Status;
    passed += c.status == S::passed, failed += c.status == S::failed, unsupported += c.status == S::unsupported;
    for (const auto& t : c.op_types) {
      Count& n = per_op[t];
      if (c.status == S::unsupported) {
        ++n.unsupported;
      } else {
        ++n.run;
        n.passed += c.status == S::passed;
      }
    }
  }
  std::ostringstream s;
  s << "ONNX backend tests in " << root << ": " << cases.size() << " tests, " << passed + failed
    << " with only supported ops: " << passed << " passed, " << failed << " failed; " << unsupported
    << " use an unsupported op\n\n";
  s << "| op type | tests run | passed | not run (another op unsupported) |\n|---|---|---|---|\n";
  for (const auto& [op, n] : per_op)
    if (n.run > 0) s << "| " << op << " | " << n.run << " | " << n.passed << " | " << n.unsupported << " |\n";
  // The op types that kept tests from running, most wanted first (from each test's detail).
  std::map<std::string, int> missing;
  for (const auto& c : cases)
    if (c.status == ConformanceCase::Status::unsupported) {
      std::istringstream list(c.detail);
      for (std::string t; std::getline(list, t, ',');) ++missing[t.substr(t.find_first_not_of(' '))];
    }
  std::vector<std::pair<int, std::string>> wanted;
  for (const auto& [t, n] : missing) wanted.emplace_back(-n, t);
  std::sort(wanted.begin(), wanted.end());
  s << "\nUnsupported op types (" << wanted.size() << "), with the tests that use them:";
  for (std::size_t k = 0; k < wanted.size(); ++k) s << (k ? ", " : " ") << wanted[k].second << " " << -wanted[k].first;
  s << "\n\nFailures:\n";
  for (const auto& c : cases)
    if (c.status == ConformanceCase::Status::failed) s << "- " << c.name << ": " << c.detail << "\n";
  return s.str();
}

}  // namespace

void add_conformance_command(CLI::App& app) {
  struct Args {
    std::string data = "/usr/share/libonnx-testdata/data";
    std::string filter, report_path, known_failures;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("conformance", "Run the ONNX backend test suite on the executor");
  cmd->add_option("data", a->data, "The suite's data folder (default: Debian's libonnx-testdata)");
  cmd->add_option("--filter", a->filter, "Only tests whose name contains this");
  cmd->add_option("--report", a->report_path, "Also write the report (Markdown) here");
  cmd->add_option("--known-failures", a->known_failures,
                  "Tests expected to fail (a name per line); fail on any other failure or a listed pass");
  cmd->callback([a] {
    ConformanceOptions o;
    o.filter = a->filter;
    const std::vector<ConformanceCase> cases = run_conformance(a->data, o);
    const std::string text = report(cases, a->data);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    if (!a->report_path.empty()) write_file_atomic(a->report_path, text);
    if (a->known_failures.empty()) return;
    std::set<std::string> known = read_known_failures(a->known_failures);
    std::vector<std::string> problems;
    for (const auto& c : cases) {
      const bool listed = known.erase(c.name) > 0;
      if (c.status == ConformanceCase::Status::failed && !listed) problems.push_back(c.name + " failed");
      if (c.status != ConformanceCase::Status::failed && listed)
        problems.push_back(c.name + " is listed as failing but " +
                           (c.status == ConformanceCase::Status::passed ? "passed" : "was not run"));
    }
    if (a->filter.empty())
      for (const auto& name : known) problems.push_back(name + " is listed but not in the suite");
    if (!problems.empty()) {
      std::string all;
      for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
      throw Error(a->known_failures, "", all);
    }
  });
}

}  // namespace devplace::cli
