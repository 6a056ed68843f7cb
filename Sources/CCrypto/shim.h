// OpenSSL's libcrypto, for SHA-256 (it uses the CPU's SHA instructions where there are some).
// SHA256_Init/Update/Final, not EVP: OpenSSL 3 deprecates them, but EVP fetches the digest
// from a provider, which costs a process 3.6M instructions the first time (a delivery starts
// a process for one message); they run the same code without. Kept in 3.x.
#ifndef MAILPIPE_CCRYPTO_SHIM_H
#define MAILPIPE_CCRYPTO_SHIM_H
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#endif
