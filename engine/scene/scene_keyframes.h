// The "keyframes" and "start" parts of scene files: saved states of the scene's lanes, and the one the scene
// starts from.
//
//   keyframes  optional array of {
//     name       required, non-empty, unique
//     lanes      required, non-empty array (lane 1 first, at most 4) of {
//       time       s, the clock of the state (may be negative: saved relative to the scene's own start)
//       step       whole number, the steps taken (applied forces that draw per step read it), default 0
//       bodies     array of {"name" (required, a body of the scene, each once), "position" and "orientation"
//                  [w, x, y, z] (required), "linear_velocity", "angular_velocity" (default 0), "sleeping"
//                  (default false)}; bodies left out keep the scene's state
//       servos     array of {"joint" (required: the name of a joint with a servo, or its index in "joints"), "target" (rad or m), "coordinate" (the
//                  hinge's unwrapped angle, rad; default: measured at the next step)} } }
//   start      optional: the name of a keyframe; the scene starts from its lane 1 (every lane of a comparison
//              starts there too). Without it the scene starts from its bodies as given.
// A keyframe holds the bodies' states, not the contacts a method remembers between steps (warm starts): a run
// restarted from a keyframe in a file finds its contacts afresh at its first step. (The viewer's keyframes in
// memory are whole copies of the lanes and go on bit for bit.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scene/scene_reader.h"
#include "world/world.h"

namespace cl {

// One lane's state in a keyframe.
struct KeyframeLane {
  double time = 0.0;
  int64_t step = 0;
  struct BodyState {
    int body = -1;
    Vec3 position{0, 0, 0};
    Quat orientation = Quat::Identity();
    Vec3 linear_velocity{0, 0, 0};
    Vec3 angular_velocity{0, 0, 0};
    bool sleeping = false;
  };
  std::vector<BodyState> bodies;
  struct ServoState {
    int joint = -1;
    double target = 0.0;
    double coordinate = 0.0;  // NaN: unknown
  };
  std::vector<ServoState> servos;
};

struct SceneKeyframe {
  std::string name;
  std::vector<KeyframeLane> lanes;
};

// The state of a world's lane as a keyframe keeps it: every body that is not fixed, every servo; `time_offset`
// and `step_offset` are taken off its clock (a scene saved at time t starts its clock at 0).
KeyframeLane keyframe_lane_of(const World& world, double time_offset = 0.0, int64_t step_offset = 0);
// Sets the world to the lane's state: its bodies, servos and clock, and forgets the contacts.
void apply_keyframe_lane(World& world, const KeyframeLane& lane);

// Reads "keyframes" and "start" (after the bodies and joints): the keyframes in `out`, and the index of the start
// one in *start (-1 when there is none), whose lane 1 is then applied to the world.
void read_keyframes(scene_io::Reader& r, const nlohmann::json& doc, World& world, std::vector<SceneKeyframe>& out,
                    int* start);

template <class J>
J keyframes_json_as(const World& world, const std::vector<SceneKeyframe>& keyframes);
extern template nlohmann::json keyframes_json_as<nlohmann::json>(const World&, const std::vector<SceneKeyframe>&);
extern template nlohmann::ordered_json keyframes_json_as<nlohmann::ordered_json>(const World&,
                                                                                  const std::vector<SceneKeyframe>&);

}  // namespace cl
