#include "replay/replay_file.h"

#include "compare/lanes.h"
#include "core/text.h"
#include "scene/scene_reader.h"

namespace cl {

namespace {

using json = nlohmann::json;

constexpr size_t kMaxReplayBytes = size_t(1) << 30;  // a replay file larger than 1 GiB is refused unread

}  // namespace

std::string replay_to_text(const Replay& r) {
  const auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string text = "{\n";
  const auto field = [&](const char* key, const json& value) { text += " \"" + std::string(key) + "\": " + dump(value) + ",\n"; };
  field("contactlab_replay", kReplayFormat);
  field("scene_file", r.start.scene_file);
  field("solvers", r.start.solvers);
  if (!r.start.keyframe.empty()) field("keyframe", r.start.keyframe);
  field("steps", r.steps);
  json ends = json::array();
  for (const LaneEnd& e : r.ends) {
    json l = {{"step", e.step}, {"time", e.time}, {"hash", hash_text(e.hash)}};
    if (!e.error.empty()) l["error"] = e.error;
    ends.push_back(l);
  }
  field("ends", ends);
  // One edit a line: a long run stays readable and diffable.
  text += " \"edits\": [";
  for (size_t i = 0; i < r.edits.size(); ++i) text += (i ? ",\n  " : "\n  ") + dump(json(edit_to_json(r.edits[i])));
  text += r.edits.empty() ? "],\n" : "\n ],\n";
  text += " \"scene\": " + dump(r.start.scene_text) + "\n}\n";
  return text;
}

bool parse_replay_text(std::string_view text, const std::string& label, Replay& out, std::string* error) {
  const auto fail = [&](const std::string& what) {
    if (error) *error = label + ": " + what;
    return false;
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("not a replay file (not a JSON object)");
  if (!j.contains("contactlab_replay")) {
    if (j.contains("format") && j.contains("bodies"))
      return fail("this is a scene file, not a replay: open it as a scene (contactlab SCENE.json)");
    return fail("not a replay file (no \"contactlab_replay\" format number)");
  }
  const nlohmann::json& format = j["contactlab_replay"];
  if (!format.is_number_integer()) return fail("/contactlab_replay: expected the replay format number");
  const int f = format.get<int>();
  if (f > kReplayFormat)
    return fail("written in replay format " + std::to_string(f) + " by a newer ContactLab; this version reads format " +
                std::to_string(kReplayFormat) + ": open it with the version that recorded it");
  if (f < kReplayFormat)
    return fail("written in replay format " + std::to_string(f) + " by an older ContactLab; this version reads format " +
                std::to_string(kReplayFormat) + " only: record the run again");
  Replay r;
  const auto string_of = [&](const char* key, std::string& to, bool required) {
    if (!j.contains(key)) return !required;
    if (!j[key].is_string()) return false;
    to = j[key].get<std::string>();
    return true;
  };
  if (!string_of("scene_file", r.start.scene_file, true)) return fail("/scene_file: expected the scene file's name");
  if (!string_of("scene", r.start.scene_text, true)) return fail("/scene: expected the scene file's text");
  if (!string_of("keyframe", r.start.keyframe, false)) return fail("/keyframe: expected a keyframe's name");
  if (!j.contains("solvers") || !j["solvers"].is_array() || j["solvers"].empty() || j["solvers"].size() > size_t(kMaxLanes))
    return fail("/solvers: expected each lane's method, 1 to " + std::to_string(kMaxLanes) + " names");
  for (const auto& s : j["solvers"]) {
    if (!s.is_string()) return fail("/solvers: expected method names");
    r.start.solvers.push_back(s.get<std::string>());
  }
  if (!j.contains("steps") || !j["steps"].is_number_integer() || j["steps"].get<int64_t>() < 0)
    return fail("/steps: expected the number of steps recorded");
  r.steps = j["steps"].get<int64_t>();
  if (!j.contains("ends") || !j["ends"].is_array() || j["ends"].size() != r.start.solvers.size())
    return fail("/ends: expected the end of each lane");
  for (size_t i = 0; i < j["ends"].size(); ++i) {
    const auto& e = j["ends"][i];
    LaneEnd end;
    const std::string at = "/ends/" + std::to_string(i);
    if (!e.is_object() || !e.contains("step") || !e["step"].is_number_integer() || !e.contains("time") ||
        !e["time"].is_number() || !e.contains("hash") || !e["hash"].is_string())
      return fail(at + ": expected {\"step\", \"time\", \"hash\"}");
    end.step = e["step"].get<int64_t>();
    end.time = e["time"].get<double>();
    const std::string hash = e["hash"].get<std::string>();
    size_t used = 0;
    try {
      end.hash = std::stoull(hash, &used, 16);
    } catch (...) {
      used = 0;
    }
    if (used != hash.size() || hash.empty()) return fail(at + "/hash: expected 16 hexadecimal digits");
    if (e.contains("error")) {
      if (!e["error"].is_string()) return fail(at + "/error: expected a message");
      end.error = e["error"].get<std::string>();
    }
    r.ends.push_back(end);
  }
  if (!j.contains("edits") || !j["edits"].is_array()) return fail("/edits: expected the list of edits");
  int64_t last = 0;
  for (size_t i = 0; i < j["edits"].size(); ++i) {
    Edit e;
    std::string why;
    if (!edit_from_json(j["edits"][i], "/edits/" + std::to_string(i), e, &why)) return fail(why);
    if (e.step < last || e.lane >= int(r.start.solvers.size()))
      return fail("/edits/" + std::to_string(i) + ": out of step order, or a lane the replay does not have");
    last = e.step;
    r.edits.push_back(std::move(e));
  }
  out = std::move(r);
  return true;
}

bool read_replay_file(const std::string& path, Replay& out, std::string* error) {
  std::string text, why;
  if (!read_text_file(path, kMaxReplayBytes, "replay file", text, why)) {
    if (error) *error = why;
    return false;
  }
  return parse_replay_text(text, path, out, error);
}

bool make_start_lanes(const World& scene, const std::vector<SceneKeyframe>& keyframes, const ReplayStart& start,
                      std::vector<World>& lanes, std::string* error) {
  const SceneKeyframe* key = nullptr;
  if (!start.keyframe.empty()) {
    for (const SceneKeyframe& k : keyframes)
      if (k.name == start.keyframe) key = &k;
    if (!key) {
      if (error) *error = "the scene has no keyframe '" + start.keyframe + "'";
      return false;
    }
  }
  lanes.assign(start.solvers.size(), World());
  for (size_t i = 0; i < start.solvers.size(); ++i) {
    if (!make_lane(scene, LaneSpec{start.solvers[i], {}}, lanes[i], error)) {
      if (error) *error = "lane " + std::to_string(i + 1) + ": " + *error;
      return false;
    }
    // A keyframe of fewer lanes gives the others its last lane.
    if (key) apply_keyframe_lane(lanes[i], key->lanes[std::min(i, key->lanes.size() - 1)]);
  }
  return true;
}

bool start_edits(const World& scene, const std::vector<SceneKeyframe>& keyframes, const ReplayStart& start,
                 std::span<const World* const> lanes, std::vector<Edit>& out, std::string* error) {
  std::vector<World> from;
  if (!make_start_lanes(scene, keyframes, start, from, error)) return false;
  for (size_t i = 0; i < lanes.size() && i < from.size(); ++i) {
    Edit e;
    e.step = lanes[0]->step_count();
    e.lane = int(i);
    // The keyframe's clock is the run's: what a replay cannot set by an edit must already agree.
    if (from[i].step_count() != lanes[i]->step_count() || from[i].time() != lanes[i]->time()) {
      if (error) *error = "lane " + std::to_string(i + 1) + " is not at the start of its scene or keyframe";
      return false;
    }
    if (diff_worlds(from[i], *lanes[i], e)) out.push_back(std::move(e));
  }
  return true;
}

int record_edits(std::span<const World> before, std::span<World* const> now, const std::vector<std::string>& errors,
                 std::vector<Edit>& edits) {
  int added = 0;
  for (size_t i = 0; i < now.size() && i < before.size(); ++i) {
    if (i < errors.size() && !errors[i].empty()) continue;
    Edit e;
    e.step = now[0]->step_count();
    e.lane = int(i);
    if (diff_worlds(before[i], *now[i], e)) {
      edits.push_back(std::move(e));
      ++added;
    }
  }
  return added;
}

void drop_edits_from(std::vector<Edit>& edits, int64_t step) {
  while (!edits.empty() && edits.back().step >= step) edits.pop_back();
}

void finish_replay(Replay& replay, std::span<const World* const> lanes, const std::vector<std::string>& errors) {
  replay.steps = lanes.empty() ? 0 : lanes[0]->step_count();
  replay.ends.clear();
  for (size_t i = 0; i < lanes.size(); ++i)
    replay.ends.push_back({lanes[i]->step_count(), lanes[i]->time(), state_hash(*lanes[i]), i < errors.size() ? errors[i] : ""});
}

bool apply_edits_of_step(const std::vector<Edit>& edits, size_t& next, std::vector<World*> lanes,
                         const std::vector<std::string>& errors, std::string* error) {
  if (lanes.empty()) return true;
  const int64_t step = lanes[0]->step_count();
  while (next < edits.size() && edits[next].step < step) ++next;  // of steps already taken (a resumed replay)
  for (; next < edits.size() && edits[next].step == step; ++next) {
    const Edit& e = edits[next];
    if (e.lane < 0 || size_t(e.lane) >= lanes.size()) continue;
    if (size_t(e.lane) < errors.size() && !errors[size_t(e.lane)].empty()) continue;
    if (!apply_edit(*lanes[size_t(e.lane)], e, error)) {
      if (error) *error = "the edit of lane " + std::to_string(e.lane + 1) + " at step " + std::to_string(step) + ": " + *error;
      return false;
    }
  }
  return true;
}

bool ReplayPlayer::begin(const Replay& replay, std::string* error) {
  replay_ = &replay;
  next_edit_ = 0;
  scene_ = load_scene_text(replay.start.scene_text, replay.start.scene_file);
  if (!scene_.ok()) {
    if (error) *error = scene_.error;
    return false;
  }
  if (!make_start_lanes(scene_.world, scene_.keyframes, replay.start, lanes_, error)) return false;
  errors_.assign(lanes_.size(), std::string());
  return true;
}

bool ReplayPlayer::done() const {
  return !replay_ || lanes_.empty() || lanes_[0].step_count() >= replay_->steps || !errors_[0].empty();
}

bool ReplayPlayer::step(TaskPool& pool, std::string* error) {
  if (done()) return false;
  std::vector<World*> all;
  for (World& w : lanes_) all.push_back(&w);
  if (!apply_edits_of_step(replay_->edits, next_edit_, all, errors_, error)) return false;
  std::vector<World*> running;
  std::vector<size_t> index;
  for (size_t i = 0; i < lanes_.size(); ++i)
    if (errors_[i].empty()) {
      running.push_back(&lanes_[i]);
      index.push_back(i);
    }
  std::vector<StepResult> results(running.size());
  step_lockstep(running, pool, results);
  for (size_t k = 0; k < results.size(); ++k)
    if (!results[k].ok) errors_[index[k]] = results[k].error.empty() ? "the step produced non-finite values" : results[k].error;
  return true;
}

bool ReplayPlayer::matches_recording(std::string* differences) const {
  bool same = replay_ && replay_->ends.size() == lanes_.size();
  std::string lines;
  for (size_t i = 0; replay_ && i < lanes_.size() && i < replay_->ends.size(); ++i) {
    const LaneEnd& want = replay_->ends[i];
    const World& w = lanes_[i];
    const uint64_t got = state_hash(w);
    if (w.step_count() == want.step && w.time() == want.time && got == want.hash) continue;
    same = false;
    lines += "lane " + std::to_string(i + 1) + " (" + std::string(w.solver().name()) + "): recorded step " +
             std::to_string(want.step) + ", state " + hash_text(want.hash) + "; replayed step " +
             std::to_string(w.step_count()) + ", state " + hash_text(got) + "\n";
  }
  if (differences) *differences = lines;
  return same;
}

}  // namespace cl
