#include "util/log.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace devplace::log {
namespace {

TEST(Log, ScopedSinkReceivesWarningsFromManyThreadsAndRestoresThePreviousOne) {
  std::atomic<int> seen{0};
  {
    ScopedSink scoped(Sink{[&](const std::string& key, const std::string&) {
                             if (key == "k") ++seen;
                           },
                           nullptr});
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; ++t)
      workers.emplace_back([] {
        for (int i = 0; i < 250; ++i) warn("k", "message");
      });
    for (auto& w : workers) w.join();
  }
  EXPECT_EQ(seen.load(), 1000);
  // Restored: the default sink takes warnings again, not the lambda above.
  const bool was_quiet = quiet();
  set_quiet(true);
  warn("k", "message");
  flush_warnings();
  set_quiet(was_quiet);
  EXPECT_EQ(seen.load(), 1000);
}

TEST(Log, ProgressGoesToAReplacedSinkAndEndsWithDone) {
  std::vector<std::pair<std::size_t, std::string>> events;
  ScopedSink scoped(
      Sink{nullptr, [&](const std::string& label, std::size_t done, std::size_t total, const std::string& status) {
             EXPECT_EQ(label, "work");
             EXPECT_EQ(total, 3u);
             events.emplace_back(done, status);
           }});
  {
    Progress p("work", 3);
    p.update(1, "one");
    p.update(2);
  }
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], (std::pair<std::size_t, std::string>{1, "one"}));
  EXPECT_EQ(events[2], (std::pair<std::size_t, std::string>{3, "done"}));
}

}  // namespace
}  // namespace devplace::log
