// Must build: the collision layer links the core layer, so it sees "core/" headers (the control for
// upward_include.cpp, which fails only if the include paths are what the layering says).
#include "core/body.h"
#include "collision/contact.h"

int layering_probe_downward() { return 0; }
