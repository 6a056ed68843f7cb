// libical (Debian's libical-dev): the iCalendar parser, recurrence iterator and writer that
// event-extract and event-group use. Only the ICalendar module imports this.
#ifndef MAILPIPE_CLIBICAL_SHIM_H
#define MAILPIPE_CLIBICAL_SHIM_H
#include <libical/ical.h>

// icaltimetype.zone is const; Swift wants the pointer it can hand back to libical.
static inline icaltimezone *mp_ical_zone(struct icaltimetype t) { return (icaltimezone *)t.zone; }
#endif
