// Replays on the command line: --record FILE on a run without a window, and --replay FILE --headless.
#pragma once

#include <string>

#include "cli.h"
#include "core/output_file.h"
#include "replay/replay_file.h"

namespace cl {

// A run without a window being recorded (--record): the replay of its start, and the file it goes to, opened
// before the first step (output_plan.h) and put in place at the end.
struct HeadlessRecording {
  Replay replay;
  OutputFile file;
  bool active() const { return !replay.start.solvers.empty(); }
};

// Starts the recording of `world`, the run's world after its options (--solver, --set, --dt, --threads), from
// the scene file's text: the edits that make the scene's own start into `world`. False with *error.
bool start_headless_recording(const CommandLine& cmd, const World& world, HeadlessRecording& rec, std::string* error);
// Writes the replay (the steps taken and the state they ended in) and puts it in place. False with *error.
bool finish_headless_recording(HeadlessRecording& rec, const World& world, const std::string& stopped, std::string* error);

// --replay FILE --headless [--state OUT]: takes the replay's steps again in every lane, writes lane 1's final state,
// and checks every lane ends where the recording did. Exit 0 the same state bit for bit, 2 bad input, 3 a lane
// ended elsewhere (the messages say where) or the simulation failed where the recording did not.
int run_replay_headless(const CommandLine& cmd);

}  // namespace cl
