/* Stand-ins for the six libcurl entry points that CFITSIO's http/https/ftp drivers call, used
 * when CFITSIO is linked statically (see CMakeLists.txt, CELERIS_STATIC_CFITSIO): global
 * initialisation succeeds, so local files open as usual, and every transfer fails, so a remote
 * URL gives CFITSIO's ordinary "could not open" error. */
#include <stddef.h>

int curl_global_init(long flags) {
  (void)flags;
  return 0; /* CURLE_OK */
}

void curl_global_cleanup(void) {}

void* curl_easy_init(void) {
  return NULL;
}

int curl_easy_setopt(void* handle, int option, ...) {
  (void)handle;
  (void)option;
  return 1; /* CURLE_UNSUPPORTED_PROTOCOL */
}

int curl_easy_perform(void* handle) {
  (void)handle;
  return 1; /* CURLE_UNSUPPORTED_PROTOCOL */
}

void curl_easy_cleanup(void* handle) {
  (void)handle;
}
