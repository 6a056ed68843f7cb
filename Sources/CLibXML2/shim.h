// libxml2's xmlFree and friends are macros under Debian's build; these give them stable names.
#ifndef MAILPIPE_CLIBXML2_SHIM_H
#define MAILPIPE_CLIBXML2_SHIM_H
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/parser.h>

static inline void mp_xmlFree(void *p) { xmlFree(p); }
static inline int mp_html_parse_options(void) {
    return HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET;
}
#endif
