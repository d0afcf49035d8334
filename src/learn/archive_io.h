// Checkpoint and policy files of the learned placers (LibTorch archives, learn/ only): the
// atomic write every one of them needs, and the training log as a flat tensor.
#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <vector>

#include "learn/hsdag.h"
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

// A training log as doubles, 8 per episode, and back.
inline torch::Tensor episode_log_tensor(const std::vector<EpisodeLog>& log) {
  std::vector<double> v;
  for (const auto& e : log)
    v.insert(v.end(), {double(e.episode), e.mean_latency, e.best_latency, e.mean_reward, e.entropy, e.seconds,
                       double(e.groups), e.feasible_share});
  return torch::tensor(v, torch::kDouble);
}

inline std::vector<EpisodeLog> episode_log_from(const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  const double* l = c.data_ptr<double>();
  std::vector<EpisodeLog> log;
  for (int64_t i = 0; i + 8 <= c.numel(); i += 8) {
    EpisodeLog e;
    e.episode = int(l[i]), e.mean_latency = l[i + 1], e.best_latency = l[i + 2], e.mean_reward = l[i + 3];
    e.entropy = l[i + 4], e.seconds = l[i + 5], e.groups = int(l[i + 6]), e.feasible_share = l[i + 7];
    log.push_back(e);
  }
  return log;
}

}  // namespace devplace
