#include "cli_replay.h"

#include <cstdio>
#include <new>

#include "core/output_plan.h"
#include "core/text.h"
#include "scene/mesh_source.h"
#include "scene/scene.h"
#include "scene/scene_reader.h"

namespace cl {

bool start_headless_recording(const CommandLine& cmd, const World& world, HeadlessRecording& rec, std::string* error) {
  std::string text, why;
  if (!read_text_file(cmd.scene, scene_io::kMaxSceneBytes, "scene file", text, why)) {
    if (error) *error = why;
    return false;
  }
  // The scene as the file gives it, before the options: what a replay starts from.
  const SceneLoadResult scene = load_scene_text(text, cmd.scene);
  if (!scene.ok()) {
    if (error) *error = scene.error;
    return false;
  }
  rec.replay = Replay{};
  rec.replay.start = {cmd.scene, text, {std::string(world.solver().name())}, ""};
  const World* lanes[] = {&world};
  if (!start_edits(scene.world, scene.keyframes, rec.replay.start, lanes, rec.replay.edits, error)) {
    if (error) *error = "--record: " + *error;
    rec.replay.start.solvers.clear();
    return false;
  }
  return rec.file.open(cmd.record, "replay file", *error);
}

bool finish_headless_recording(HeadlessRecording& rec, const World& world, const std::string& stopped, std::string* error) {
  const World* lanes[] = {&world};
  finish_replay(rec.replay, lanes, {stopped});
  return rec.file.write(replay_to_text(rec.replay), *error) && rec.file.finish(*error) && rec.file.publish(*error);
}

int run_replay_headless(const CommandLine& cmd) {
  OutputPlan plan;
  plan.read("--replay", cmd.replay);
  if (!cmd.state.empty()) plan.write("--state", cmd.state);
  std::string error;
  if (!plan.check(error)) return command_failed(error);
  Replay replay;
  if (!read_replay_file(cmd.replay, replay, &error)) return command_failed(error);
  ReplayPlayer player;
  try {
    if (!player.begin(replay, &error)) return command_failed(cmd.replay + ": " + error);
  } catch (const std::bad_alloc&) {
    return command_failed(cmd.replay + ": out of memory while loading the scene (see --memory-budget)");
  }
  // The meshes the replay's scene reads (beside the scene file it names) are inputs too.
  for (const ReadFile& f : mesh_files_read(player.scene().world, replay.start.scene_file)) plan.read(f.role, f.path);
  if (!plan.check_identities(error)) return command_failed(error);
  OutputFile state;
  if (!cmd.state.empty() && !state.open(cmd.state, "state file", error)) return command_failed(error);
  TaskPool pool(cmd.threads >= 0 ? cmd.threads : 1);
  try {
    while (player.step(pool, &error)) {
    }
  } catch (const std::bad_alloc&) {
    return command_failed(cmd.replay + ": out of memory at step " + std::to_string(player.lanes()[0].step_count() + 1));
  }
  if (!error.empty()) return command_failed(cmd.replay + ": " + error);
  if (!cmd.state.empty() &&
      !(state.write(state_to_json(player.lanes()[0]).dump(2) + "\n", error) && state.finish(error) && state.publish(error)))
    return command_failed(error);
  std::string differences;
  const bool same = player.matches_recording(&differences);
  const std::vector<World>& lanes = player.lanes();
  std::printf("replayed %s: %lld steps in %zu lane%s, %zu edits\n", escape_for_message(cmd.replay).c_str(),
              (long long)lanes[0].step_count(), lanes.size(), lanes.size() == 1 ? "" : "s", replay.edits.size());
  for (size_t i = 0; i < lanes.size(); ++i)
    std::printf("  lane %zu (%s): step %lld, t = %.6g s, state %s%s%s\n", i + 1, std::string(lanes[i].solver().name()).c_str(),
                (long long)lanes[i].step_count(), lanes[i].time(), hash_text(state_hash(lanes[i])).c_str(),
                player.errors()[i].empty() ? "" : ", stopped: ", escape_for_message(player.errors()[i]).c_str());
  if (!same) {
    command_failed(cmd.replay + ": the replay did not end where the recording did", 3);
    std::fputs(differences.c_str(), stderr);
    return 3;
  }
  std::printf("the same final state as recorded, bit for bit, in every lane\n");
  return 0;
}

}  // namespace cl
