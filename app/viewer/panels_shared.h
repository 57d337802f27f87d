// What the panels (panels_*.cpp, menu_bar.cpp) share: their colours and margins, a few widgets, and the actions
// that the panels and the menu both offer, each reporting its error where its panel shows errors.
#pragma once

#include <string>

#include <imgui.h>

#include "core/math.h"
#include "viewer/viewer_state.h"

namespace cl::viewer {

inline const ImVec4 kErrorColor{1.0f, 0.42f, 0.38f, 1.0f};
inline const ImVec4 kWarningColor{1.0f, 0.80f, 0.35f, 1.0f};
inline const ImVec4 kOkColor{0.55f, 0.90f, 0.55f, 1.0f};

inline constexpr float kPanelWidth = 340.0f;  // each of the two panel columns
inline constexpr float kMargin = 8.0f;        // between the panels and the window edges

inline constexpr double kDeg = 180.0 / 3.14159265358979323846;  // joint angles are shown in degrees

// The Compare panel's height: its title bar while collapsed; with lanes as the user dragged it (at first 42% of the
// window, 260 to 460 pixels), else room for the add-lane row.
float compare_panel_height(const AppState& app);

// One plot of the grid: a curve per lane of the chosen LanePlots member (from lane 2 with `skip_first`).
struct LanePlotKind {
  const char* id;
  const char* title;
  const char* unit;
  History LanePlots::*member;
  bool skip_first = false;
  bool residual = false;  // a physics residual of the contact report: also in the Stats panel, for lane 1
};

// The Compare panel's plots (panels_compare.cpp) in the grid's order, the residuals also the Stats panel's
// (panels_stats.cpp); a new one (another metric of LanePlots) slots in here. Titles short enough for a cell of
// the grid at 1280 x 720 (about 22 characters with the unit); docs/viewer.md and docs/residuals.md say what each
// measures: the method's own iterations and residual count and weigh differently per method, the momentum error
// is that of steps without external forces, the energy change is per step.
inline constexpr LanePlotKind kLanePlots[] = {
    {"ms", "step time", "ms", &LanePlots::step_ms},
    {"pen", "max penetration", "m", &LanePlots::max_penetration},
    {"mpen", "mean penetration", "m", &LanePlots::mean_penetration},
    {"ke", "kinetic energy", "J", &LanePlots::kinetic_energy},
    {"contacts", "contacts", "", &LanePlots::contacts},
    {"it", "own iterations", "", &LanePlots::iterations},
    {"res", "own residual (own unit)", "", &LanePlots::residual},
    // The same physics residuals for every method, from its contact report (docs/residuals.md).
    {"sig", "Signorini gap", "m", &LanePlots::signorini, false, true},
    {"cone", "cone violation", "N", &LanePlots::cone, false, true},
    {"diss", "dissipation viol.", "W", &LanePlots::dissipation, false, true},
    {"compl", "complementarity", "W", &LanePlots::complementarity, false, true},
    {"dE", "energy change", "J", &LanePlots::energy_change, false, true},
    {"dP", "momentum error", "N s", &LanePlots::momentum_error, false, true},
    {"div", "off lane 1, max", "m", &LanePlots::divergence_max, true},    // the divergence: the distance between
    {"divm", "off lane 1, mean", "m", &LanePlots::divergence_mean, true},  // a body and itself in lane 1
};

// ImGui::Begin for a panel: a click on a collapsed panel's title bar also expands it (ImGui itself expands on a
// double click or on the arrow only).
bool begin_panel(const char* name, bool* open = nullptr, ImGuiWindowFlags flags = 0);

// Wrapped text in a colour; with `help_after`, wrapped short of the right edge by the width of the help marker
// that follows it on its last line, so that the marker is not cut off.
void colored_wrapped(const ImVec4& color, const std::string& text, bool help_after = false);

// A tooltip of `text` wrapped at about 32 characters' width (as help_marker shows it).
void wrapped_tooltip(const char* text);

// A two-column row of the inspector and counter tables.
void table_row(const char* name, const char* fmt, ...) IM_FMTARGS(2);
void vec_row(const char* name, const Vec3& v, const char* unit);
// Name column sized for the longest label, values take the rest.
bool begin_two_column_table(const char* id, const char* longest_name);

// Moves the current window up when its bottom is below the display (a collapsed panel at the bottom
// of the screen that gets expanded, or a window that shrank), so no panel is ever out of reach.
void keep_on_screen();

// The text shortened with "..." to fit `width` pixels.
std::string fit_text(const std::string& text, float width);

// The panels' and the menu's actions, each with its error shown where its panel shows errors (and cleared when
// it succeeds).
void open_and_report(AppState& app, const std::string& path);
void reload_and_report(AppState& app);
// Save as; over the open scene it asks first (the question drawn by draw_overwrite_question).
void save_and_report(AppState& app, bool confirmed = false);
void draw_overwrite_question(AppState& app);
void switch_solver_and_report(AppState& app, const std::string& name);
void add_lane_and_report(AppState& app, const std::string& solver);

// The main menu bar along the top: File, Scene, Solver, View, Compare, Help; each item does what its panel
// control or key does. Returns the bar's height, which the panels start below.
float draw_main_menu(AppState& app);

}  // namespace cl::viewer
