// libcurl (Debian's libcurl4-openssl-dev): gmail-sync's HTTP. Only the HTTP module imports this.
#ifndef MAILPIPE_CCURL_SHIM_H
#define MAILPIPE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one wrapper per
// argument type.
static inline CURLcode mp_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode mp_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode mp_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode mp_curl_set_list(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}
typedef size_t (*mp_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode mp_curl_set_callback(CURL *curl, CURLoption option, mp_curl_data_callback callback) {
    return curl_easy_setopt(curl, option, callback);
}
static inline CURLcode mp_curl_response_code(CURL *curl, long *code) {
    return curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, code);
}
// CURL_GLOBAL_DEFAULT is a macro of macros.
static inline CURLcode mp_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
#endif
