// Command-line parsing shared by the viewer and the headless runner.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cl {

struct CommandLine {
  bool headless = false;
  bool help = false;
  bool list_solvers = false;
  bool conformance = false;                                  // --conformance: run the conformance matrix
  bool machine_speed = false;                                // --machine-speed: print the machine's slowness
  std::vector<std::string> cases;                            // --case NAME (with --conformance; repeatable)
  bool markdown = false;                                     // --list-solvers / --conformance as Markdown tables
  std::string scene;                                         // positional SCENE.json
  int steps = -1;                                            // --steps N (headless, required)
  std::string solver;                                        // --solver NAME
  double dt = 0.0;                                           // --dt H (0: the scene's)
  std::vector<double> dts;                                   // --dt LIST (with --sweep: every value)
  std::string sweep;                                         // --sweep CASE_OR_SCENE
  std::vector<int> iterations;                               // --iterations LIST (with --sweep)
  std::string out;                                           // --out FILE.csv (with --sweep)
  double duration = 2.0;                                     // --duration T, s (with --sweep of a scene)
  std::vector<std::pair<std::string, std::string>> params;   // --set name=value
  std::string metrics, trace, state;                         // output files (headless)
  std::string record;                                        // --record FILE: the run as a replay (viewer, headless)
  std::string replay;                                        // --replay FILE: play a replay (viewer, or headless)
  std::string video;                                         // --video FILE.mp4: a replay exported to video
  int fps = 60;                                              // --fps N: the exported video's frame rate
  std::string screenshot;                                    // --screenshot FILE.png (viewer)
  std::string view;                                          // --view LIST: starting view (viewer)
  int frames = 60;                                           // --frames N (viewer)
  int width = 1280, height = 720;                            // --size WxH: the window (viewer)
  std::string compare;                                       // --compare LIST: lanes without a window
  std::string lanes;                                         // --lanes LIST: lanes in the viewer
  std::uint64_t memory_budget = 0;                           // --memory-budget SIZE, bytes (0: the default)
  int threads = -1;  // --threads N: --compare's lanes (absent: all cores), or the world's threads under --headless
};

// Parses argv; on error returns false with a one-line message in *error.
bool parse_command_line(int argc, char** argv, CommandLine& out, std::string* error);
const char* usage_text();

// Prints "contactlab: <message>" on stderr (control characters escaped) and returns `code`: a command's failure.
int command_failed(const std::string& message, int code = 2);

// Runs a scene without a window. Returns the exit code: 0 ok, 2 bad input or environment (an output that cannot be
// written or would overwrite a file the run reads, out of memory), 3 the simulation failed. Every output is
// checked before the scene loads and before the first step, and replaces the earlier file only when complete.
int run_headless(const CommandLine& cmd);
// Runs the lanes of --compare without a window and prints the comparison table. Returns the exit code: 0 ok,
// 2 bad input, 3 some lane stopped (non-finite value, blow-up, too many contacts).
int run_compare(const CommandLine& cmd);
// Runs the conformance matrix (every case under every solver, or under --solver only) and prints it. Returns the
// exit code: 0 every cell passes or fails because of its method, 3 some cell fails, 2 bad input.
int run_conformance(const CommandLine& cmd);
// Runs the accuracy-against-cost sweep of --sweep and writes its CSV (to --out, else stdout). Returns the exit
// code: 0 ok (a failed run is a row with its message), 2 bad input or an output that cannot be written.
int run_sweep(const CommandLine& cmd);
// Prints how many times slower than the reference machine this one runs the CPU budgets' fixed workload now
// (engine/conformance/cpu_budget.h), as a number on stdout and a sentence on stderr. Returns 0.
int run_machine_speed();

}  // namespace cl
