// libcurl's C API for the model client (SnippetsModelClient's ModelHTTP). curl_easy_setopt and curl_easy_getinfo
// are variadic, which Swift cannot call, so each argument type gets a fixed-signature wrapper here.
#ifndef SNIPPETS_CCURL_SHIM_H
#define SNIPPETS_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*snippets_curl_write_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*snippets_curl_xferinfo_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                               curl_off_t upload_total, curl_off_t uploaded);

static inline CURLcode snippets_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode snippets_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode snippets_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode snippets_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode snippets_curl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

static inline CURLcode snippets_curl_set_write_callback(CURL *handle, snippets_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode snippets_curl_set_xferinfo_callback(CURL *handle, snippets_curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

/// The last response's HTTP status, 0 when none was received.
static inline long snippets_curl_response_code(CURL *handle) {
    long status = 0;
    if (curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK) return 0;
    return status;
}

/// The result of the first finished transfer `curl_multi_info_read` reports, or -1 when none has finished.
static inline int snippets_curl_multi_result(CURLM *multi) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg == CURLMSG_DONE) return (int)message->data.result;
    }
    return -1;
}

#endif
