// What changes in a world between two of its steps, as data: the edits a replay writes and applies again.
//
// A World is a value, so what the user does between two steps (drags a body, holds a servo key, edits a material,
// a joint, a script, a parameter, the method, dt; a click that wakes a body) shows as a difference between the
// world as its last step left it and the world that takes the next step. diff_worlds finds that difference,
// whatever panel or key made it, as the whole new value of each part that changed; apply_edit puts it on a world
// again. A world replayed from the same start with the same edits before the same steps takes the same steps bit
// for bit, since stepping is deterministic (world/world.h).
//
// Every number is kept exactly: a part is written as the list of its fields' values (body_fields and the like in
// edits.cpp give the order, which the replay format's number names), each double as JSON writes it (shortest
// round trip), the non-finite ones as "inf", "-inf", "nan".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "world/world.h"

namespace cl {

// One lane's edits before one step. Each part present holds the whole new value of what changed.
struct Edit {
  int64_t step = 0;  // applied when the lane has taken this many steps, before the next one
  int lane = 0;      // from 0 (lane 1 is the scene's own)
  std::vector<std::pair<int, std::vector<double>>> bodies;  // changed bodies: index, fields (state, mass, sleep)
  std::vector<std::pair<int, std::vector<double>>> joints;  // changed joints: index, fields (frames, limit, motor, servo)
  std::optional<std::vector<double>> settings;              // WorldSettings (gravity, dt, margin, limits, threads)
  std::optional<std::vector<double>> drag;                  // the mouse spring (body -1: none)
  std::optional<std::vector<Material>> materials;
  std::optional<std::vector<Script>> scripts;
  std::optional<std::string> solver;          // a new solver of this method (World::set_solver ran)
  std::optional<std::vector<double>> params;  // every parameter value of the active method
  bool reset_contacts = false;                // World::reset_contacts ran (a teleport)
  // What kinds of change it holds, for people (the timeline, the file): "drag", "servo" (a target alone),
  // "joint", "wake" (a body's sleep alone), "body", "material", "script", "settings", "method", "parameters",
  // "contacts", comma separated. Not read back.
  std::string what;

  bool empty() const;
};

// The edits that make `after` from `before` (the same world a step later or earlier in the user's hands: the same
// bodies and joints), with `out.step` and `out.lane` left as they are. False when nothing differs.
bool diff_worlds(const World& before, const World& after, Edit& out);

// Puts the edit on the world. False with *error when it does not fit (an index out of range, a field list of
// another length, a method the world refuses); the world may then be partly edited.
bool apply_edit(World& world, const Edit& edit, std::string* error);

nlohmann::json edit_to_json(const Edit& edit);
// False with *error (naming the JSON path under `where`) for anything edit_to_json does not write.
bool edit_from_json(const nlohmann::json& j, const std::string& where, Edit& out, std::string* error);

// A fingerprint of a world's state: FNV-1a over the bits of every body's fields (pose, velocities, mass, sleep),
// every joint's fields, the time and the step count. Two worlds with the same hash took the same steps (up to a
// collision of 64-bit hashes).
uint64_t state_hash(const World& world);
// As 16 hexadecimal digits.
std::string hash_text(uint64_t hash);

}  // namespace cl
