// Command-line parsing shared by the viewer and the headless runner.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cl {

struct CommandLine {
  bool headless = false;
  bool help = false;
  bool list_solvers = false;
  bool markdown = false;                                     // --list-solvers as README tables
  std::string scene;                                         // positional SCENE.json
  int steps = -1;                                            // --steps N (headless, required)
  std::string solver;                                        // --solver NAME
  double dt = 0.0;                                           // --dt H (0: the scene's)
  std::vector<std::pair<std::string, std::string>> params;   // --set name=value
  std::string metrics, trace, state;                         // output files (headless)
  std::string screenshot;                                    // --screenshot FILE.png (viewer)
  std::string view;                                          // --view LIST: starting view (viewer)
  int frames = 60;                                           // --frames N (viewer)
};

// Parses argv; on error returns false with a one-line message in *error.
bool parse_command_line(int argc, char** argv, CommandLine& out, std::string* error);
const char* usage_text();

// Runs a scene without a window. Returns the exit code: 0 ok, 2 bad input, 3 non-finite simulation.
int run_headless(const CommandLine& cmd);

}  // namespace cl
