// contactlab: the viewer, or with --headless the same scenes without a window.
#include <cstdio>
#include <exception>

#include "cli.h"
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
    if (cmd.conformance) return cl::run_conformance(cmd);
    if (!cmd.compare.empty()) return cl::run_compare(cmd);
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
    return cl::run_viewer(options);
  } catch (const std::exception& e) {
    // Nothing should throw this far; if something does, say so instead of aborting.
    std::fprintf(stderr, "contactlab: internal error: %s\n", e.what());
    return 1;
  }
}
