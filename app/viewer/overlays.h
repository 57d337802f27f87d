// The viewer's overlay switches as one table: the --view token, the label the View menu shows, its help, and the
// ViewState field it switches. apply_view_spec, the View menu and docs/viewer.md's overlay table all come from it
// (tests/app/overlays_test.cpp keeps the docs' table equal to it).
#pragma once

#include <span>
#include <string>

#include "viewer/viewer_state.h"

namespace cl::viewer {

struct OverlayToggle {
  const char* token;  // in --view LIST (`-token` turns it off)
  const char* label;  // in the View menu
  const char* help;
  bool ViewState::*field;
};

std::span<const OverlayToggle> overlay_toggles();

// docs/viewer.md's overlay table (between <!-- overlays:begin --> and <!-- overlays:end -->).
std::string overlay_table_markdown();

}  // namespace cl::viewer
