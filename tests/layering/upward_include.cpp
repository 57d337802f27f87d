// Must NOT build: the core layer links nothing above it, so "collision/" is not on its include path.
#include "collision/contact.h"

int layering_probe_upward() { return 0; }
