// libcurl's C API for the model client (SnippetsModelClient's ModelHTTP), loaded with dlopen on the first request so
// that a process that never uses a model never maps libcurl and the ~30 libraries it needs (TLS, HTTP/2, Kerberos,
// LDAP). curl/curl.h is included for its types and constants only: nothing here links libcurl, and each function
// below calls the one `snippets_curl_load` resolved. curl_easy_setopt and curl_easy_getinfo are variadic, which
// Swift cannot call, so each argument type gets a fixed-signature wrapper.
#ifndef SNIPPETS_CCURL_LOADER_H
#define SNIPPETS_CCURL_LOADER_H

#include <curl/curl.h>

/// What `snippets_curl_load` found.
typedef enum {
    /// libcurl is loaded, its functions resolved and `curl_global_init` done.
    SNIPPETS_CURL_LOADED = 0,
    /// No libcurl could be opened (Debian: the libcurl4 package is missing).
    SNIPPETS_CURL_NOT_FOUND = 1,
    /// A libcurl was opened but lacks a function the client calls (curl_multi_wakeup needs 7.68 or newer).
    SNIPPETS_CURL_TOO_OLD = 2,
    /// `curl_global_init` failed.
    SNIPPETS_CURL_INIT_FAILED = 3,
} snippets_curl_load_status;

/// Opens libcurl (libcurl.so.4, else libcurl.so; /usr/lib/libcurl.4.dylib on macOS) and resolves its functions, once
/// per process however many threads call it; every later call returns the first call's status. No other function
/// here may be called before it returned `SNIPPETS_CURL_LOADED`.
snippets_curl_load_status snippets_curl_load(void);

/// The file `snippets_curl_load` opened, or the first name it tried when none opened (for messages).
const char *snippets_curl_library_name(void);

typedef size_t (*snippets_curl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*snippets_curl_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                               curl_off_t upload_total, curl_off_t uploaded);

CURL *snippets_curl_easy_init(void);
void snippets_curl_easy_cleanup(CURL *handle);
CURLM *snippets_curl_multi_init(void);
CURLMcode snippets_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode snippets_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode snippets_curl_multi_perform(CURLM *multi, int *running);
/// `curl_multi_poll` with no extra file descriptors.
CURLMcode snippets_curl_multi_poll(CURLM *multi, int timeout_ms);
/// Thread-safe: wakes a `snippets_curl_multi_poll` waiting on `multi`.
CURLMcode snippets_curl_multi_wakeup(CURLM *multi);
CURLMcode snippets_curl_multi_cleanup(CURLM *multi);
struct curl_slist *snippets_curl_slist_append(struct curl_slist *list, const char *line);
void snippets_curl_slist_free_all(struct curl_slist *list);

CURLcode snippets_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode snippets_curl_set_size(CURL *handle, CURLoption option, curl_off_t value);
CURLcode snippets_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode snippets_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode snippets_curl_set_headers(CURL *handle, struct curl_slist *headers);
CURLcode snippets_curl_set_write_callback(CURL *handle, snippets_curl_write_callback callback);
CURLcode snippets_curl_set_xferinfo_callback(CURL *handle, snippets_curl_xferinfo_callback callback);

/// The last response's HTTP status, 0 when none was received.
long snippets_curl_response_code(CURL *handle);

/// The result of the first finished transfer `curl_multi_info_read` reports, or -1 when none has finished.
int snippets_curl_multi_result(CURLM *multi);

#endif
