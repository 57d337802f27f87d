// Contact persistence between steps, for warm starting: which of last step's contacts each new contact continues.
#pragma once

#include "collision/contact.h"

namespace cl {

// Both lists sorted by pair (a, b), as the narrow phase leaves them. Each new contact of a pair that continues a
// previous contact of the same pair takes its impulses (normal, friction, and their layer parts) and is marked
// `persisted`; the others keep theirs. Each previous contact is continued at most once.
void match_previous_contacts(const ContactList& previous, ContactList& current);

}  // namespace cl
