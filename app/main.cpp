// contactlab: the viewer, or with --headless the same scenes without a window.
// Exit codes: 0 ok, 2 bad input or environment, 3 the simulation failed; never anything else (see usage_text).
#include <cstdio>
#include <exception>
#include <new>

#include "cli.h"
#include "cli_replay.h"
#include "core/output_file.h"
#include "scene/mesh_source.h"
#include "viewer/viewer.h"

int main(int argc, char** argv) {
  try {
    cl::CommandLine cmd;
    std::string error;
    if (!cl::parse_command_line(argc, argv, cmd, &error)) {
      std::fprintf(stderr, "contactlab: %s\n(run 'contactlab --help' for usage)\n", error.c_str());
      return 2;
    }
    if (cmd.help) {
      std::fputs(cl::usage_text(), stdout);
      return 0;
    }
    // Ctrl-C or a kill while an output is being written leaves the earlier file, and no temporary one.
    cl::install_output_cleanup();
    if (cmd.memory_budget > 0) cl::set_memory_budget(cmd.memory_budget);
    if (cmd.machine_speed) return cl::run_machine_speed();
    if (cmd.conformance) return cl::run_conformance(cmd);
    if (!cmd.sweep.empty()) return cl::run_sweep(cmd);
    if (!cmd.compare.empty()) return cl::run_compare(cmd);
    if (cmd.headless && !cmd.replay.empty()) return cl::run_replay_headless(cmd);
    if (cmd.headless || cmd.list_solvers) return cl::run_headless(cmd);

    cl::ViewerOptions options;
    options.scene_path = cmd.scene;
    options.solver = cmd.solver;
    options.params = cmd.params;
    options.dt = cmd.dt;
    options.screenshot_path = cmd.screenshot;
    options.frames = cmd.frames;
    options.width = cmd.width;
    options.height = cmd.height;
    options.view = cmd.view;
    options.lanes = cmd.lanes;
    options.record_path = cmd.record;
    options.replay_path = cmd.replay;
    options.video_path = cmd.video;
    options.video_fps = cmd.fps;
    return cl::run_viewer(options);
  } catch (const std::bad_alloc&) {
    // The modes catch this where they know the file and the step; this is the last resort.
    std::fprintf(stderr, "contactlab: out of memory (see --memory-budget and the scene's /max_contacts)\n");
    return 2;
  } catch (const std::exception& e) {
    // Nothing should throw this far; if something does, say so instead of aborting (and never exit 1).
    std::fprintf(stderr, "contactlab: internal error: %s\n", e.what());
    return 2;
  }
}
