// The training service's checks (service/training_run.h): one copy, made before anything
// measures, for the CLI, the C++ API and Python alike.
#include "service/training_run.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace devplace {
namespace {

ErrorKind refused(const TrainingRun& run, bool measured) {
  try {
    check_training_run(run, measured);
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return ErrorKind::io;
}

TEST(TrainingRun, RefusesCombinationsThatCannotWork) {
  TrainingRun run;
  EXPECT_NO_THROW(check_training_run(run, false));
  EXPECT_NO_THROW(check_training_run(run, true));  // HSDAG on measurements
  run.hsdag.resume = true;  // nothing to resume from
  EXPECT_EQ(refused(run, false), ErrorKind::invalid_argument);
  run.hsdag.checkpoint_dir = "ckpt";
  EXPECT_NO_THROW(check_training_run(run, false));
  run.learner = Learner::peer, run.peer.algo = PeerMethod::rnn;
  EXPECT_EQ(refused(run, true), ErrorKind::invalid_argument);  // a measured reward trains hsdag and learned only
  run.peer.resume = true;
  EXPECT_EQ(refused(run, false), ErrorKind::invalid_argument);
  run.peer.resume = false;
  run.objective = Objective::tarnawski;
  run.learner = Learner::hsdag;
  EXPECT_EQ(refused(run, true), ErrorKind::invalid_argument);
  run.peer.init_policy = "placeto.pt", run.learner = Learner::peer;  // a start policy is Placeto's only
  run.objective = Objective::simulator;
  EXPECT_EQ(refused(run, false), ErrorKind::invalid_argument);
  run.peer.algo = PeerMethod::placeto;
  EXPECT_NO_THROW(check_training_run(run, false));
  PeerMethod peer = PeerMethod::rnn;
  EXPECT_EQ(learner_from_name("placeto", &peer), Learner::peer);
  EXPECT_EQ(peer, PeerMethod::placeto);
  EXPECT_EQ(learner_from_name("learned"), Learner::learned);
  try {
    learner_from_name("no-such-learner");
    ADD_FAILURE() << "accepted an unknown learner";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::not_found);
  }
}

}  // namespace
}  // namespace devplace
