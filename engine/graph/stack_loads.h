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
// share[i] (if given, with `up` the unit vector against gravity): load[i] shared among the dynamic bodies of its
// group at its stack height that lie level with the lowest of them (their centres at most half their bounding
// radius higher along `up`), the mean load each carries down (kg). Side by side they carry what is above
// together: a pyramid's 60 bottom boxes each a sixtieth of it, where load[i] gives each all of it. Stacked at one
// height (a column pushed by a ram touches it with every box) or without gravity, share[i] is load[i].
void stack_loads(const ContactGraph& graph, const std::vector<Body>& bodies, std::vector<double>& load,
                 std::vector<Vec3>* centre = nullptr, std::vector<double>* share = nullptr,
                 const Vec3& up = Vec3::Zero());

}  // namespace cl
