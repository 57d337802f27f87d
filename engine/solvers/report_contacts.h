// Filling the contact report (telemetry/contact_report.h) from what a method knows: the shared pieces each
// method's report_contacts uses.
#pragma once

#include <vector>

#include "collision/contact.h"
#include "core/body.h"
#include "telemetry/contact_report.h"

namespace cl {

// A contact's entry without its forces: bodies, point, normal, depth, mu and the relative velocity of b's point
// against a's at the bodies' current (end of step) velocities.
ReportedContact contact_entry(const std::vector<Body>& bodies, const Contact& c);

// Splits a force on b into the entry's normal and friction parts.
void set_force(ReportedContact& entry, const Vec3& force_on_b);

// Every contact with its solved impulses (Contact::normal_impulse, friction_impulse) divided by h: the report of
// a method that solves for impulses at the contacts (lcp, volume).
void report_impulses(const std::vector<Body>& bodies, const ContactList& contacts, double dt, ContactReport& out);

// One entry for a pair a < b acted on as a whole: its force on b acting at `point`, with the normal, mu and
// deepest depth of the pair's contacts in `contacts` (sorted by pair); `normal` instead when it is not zero, and
// the deepest contact's position when `point` is null.
void report_pair(const std::vector<Body>& bodies, const ContactList& contacts, int a, int b, const Vec3* point,
                 const Vec3& normal, const Vec3& force_on_b, ContactReport& out);

}  // namespace cl
