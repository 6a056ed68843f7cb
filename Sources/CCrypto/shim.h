// OpenSSL's libcrypto, for SHA-256 (it uses the CPU's SHA instructions where there are some).
#ifndef MAILPIPE_CCRYPTO_SHIM_H
#define MAILPIPE_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
