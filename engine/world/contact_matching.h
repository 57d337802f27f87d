// Contact persistence between steps, for warm starting: which of last step's contacts each new contact continues.
#pragma once

#include "collision/contact.h"

namespace cl {

// Both lists sorted by pair (a, b), as the narrow phase leaves them. Each new contact of a pair that continues a
// previous contact of the same pair takes its impulses (normal, friction, and their layer parts) and is marked
// `persisted`; the others keep theirs. Each previous contact is continued at most once.
void match_previous_contacts(const ContactList& previous, ContactList& current);

// What a contact takes from the previous contact it continues: its impulses, and `persisted`.
inline void continue_contact(Contact& c, const Contact& previous) {
  c.normal_impulse = previous.normal_impulse;
  c.friction_impulse = previous.friction_impulse;
  c.layer_normal_impulse = previous.layer_normal_impulse;
  c.layer_friction_impulse = previous.layer_friction_impulse;
  c.persisted = true;
}

}  // namespace cl
