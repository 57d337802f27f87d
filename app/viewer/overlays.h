// The viewer's overlay switches as one table: the --view token, the label the View panel and the View menu show,
// a summary line, the help, and the ViewState field it switches. apply_view_spec, the View panel's checkboxes, the
// View menu and docs/viewer.md's overlay table all come from it (tests/app/overlays_test.cpp keeps the docs'
// table equal to it).
#pragma once

#include <span>
#include <string>

#include "viewer/viewer_state.h"

namespace cl::viewer {

struct OverlayToggle {
  const char* token;    // in --view LIST (`-token` turns it off)
  const char* label;    // in the View panel and the View menu
  const char* summary;  // one line, in docs/viewer.md's table
  const char* help;     // the View panel's (?) and the View menu's tooltip
  bool ViewState::*field;
};

// In the View panel's order.
std::span<const OverlayToggle> overlay_toggles();

// The overlay that switches `field`, or nullptr when no overlay does.
const OverlayToggle* find_overlay(bool ViewState::*field);

// docs/viewer.md's overlay table (between <!-- overlays:begin --> and <!-- overlays:end -->).
std::string overlay_table_markdown();

}  // namespace cl::viewer
