#include "cli.h"
#include "cli_replay.h"
#include "solvers/registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <new>
#include <string_view>
#include <thread>

#include "compare/lanes.h"
#include "compare/summary.h"
#include "conformance/accuracy.h"
#include "conformance/cpu_budget.h"
#include "conformance/matrix.h"
#include "core/output_file.h"
#include "core/output_plan.h"
#include "core/text.h"
#include "scene/mesh_source.h"
#include "scene/scene.h"
#include "telemetry/telemetry.h"
#include "viewer/session.h"
#include "world/world.h"

namespace cl {

const char* usage_text() {
  return "usage:\n"
         "  contactlab [SCENE.json] [--solver NAME] [--dt H] [--set name=value]...\n"
         "             [--screenshot FILE.png [--frames N]] [--view LIST] [--size WxH] [--record FILE]\n"
         "  contactlab --headless SCENE.json --steps N [--solver NAME] [--dt H] [--set name=value]...\n"
         "             [--metrics FILE.csv] [--trace FILE.json] [--state FILE.json] [--threads N] [--record FILE]\n"
         "  contactlab --replay FILE [--headless [--state FILE.json] [--threads N]] [--video FILE.mp4 [--fps N]]\n"
         "             play a recorded run (--record FILE) in the viewer with its timeline, without a window\n"
         "             checking it ends in the recorded state, or into a video timed by simulated time\n"
         "  contactlab --compare SOLVER,SOLVER[,...]|all SCENE.json --steps N [--dt H] [--set LANE.name=value]...\n"
         "             [--metrics FILE.csv] [--threads N]   lanes side by side without a window\n"
         "  contactlab SCENE.json --lanes SOLVER,SOLVER[,...]|all [--set LANE.name=value]...   lanes in the viewer\n"
         "  contactlab --sweep CASE|SCENE.json --dt LIST [--iterations LIST] [--solver NAME] [--set name=value]...\n"
         "             [--duration T] [--out FILE.csv]   accuracy against cost: every method over the steps\n"
         "  contactlab --list-solvers [--markdown]   solvers and their parameters\n"
         "  contactlab --conformance [--markdown] [--solver NAME] [--case NAME]...\n"
         "             closed-form mechanics cases under every solver (or NAME) at its defaults, each swept over\n"
         "             time steps, sizes and masses (one case under one solver: every point of the sweep)\n"
         "  contactlab --machine-speed   how many times slower than the reference machine this one runs a fixed\n"
         "             workload now: the tests' CPU budgets scale by it (docs/testing.md)\n"
         "  any mode: [--memory-budget SIZE]   memory the scene's meshes may take (512M, 4G; default: half the machine's)\n"
         "exit codes: 0 ok;\n"
         "  2 bad input or environment (a bad scene or option, an output that cannot be written or would overwrite\n"
         "    a file the run reads, no display, missing shaders, over the memory budget, out of memory);\n"
         "  3 the simulation (or, with --compare, a lane) produced a non-finite value or blew up (max_speed);\n"
         "    with --conformance, some point fails other than because of its method\n";
}

namespace {

bool parse_int(std::string_view s, int& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool parse_double(std::string_view s, double& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty() && std::isfinite(v);
}

}  // namespace

bool parse_command_line(int argc, char** argv, CommandLine& out, std::string* error) {
  bool steps_given = false;
  std::vector<std::string_view> seen;  // the options given, to refuse one given twice
  const auto quoted = [](std::string_view s) { return "'" + escape_for_message(s) + "'"; };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view& v) {
      if (i + 1 >= argc) {
        *error = "option " + std::string(arg) + " needs a value";
        return false;
      }
      v = argv[++i];
      return true;
    };
    // A file name: not empty.
    auto path = [&](std::string& to) {
      std::string_view v;
      if (!value(v)) return false;
      if (v.empty()) {
        *error = "option " + std::string(arg) + " needs a file name, got ''";
        return false;
      }
      to = v;
      return true;
    };
    if (arg.size() > 1 && arg[0] == '-' && arg != "--set" && arg != "--case") {
      if (std::find(seen.begin(), seen.end(), arg) != seen.end()) {
        *error = "option " + quoted(arg) + " given more than once";
        return false;
      }
      seen.push_back(arg);
    }
    std::string_view v;
    if (arg == "--help" || arg == "-h") out.help = true;
    else if (arg == "--headless") out.headless = true;
    else if (arg == "--list-solvers") out.list_solvers = true;
    else if (arg == "--conformance") out.conformance = true;
    else if (arg == "--machine-speed") out.machine_speed = true;
    else if (arg == "--markdown") out.markdown = true;
    else if (arg == "--steps") {
      if (!value(v)) return false;
      if (!parse_int(v, out.steps) || out.steps < 0) {
        *error = "--steps expects a whole number >= 0, got " + quoted(v);
        return false;
      }
      steps_given = true;
    } else if (arg == "--size") {
      if (!value(v)) return false;
      const size_t x = v.find('x');
      if (x == std::string_view::npos || !parse_int(v.substr(0, x), out.width) || !parse_int(v.substr(x + 1), out.height) ||
          out.width < 320 || out.height < 240 || out.width > 7680 || out.height > 4320) {
        *error = "--size expects the window as WIDTHxHEIGHT pixels, from 320x240 to 7680x4320, got " + quoted(v);
        return false;
      }
    } else if (arg == "--frames") {
      if (!value(v)) return false;
      if (!parse_int(v, out.frames) || out.frames < 1) {
        *error = "--frames expects a whole number >= 1, got " + quoted(v);
        return false;
      }
    } else if (arg == "--dt") {
      if (!value(v)) return false;
      for (std::string_view rest = v;;) {
        const size_t comma = rest.find(',');
        // A step is a number of seconds or a fraction of them (1/60).
        const std::string_view item = rest.substr(0, comma);
        const size_t slash = item.find('/');
        double dt = 0.0, denominator = 1.0;
        const bool ok = slash == std::string_view::npos
                            ? parse_double(item, dt)
                            : parse_double(item.substr(0, slash), dt) && parse_double(item.substr(slash + 1), denominator) &&
                                  denominator > 0.0;
        dt /= denominator;
        if (!ok || dt < kMinDt || dt > kMaxDt) {
          *error = "--dt expects a time step in [1e-6, 1] seconds, got " + quoted(v) +
                   " (a number or a fraction such as 1/60; with --sweep a comma-separated list)";
          return false;
        }
        out.dts.push_back(dt);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
      }
      out.dt = out.dts.front();
    } else if (arg == "--iterations") {
      if (!value(v)) return false;
      for (std::string_view rest = v;;) {
        const size_t comma = rest.find(',');
        int n = 0;
        if (!parse_int(rest.substr(0, comma), n) || n < 1) {
          *error = "--iterations expects a comma-separated list of whole numbers >= 1, got " + quoted(v);
          return false;
        }
        out.iterations.push_back(n);
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
      }
    } else if (arg == "--sweep") {
      if (!value(v)) return false;
      out.sweep = v;
    } else if (arg == "--out") {
      if (!path(out.out)) return false;
    } else if (arg == "--duration") {
      if (!value(v)) return false;
      if (!parse_double(v, out.duration) || out.duration <= 0.0 || out.duration > 3600.0) {
        *error = "--duration expects seconds in (0, 3600], got " + quoted(v);
        return false;
      }
    } else if (arg == "--solver") {
      if (!value(v)) return false;
      out.solver = v;
      if (!find_solver(out.solver)) {
        *error = "unknown solver " + quoted(v) + " (available: " + solver_names() + ")";
        return false;
      }
    } else if (arg == "--case") {
      if (!value(v)) return false;
      if (!conformance::find_case(v)) {
        *error = "unknown conformance case " + quoted(v) + " (cases: " + conformance::case_names() + ")";
        return false;
      }
      out.cases.emplace_back(v);
    } else if (arg == "--set") {
      if (!value(v)) return false;
      const size_t eq = v.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        *error = "--set expects name=value, got " + quoted(v);
        return false;
      }
      out.params.emplace_back(std::string(v.substr(0, eq)), std::string(v.substr(eq + 1)));
    } else if (arg == "--metrics") {
      if (!path(out.metrics)) return false;
    } else if (arg == "--trace") {
      if (!path(out.trace)) return false;
    } else if (arg == "--state") {
      if (!path(out.state)) return false;
    } else if (arg == "--record") {
      if (!path(out.record)) return false;
    } else if (arg == "--replay") {
      if (!path(out.replay)) return false;
    } else if (arg == "--video") {
      if (!path(out.video)) return false;
      if (out.video.size() < 5 || out.video.substr(out.video.size() - 4) != ".mp4") {
        *error = "--video expects a file name ending in .mp4, got " + quoted(out.video);
        return false;
      }
    } else if (arg == "--fps") {
      if (!value(v)) return false;
      if (!parse_int(v, out.fps) || out.fps < 1 || out.fps > 240) {
        *error = "--fps expects a whole number of frames per second in [1, 240], got " + quoted(v);
        return false;
      }
    } else if (arg == "--view") {
      if (!value(v)) return false;
      out.view = v;
    } else if (arg == "--compare" || arg == "--lanes") {
      if (!value(v)) return false;
      std::vector<LaneSpec> specs;
      if (!parse_lane_list(v, specs, error)) {
        *error = std::string(arg) + ": " + *error;
        return false;
      }
      (arg == "--compare" ? out.compare : out.lanes) = v;
    } else if (arg == "--threads") {
      if (!value(v)) return false;
      if (!parse_int(v, out.threads) || out.threads < 0 || out.threads > 256) {
        *error = "--threads expects a whole number in [0, 256] (0: every core), got " + quoted(v);
        return false;
      }
    } else if (arg == "--screenshot") {
      if (!path(out.screenshot)) return false;
    } else if (arg == "--memory-budget") {
      if (!value(v)) return false;
      if (!parse_byte_size(std::string(v), out.memory_budget) || out.memory_budget < (std::uint64_t(1) << 20)) {
        *error = "--memory-budget expects a size of at least 1M, as bytes or with a K, M or G suffix (512M, 4G), got " +
                 quoted(v);
        return false;
      }
    } else if (arg.size() > 1 && arg[0] == '-') {
      *error = "unknown option " + quoted(arg);
      return false;
    } else if (out.scene.empty()) {
      out.scene = arg;
    } else {
      *error = "more than one scene given (" + quoted(out.scene) + " and " + quoted(arg) + ")";
      return false;
    }
  }
  if (out.machine_speed && !out.help && (seen.size() > 1 || !out.scene.empty())) {
    *error = "--machine-speed takes no scene and no other option";
    return false;
  }
  if (!out.cases.empty() && !out.conformance) {
    *error = "--case needs --conformance";
    return false;
  }
  if (out.conformance && !out.help) {
    if (out.headless || out.list_solvers || !out.scene.empty()) {
      *error = "--conformance runs its own scenes: it takes no scene, --headless or --list-solvers";
      return false;
    }
    if (!out.params.empty() || out.dt > 0) {
      *error = "--conformance runs every solver at its default parameters and each scene at its own dt: "
               "no --set or --dt";
      return false;
    }
  }
  // Options that only one mode reads are refused in the other, never silently ignored.
  const auto given = [&](std::string_view option) { return std::find(seen.begin(), seen.end(), option) != seen.end(); };
  if (!out.sweep.empty() && !out.help) {
    for (const char* option : {"--headless", "--compare", "--lanes", "--conformance", "--list-solvers", "--metrics",
                               "--trace", "--state", "--steps", "--screenshot", "--view", "--frames", "--size"})
      if (given(option)) {
        *error = std::string(option) + " cannot be used with --sweep";
        return false;
      }
    if (!out.scene.empty()) {
      *error = "--sweep names its case or scene itself: no other scene";
      return false;
    }
    if (out.dts.empty()) {
      *error = "--sweep needs --dt LIST";
      return false;
    }
  } else if (!out.help) {
    if (out.dts.size() > 1) {
      *error = "--dt takes one time step (a list only with --sweep)";
      return false;
    }
    for (const char* option : {"--iterations", "--out", "--duration"})
      if (given(option)) {
        *error = std::string(option) + " is for --sweep";
        return false;
      }
  }
  if (!out.compare.empty() && !out.help) {
    if (out.headless || out.list_solvers || out.conformance) {
      *error = "--compare runs its lanes without a window on its own: it takes no --headless, --list-solvers or --conformance";
      return false;
    }
    for (const char* option : {"--solver", "--trace", "--state", "--lanes", "--screenshot", "--view", "--frames", "--size"})
      if (given(option)) {
        *error = std::string(option) + " cannot be used with --compare (" +
                 (std::string_view(option) == "--solver" ? "the lane list names the solvers" :
                  std::string_view(option) == "--trace" || std::string_view(option) == "--state"
                      ? "it is for one run: use --headless"
                      : "it is for the viewer: open the scene with --lanes") + ")";
        return false;
      }
    if (out.scene.empty()) {
      *error = "--compare needs a scene file";
      return false;
    }
    if (!steps_given) {
      *error = "--compare needs --steps N";
      return false;
    }
  }
  if (!out.lanes.empty() && !out.help && given("--solver")) {
    *error = "--lanes names the solvers (the first lane replaces the scene's): it takes no --solver";
    return false;
  }
  if (given("--threads") && out.compare.empty() && !out.headless && !out.help) {
    *error = "--threads is for --headless and --compare";
    return false;
  }
  // In a comparison --set names its lane: LANE.name=value, LANE from 1.
  if ((!out.compare.empty() || !out.lanes.empty()) && !out.help) {
    std::vector<LaneSpec> specs;
    parse_lane_list(!out.compare.empty() ? out.compare : out.lanes, specs, error);
    if (!assign_lane_params(out.params, specs, error)) {
      *error = "--set " + *error;
      return false;
    }
  }
  if (!out.help) {
    const bool viewer = !out.headless && !out.list_solvers && !out.conformance && out.compare.empty() && out.sweep.empty();
    for (const char* option : {"--screenshot", "--view", "--frames", "--size"})
      if (!viewer && given(option)) {
        *error = std::string(option) + " is for the viewer: it cannot be used with --headless, --list-solvers or --conformance";
        return false;
      }
    for (const char* option : {"--metrics", "--trace", "--state", "--steps"})
      if (!out.headless && out.compare.empty() && out.sweep.empty() && given(option)) {
        *error = std::string(option) + " is for runs without a window: add --headless (the viewer records from its Stats panel)";
        return false;
      }
  }
  if ((given("--video") || given("--fps")) && !out.help) {
    if (out.replay.empty() || out.headless || given("--screenshot") || (given("--fps") && !given("--video"))) {
      *error = "--video FILE.mp4 [--fps N] exports a replay to video: give it with --replay FILE, without --headless "
               "or --screenshot";
      return false;
    }
  }
  if (!out.replay.empty() && !out.help) {
    // A replay holds its scene, methods, parameters and steps.
    if (!out.scene.empty()) {
      *error = "--replay plays the scene the replay holds: give no scene file";
      return false;
    }
    if (!out.params.empty()) {
      *error = "--set cannot be used with --replay (the replay holds the methods, parameters and steps)";
      return false;
    }
    for (const char* option : {"--solver", "--dt", "--steps", "--lanes", "--compare", "--record", "--metrics",
                               "--trace", "--list-solvers", "--conformance"})
      if (given(option)) {
        *error = std::string(option) + " cannot be used with --replay (the replay holds the methods, parameters and steps)";
        return false;
      }
    return true;
  }
  if (!out.record.empty() && !out.help && (!out.compare.empty() || out.list_solvers || out.conformance)) {
    *error = "--record is for the viewer and --headless runs";
    return false;
  }
  if (out.headless && !out.list_solvers && !out.help) {
    if (out.scene.empty()) {
      *error = "--headless needs a scene file";
      return false;
    }
    if (!steps_given) {
      *error = "--headless needs --steps N";
      return false;
    }
  }
  return true;
}

namespace {

void list_solvers(bool markdown) {
  if (markdown) {
    // docs/solvers.md's parameter tables are this output, pasted (a test keeps them equal).
    for (const SolverInfo& info : solver_registry()) {
      std::printf("**`%s`**: %s.\n\n", info.name.c_str(), info.method.c_str());
      std::printf("| parameter | unit | range | default | what it does |\n|---|---|---|---|---|\n");
      ParamSet set(info.params);
      for (size_t i = 0; i < info.params.size(); ++i) {
        const ParamSpec& p = info.params[i];
        std::string range;
        if (p.kind == ParamKind::Bool) range = "true / false";
        else if (p.kind == ParamKind::Choice) {
          for (const std::string& c : p.choices) range += (range.empty() ? "" : " / ") + c;
        } else {
          char buf[64];
          std::snprintf(buf, sizeof buf, "%g .. %g", p.min, p.max);
          range = buf;
        }
        std::printf("| `%s` | %s | %s | %s | %s |\n", p.name.c_str(), p.unit.empty() ? "-" : p.unit.c_str(),
                    range.c_str(), set.to_string(i).c_str(), p.help.c_str());
      }
      std::printf("\n");
    }
    return;
  }
  for (const SolverInfo& info : solver_registry()) {
    std::printf("%s: %s\n", info.name.c_str(), info.method.c_str());
    ParamSet set(info.params);
    for (size_t i = 0; i < info.params.size(); ++i) {
      const ParamSpec& p = info.params[i];
      std::printf("  %-24s default %-8s range [%g, %g]%s%s  %s\n", p.name.c_str(), set.to_string(i).c_str(), p.min,
                  p.max, p.unit.empty() ? "" : " ", p.unit.c_str(), p.help.c_str());
    }
  }
}

}  // namespace

int command_failed(const std::string& message, int code) {
  std::fprintf(stderr, "contactlab: %s\n", escape_for_message(message).c_str());
  return code;
}

namespace {

// The sidecar of a comparison CSV: out.csv -> out.lanes.json.
std::string sidecar_path(const std::string& csv) {
  std::filesystem::path p(csv);
  p.replace_extension(".lanes.json");
  return p.string();
}

// Every file a run without a window writes, and the scene it reads: checked before the scene loads (a bad
// output costs no loading), and again with the scene's meshes once it has loaded, before the first step.
OutputPlan run_plan(const CommandLine& cmd) {
  OutputPlan plan;
  plan.read("the scene", cmd.scene);
  if (!cmd.metrics.empty()) plan.write("--metrics", cmd.metrics);
  if (!cmd.trace.empty()) plan.write("--trace", cmd.trace);
  if (!cmd.state.empty()) plan.write("--state", cmd.state);
  if (!cmd.record.empty()) plan.write("--record", cmd.record);
  if (!cmd.compare.empty() && !cmd.metrics.empty())
    plan.write("the lanes sidecar of --metrics", sidecar_path(cmd.metrics));
  return plan;
}

// Loads the scene for a run without a window: false with the exit code in `code` (2) and the message printed.
bool load_for_run(const CommandLine& cmd, OutputPlan& plan, SceneLoadResult& loaded) {
  std::string error;
  if (!plan.check(error)) return command_failed(error), false;
  try {
    loaded = load_scene_file(cmd.scene);
  } catch (const std::bad_alloc&) {
    command_failed(cmd.scene + ": out of memory while loading the scene (see --memory-budget)");
    return false;
  }
  if (!loaded.ok()) {
    std::fprintf(stderr, "contactlab: %s\n", loaded.error.c_str());
    return false;
  }
  for (const std::string& w : loaded.warnings) std::fprintf(stderr, "contactlab: warning: %s\n", w.c_str());
  for (const ReadFile& f : mesh_files_read(loaded.world, cmd.scene)) plan.read(f.role, f.path);
  if (!plan.check_identities(error)) return command_failed(error), false;
  return true;
}

// A step that runs out of memory: the scene, the step and the setting that bounds it.
std::string out_of_memory(const std::string& scene, const World& world) {
  std::string m = scene + ": out of memory at step " + std::to_string(world.step_count() + 1) + " (" +
                  std::to_string(world.bodies.size()) + " bodies)";
  if (world.settings.max_contacts <= 0)
    m += ": its /max_contacts is 0, which sets no limit on contacts; give it one";
  return m;
}

// What is said of the streamed outputs of a run cut short: they are kept, up to the step before.
std::string kept_outputs(const std::vector<std::string>& files, int steps) {
  std::string list;
  for (const std::string& f : files)
    if (!f.empty()) list += (list.empty() ? "" : " and ") + escape_for_message(f);
  if (list.empty()) return "";
  return "; the " + std::to_string(steps) + " steps up to it are kept in " + list;
}

}  // namespace

int run_headless(const CommandLine& cmd) {
  if (cmd.list_solvers) {
    list_solvers(cmd.markdown);
    return 0;
  }
  const std::string scene = escape_for_message(cmd.scene);  // as quoted in messages
  OutputPlan plan = run_plan(cmd);
  SceneLoadResult loaded;
  if (!load_for_run(cmd, plan, loaded)) return 2;
  World& world = loaded.world;
  std::string error;
  if (!cmd.solver.empty() && !world.set_solver(cmd.solver, &error)) {
    std::fprintf(stderr, "contactlab: %s: --solver %s: %s\n", scene.c_str(), cmd.solver.c_str(),
                 escape_for_message(error).c_str());
    return 2;
  }
  if (cmd.dt > 0) world.settings.dt = cmd.dt;
  if (cmd.threads >= 0) world.settings.threads = cmd.threads;
  for (const auto& [name, text] : cmd.params) {
    if (!world.solver().params().set_from_string(name, text, &error)) {
      std::fprintf(stderr, "contactlab: --set %s=%s: %s (solver %s)\n", escape_for_message(name).c_str(),
                   escape_for_message(text).c_str(), escape_for_message(error).c_str(),
                   std::string(world.solver().name()).c_str());
      return 2;
    }
  }

  for (const std::string& w : world.unsupported_features())
    std::fprintf(stderr, "contactlab: warning: %s: %s\n", scene.c_str(), escape_for_message(w).c_str());

  // Metrics and trace are written step by step (memory stays flat however many steps) to temporary files that
  // replace the earlier ones only at the end; a run that stops early (a blow-up) still puts them in place, so
  // the steps before a failure can be studied. A lost output is exit 2, never a silent 0.
  StepWriter writer;
  if (!writer.open(cmd.metrics, cmd.trace, &error)) return command_failed(error);
  // The state's file is opened now too (a pipe without a reader is found before the first step), and written at
  // the end.
  OutputFile state;
  if (!cmd.state.empty() && !state.open(cmd.state, "state file", error)) return command_failed(error);
  // --record: the scene's text, the options as edits at step 0, and at the end the state each lane ended in.
  HeadlessRecording recording;
  if (!cmd.record.empty() && !start_headless_recording(cmd, world, recording, &error)) return command_failed(error);
  std::string stopped;
  try {
    for (int s = 0; s < cmd.steps; ++s) {
      const StepResult r = world.step();
      if (!writer.add(world.last_stats(), &error)) return command_failed(error);
      if (!r.ok) {
        stopped = r.error;
        break;
      }
    }
  } catch (const std::bad_alloc&) {
    writer.discard();
    return command_failed(out_of_memory(cmd.scene, world));
  }
  // The state is made ready before the metrics and trace go in place, so that a state that cannot be written
  // (a full disk) leaves every earlier output as it was.
  if (!cmd.state.empty() && !(state.write(state_to_json(world).dump(2) + "\n", error) && state.finish(error)))
    return command_failed(error);
  if (!writer.close(&error)) return command_failed(error);
  if (!cmd.state.empty() && !state.publish(error)) return command_failed(error);
  if (recording.active() && !finish_headless_recording(recording, world, stopped, &error)) return command_failed(error);
  if (!stopped.empty())
    return command_failed(cmd.scene + ": " + stopped + kept_outputs({cmd.metrics, cmd.trace}, writer.steps()), 3);
  return 0;
}

int run_compare(const CommandLine& cmd) {
  const std::string scene = escape_for_message(cmd.scene);
  OutputPlan plan = run_plan(cmd);
  SceneLoadResult loaded;
  if (!load_for_run(cmd, plan, loaded)) return 2;
  World& base = loaded.world;
  if (cmd.dt > 0) base.settings.dt = cmd.dt;

  Lanes lanes(std::max(cmd.threads, 0));
  std::string error;
  std::vector<LaneSpec> specs;
  if (!parse_lane_list(cmd.compare, specs, &error) || !assign_lane_params(cmd.params, specs, &error)) return command_failed(error);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!lanes.add(base, specs[i], &error)) {
      std::fprintf(stderr, "contactlab: %s: --compare lane %zu: %s\n", scene.c_str(), i + 1,
                   escape_for_message(error).c_str());
      return 2;
    }
    for (const std::string& w : lanes.world(int(i)).unsupported_features())
      std::fprintf(stderr, "contactlab: warning: %s: lane %zu: %s\n", scene.c_str(), i + 1, escape_for_message(w).c_str());
  }

  // One CSV for every lane, step by step, with the lane, its solver and the scene in the first columns; the
  // sidecar says what each lane ran. Both are put in place at the end (the sidecar after the CSV).
  StepWriter writer;
  const std::string sidecar = cmd.metrics.empty() ? std::string() : sidecar_path(cmd.metrics);
  if (!writer.open(cmd.metrics, "", &error)) return command_failed(error);
  writer.set_leading_columns("lane,solver,scene");

  ComparisonSummary summary;
  summary.begin(lanes);
  try {
    for (int s = 0; s < cmd.steps; ++s) {
      lanes.step();
      summary.add(lanes);
      bool any_running = false;
      for (int i = 0; i < lanes.size(); ++i) {
        if (s == 0) writer.add_solver_columns(lanes.world(i).last_stats());  // before the first row
        any_running = any_running || !lanes.stopped(i);
      }
      for (int i = 0; i < lanes.size(); ++i) {
        const World& w = lanes.world(i);
        if (w.last_stats().step != s + 1) continue;  // stopped before this step
        const std::string leading = std::to_string(i + 1) + "," + std::string(w.solver().name()) + "," + csv_field(base.name);
        if (!writer.add(w.last_stats(), &error, leading)) return command_failed(error);
      }
      if (!any_running) break;
    }
  } catch (const std::bad_alloc&) {
    writer.discard();
    return command_failed(out_of_memory(cmd.scene, base));
  }
  if (!writer.close(&error)) return command_failed(error);
  if (!sidecar.empty()) {
    std::vector<const World*> worlds;
    for (int i = 0; i < lanes.size(); ++i) worlds.push_back(&lanes.world(i));
    nlohmann::ordered_json j = lanes_sidecar_json(cmd.scene, worlds, cmd.metrics);
    j["steps"] = cmd.steps;
    j["threads"] = lanes.threads();
    if (!write_output_file(sidecar, j.dump(2) + "\n", "lanes sidecar", error)) return command_failed(error);
  }
  std::fputs(comparison_table(base.name, base.settings.dt, cmd.steps, summary.lanes(lanes)).c_str(), stdout);
  if (!cmd.metrics.empty()) std::printf("wrote %s and %s\n", cmd.metrics.c_str(), sidecar.c_str());
  int exit_code = 0;
  for (int i = 0; i < lanes.size(); ++i)
    if (lanes.stopped(i)) {
      std::fprintf(stderr, "contactlab: %s: lane %d (%s): %s\n", scene.c_str(), i + 1,
                   std::string(lanes.world(i).solver().name()).c_str(), escape_for_message(lanes.result(i).error).c_str());
      exit_code = 3;
    }
  return exit_code;
}

int run_machine_speed() {
  const double slowness = conformance::machine_slowness();
  std::printf("%.3g\n", slowness);
  std::fprintf(stderr, "this machine runs the fixed workload %.3g times slower than the reference machine (%.3g ms there)\n",
               slowness, 1e3 * conformance::kReferenceWorkloadSeconds);
  return 0;
}

int run_conformance(const CommandLine& cmd) {
  const std::string scene_dir = viewer::resolve_root() + "/scenes/conformance";
  std::error_code ec;
  if (!std::filesystem::is_directory(scene_dir, ec)) {
    std::fprintf(stderr, "contactlab: %s: no such directory (set CONTACTLAB_HOME to the directory holding scenes/)\n",
                 scene_dir.c_str());
    return 2;
  }
  conformance::MatrixOptions options;
  if (!cmd.solver.empty()) options.solvers.push_back(cmd.solver);
  options.cases = cmd.cases;
  // Every point is an independent world: run them on all cores (the figures do not depend on it).
  options.jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  const conformance::Matrix m = conformance::run_matrix(scene_dir, options);
  // One case under one solver: every point of its sweep, then the summary.
  const bool points = cmd.cases.size() == 1 && !cmd.solver.empty();
  const std::string text = cmd.markdown ? conformance::matrix_markdown(m)
                           : points     ? conformance::matrix_points_text(m) + "\n" + conformance::matrix_text(m)
                                        : conformance::matrix_text(m);
  std::fputs(text.c_str(), stdout);
  return m.passes() ? 0 : 3;
}

int run_sweep(const CommandLine& cmd) {
  conformance::SweepSettings settings;
  settings.target = cmd.sweep;
  settings.dts = cmd.dts;
  settings.iterations = cmd.iterations;
  if (!cmd.solver.empty()) settings.solvers.push_back(cmd.solver);
  settings.params = cmd.params;
  settings.duration = cmd.duration;
  settings.scene_dir = viewer::resolve_root() + "/scenes/conformance";
  // Check the output before the runs, as the other modes do: writable, and none of the files the sweep reads (the
  // case's scene or the scene named, and that scene's meshes), by identity (output_plan.h).
  OutputFile file;
  std::string why;
  if (!cmd.out.empty()) {
    const std::string scene = conformance::sweep_scene_path(settings);
    OutputPlan plan;
    plan.read("the scene", scene);
    plan.write("--out", cmd.out);
    if (!plan.check(why)) return command_failed(why);
    // A scene that does not load is the sweep's to report (below); one that does has its meshes read too.
    if (SceneLoadResult loaded = load_scene_file(scene); loaded.ok()) {
      for (const ReadFile& f : mesh_files_read(loaded.world, scene)) plan.read(f.role, f.path);
      if (!plan.check_identities(why)) return command_failed(why);
    }
  }
  if (!cmd.out.empty() && !file.open(cmd.out, "sweep file", why)) {
    std::fprintf(stderr, "contactlab: %s\n", escape_for_message(why).c_str());
    return 2;
  }
  std::string error;
  const std::vector<conformance::SweepPoint> points = conformance::run_sweep(settings, &error);
  if (!error.empty()) {
    file.discard();
    std::fprintf(stderr, "contactlab: --sweep %s\n", escape_for_message(error).c_str());
    return 2;
  }
  const std::string csv = conformance::sweep_csv(settings, points);
  if (cmd.out.empty()) {
    std::fputs(csv.c_str(), stdout);
    return 0;
  }
  if (!file.write(csv, why) || !file.finish(why) || !file.publish(why)) {
    file.discard();
    std::fprintf(stderr, "contactlab: %s\n", escape_for_message(why).c_str());
    return 2;
  }
  return 0;
}

}  // namespace cl
