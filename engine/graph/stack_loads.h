// The load each body carries down through its contacts in a stack: from the contact graph's stack heights
// (thesis sect. 6.4.2, Figs. 6.50-6.52), the mass of the bodies of its contact group at or above its own height.
#pragma once

#include <vector>

#include "core/body.h"
#include "graph/contact_graph.h"

namespace cl {

// load[i]: for a dynamic body of a supported group (ContactGroup::floating false), the mass (kg) of the dynamic
// bodies of its group whose stack height is at least its own (itself included); 0 for a dynamic body outside
// any such group; +infinity for fixed and kinematic bodies (they carry anything). centre[i] (if given): the
// centre of mass of those bodies (the body's own position where the load is 0 or infinite).
// A pair's upper body is the one with the smaller load, and the pair carries that load.
void stack_loads(const ContactGraph& graph, const std::vector<Body>& bodies, std::vector<double>& load,
                 std::vector<Vec3>* centre = nullptr);

}  // namespace cl
