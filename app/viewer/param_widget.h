// The widget of one published solver parameter (ParamSpec: a slider, a number field, a checkbox or a choice) and
// its tooltip, for the Solver panel and the Compare panel's lanes.
#pragma once

#include <string>

#include "solvers/params.h"

namespace cl::viewer {

// A number as "%.6g" writes it.
std::string format_number(double v);

// Tooltip for a solver parameter: its help line, unit, range and default.
std::string param_tooltip(const ParamSpec& spec);

// Draws the widget for one parameter. Returns true with the new value in *out when the user edits it.
bool param_widget(const ParamSpec& spec, double value, double* out);

}  // namespace cl::viewer
