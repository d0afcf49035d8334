// Checkpoint and policy files of the learned placers (LibTorch archives, learn/ only): the
// atomic write every one of them needs, the training log as a flat tensor, and the one
// checkpoint format every trainer writes (its own fields beside the shared ones).
#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "learn/rl/training_result.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {

// Writes `ar` to `path` through a temporary file and a rename, creating the folder: a crash
// leaves the previous file intact.
inline void save_archive_atomically(torch::serialize::OutputArchive& ar, const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  const std::string tmp = path + ".tmp";
  ar.save_to(tmp);
  std::filesystem::rename(tmp, path);
}

// Opens the policy archive at `path` into `ar` and returns its "format" entry. Errors name the
// file: `missing` when there is none ("no such policy file (devplace pretrain writes one)"),
// `not_one` when it is not a LibTorch archive with a format entry.
inline torch::Tensor open_policy_archive(const std::string& path, torch::serialize::InputArchive& ar,
                                         const std::string& missing, const std::string& not_one) {
  if (!file_exists(path)) throw Error(path, "", missing);
  torch::Tensor format;
  try {
    ar.load_from(path);
    ar.read("format", format);
  } catch (const c10::Error&) {
    throw Error(path, "", not_one);
  }
  return format;
}

// A training log as doubles, one row of 11 per episode, and back. Checkpoints written before the
// join column hold rows of 10, and those written before the stay and sibling columns a flat
// tensor of 8 per episode: those read back without the columns they lack.
inline torch::Tensor episode_log_tensor(const std::vector<EpisodeLog>& log) {
  std::vector<double> v;
  for (const auto& e : log)
    v.insert(v.end(), {double(e.episode), e.mean_latency, e.best_latency, e.mean_reward, e.entropy, e.seconds,
                       double(e.groups), e.feasible_share, e.stay, e.sibling, e.join});
  return torch::tensor(v, torch::kDouble).view({static_cast<int64_t>(log.size()), 11});
}

inline std::vector<EpisodeLog> episode_log_from(const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  const int64_t fields = c.dim() == 2 ? c.size(1) : 8;
  const double* l = c.data_ptr<double>();
  std::vector<EpisodeLog> log;
  for (int64_t i = 0; fields >= 8 && i + fields <= c.numel(); i += fields) {
    EpisodeLog e;
    e.episode = int(l[i]), e.mean_latency = l[i + 1], e.best_latency = l[i + 2], e.mean_reward = l[i + 3];
    e.entropy = l[i + 4], e.seconds = l[i + 5], e.groups = int(l[i + 6]), e.feasible_share = l[i + 7];
    if (fields >= 10) e.stay = l[i + 8], e.sibling = l[i + 9];
    if (fields >= 11) e.join = l[i + 10];
    log.push_back(e);
  }
  return log;
}

// Reads a checkpoint's entries by key, each into a fresh tensor (reading into one that holds
// storage tries to resize it).
class CheckpointReader {
 public:
  explicit CheckpointReader(torch::serialize::InputArchive& ar) : ar_(ar) {}
  torch::Tensor tensor(const char* key) {
    torch::Tensor t;
    ar_.read(key, t);
    return t.contiguous();
  }
  std::vector<double> doubles(const char* key) {
    const torch::Tensor t = tensor(key);
    return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
  }

 private:
  torch::serialize::InputArchive& ar_;
};

// A trainer's checkpoint: the network, the optimiser, the episodes completed, LibTorch's default
// generator and the log, plus what `own` writes (the trainer's own fields), written atomically.
inline void save_checkpoint(const std::string& path, torch::nn::Module& net, torch::optim::Optimizer& opt,
                            int episode, const std::vector<EpisodeLog>& log,
                            const std::function<void(torch::serialize::OutputArchive&)>& own) {
  torch::serialize::OutputArchive ar, model_ar, opt_ar;
  net.save(model_ar);
  opt.save(opt_ar);
  ar.write("model", model_ar);
  ar.write("optimizer", opt_ar);
  ar.write("episode", torch::tensor(static_cast<int64_t>(episode)));
  ar.write("torch_rng", at::detail::getDefaultCPUGenerator().get_state());
  ar.write("log", episode_log_tensor(log));
  own(ar);
  save_archive_atomically(ar, path);
}

// Loads the checkpoint at `path` written by save_checkpoint; false when there is none. `own`
// reads the trainer's fields first (and throws Error when they belong to another graph or
// method), then the network, optimiser and the rest are restored. Throws Error (corrupt) naming
// the file when it does not parse.
inline bool load_checkpoint(const std::string& path, torch::nn::Module& net, torch::optim::Optimizer& opt,
                            int& episode, std::vector<EpisodeLog>& log,
                            const std::function<void(CheckpointReader&)>& own) {
  if (!std::filesystem::exists(path)) return false;
  try {
    torch::serialize::InputArchive ar, model_ar, opt_ar;
    ar.load_from(path);
    CheckpointReader read(ar);
    own(read);
    ar.read("model", model_ar);
    net.load(model_ar);
    ar.read("optimizer", opt_ar);
    opt.load(opt_ar);
    episode = static_cast<int>(read.tensor("episode").item<int64_t>());
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    gen.set_state(read.tensor("torch_rng"));
    log = episode_log_from(read.tensor("log"));
  } catch (const c10::Error& e) {
    throw Error(path, "", std::string("corrupt or incompatible checkpoint: ") + e.what_without_backtrace(),
                ErrorKind::corrupt);
  }
  return true;
}

}  // namespace devplace
