// libxml2's xmlFree and friends are macros under Debian's build; these give them stable names.
#ifndef MAILPIPE_CLIBXML2_SHIM_H
#define MAILPIPE_CLIBXML2_SHIM_H
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <string.h>

static inline void mp_xmlFree(void *p) { xmlFree(p); }
static inline int mp_html_parse_options(void) {
    return HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET;
}

/// Parses UTF-8 HTML (a contradicting <meta charset> is ignored) with only the given SAX
/// callbacks and no tree; `raw` gets the content of script and style, `comment` each comment's
/// text. Each callback's first argument is the parser context: get `user`
/// back with mp_html_sax_user. Errors are silent (recover mode). Returns 0, or -1 when out of memory.
static inline int mp_html_sax_parse(const char *buffer, int length, void *user,
                                    startElementSAXFunc start, endElementSAXFunc end,
                                    charactersSAXFunc text, cdataBlockSAXFunc raw, commentSAXFunc comment) {
    htmlParserCtxtPtr ctxt = htmlCreateMemoryParserCtxt(buffer, length);
    if (ctxt == NULL) return -1;
    memset(ctxt->sax, 0, sizeof(*ctxt->sax));
    ctxt->sax->startElement = start;
    ctxt->sax->endElement = end;
    ctxt->sax->characters = text;
    ctxt->sax->ignorableWhitespace = text;
    ctxt->sax->cdataBlock = raw;  // the content of script and style
    ctxt->sax->comment = comment;
    ctxt->userData = ctxt;
    ctxt->_private = user;
    htmlCtxtUseOptions(ctxt, mp_html_parse_options());
    xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8);
    if (ctxt->input != NULL && ctxt->input->encoding == NULL)
        ctxt->input->encoding = xmlStrdup((const xmlChar *)"UTF-8");
    // without this, htmlParseDocument still guesses from the first four bytes ("\0\0\0<" is UTF-32)
    if (ctxt->encoding == NULL) ctxt->encoding = xmlStrdup((const xmlChar *)"UTF-8");
    htmlParseDocument(ctxt);
    if (ctxt->myDoc != NULL) xmlFreeDoc(ctxt->myDoc);
    htmlFreeParserCtxt(ctxt);
    return 0;
}

static inline void *mp_html_sax_user(void *ctx) { return ((htmlParserCtxtPtr)ctx)->_private; }

/// During startElement: where the parser is in the input, from its start (at the '>' or "/>"
/// ending a written start tag: the parser consumes it after reporting the element).
static inline long mp_html_sax_offset(void *ctx) {
    htmlParserCtxtPtr c = (htmlParserCtxtPtr)ctx;
    if (c->input == NULL || c->input->cur == NULL || c->input->base == NULL) return -1;
    return (long)c->input->consumed + (long)(c->input->cur - c->input->base);
}

/// During startElement: whether the input is at the end of a written `<p>` tag (the parser
/// consumes '>' after reporting the element). libxml2 also reports a `p` it invents around
/// text outside any element, which a browser would not.
static inline int mp_html_sax_at_p_tag(void *ctx) {
    htmlParserCtxtPtr c = (htmlParserCtxtPtr)ctx;
    if (c->input == NULL || c->input->cur == NULL) return 0;
    const xmlChar *base = c->input->base, *cur = c->input->cur, *end = c->input->end;
    if (cur >= end) return 0;
    if (!(cur[0] == '>' || (cur[0] == '/' && cur + 1 < end && cur[1] == '>'))) return 0;
    const xmlChar *q = cur;
    while (q > base && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r' || q[-1] == '\f')) q--;
    return q - base >= 2 && (q[-1] == 'p' || q[-1] == 'P') && q[-2] == '<';
}
#endif
