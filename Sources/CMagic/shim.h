// libmagic (Debian's libmagic-dev), the library behind file(1): the type of a file from its
// content, for the attachments mail-compose writes and mime-parse reads. Only the FileType
// module imports this, for the constants: it opens the library itself (dlopen) when a
// detector is first made, so nothing links it.
#ifndef MAILPIPE_CMAGIC_SHIM_H
#define MAILPIPE_CMAGIC_SHIM_H
#include <magic.h>
#endif
