// libmagic (Debian's libmagic-dev), the library behind file(1): the type of a file from its
// content, for the attachments mail-compose writes and mime-parse reads. Only the FileType
// module imports this.
#ifndef MAILPIPE_CMAGIC_SHIM_H
#define MAILPIPE_CMAGIC_SHIM_H
#include <magic.h>
#endif
