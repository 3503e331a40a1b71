// See include/CCurlLoader.h. The libcurl functions are called through pointers dlsym returned; the variadic two
// through pointers of their own variadic type, which C (unlike Swift) can call.
#include "CCurlLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

/// libcurl's functions as `load` resolved them; written once under `load_once`, only read afterwards.
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout_ms, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *left);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static snippets_curl_load_status load_status = SNIPPETS_CURL_NOT_FOUND;

#if defined(__APPLE__)
static const char *const library_names[] = {"/usr/lib/libcurl.4.dylib"};
#else
// libcurl.so.4 is the runtime package's file (Debian's libcurl4); libcurl.so only comes with the -dev package.
static const char *const library_names[] = {"libcurl.so.4", "libcurl.so"};
#endif
static const char *library_name = NULL;

/// Stores `dlsym(library, name)` in `*slot`; returns whether it was found. (Through `void **` because ISO C has no
/// conversion from `void *` to a function pointer; POSIX guarantees the representations agree.)
static int resolve(void *library, const char *name, void *slot) {
    void *address = dlsym(library, name);
    *(void **)slot = address;
    return address != NULL;
}

static void load(void) {
    void *library = NULL;
    for (size_t index = 0; index < sizeof library_names / sizeof library_names[0] && library == NULL; index++) {
        library = dlopen(library_names[index], RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) library_name = library_names[index];
    }
    if (library == NULL) {
        load_status = SNIPPETS_CURL_NOT_FOUND;
        return;
    }
    // Never closed: the handles and callbacks libcurl holds live as long as the process.
    int found = resolve(library, "curl_global_init", &curl.global_init)
        & resolve(library, "curl_easy_init", &curl.easy_init)
        & resolve(library, "curl_easy_cleanup", &curl.easy_cleanup)
        & resolve(library, "curl_easy_setopt", &curl.easy_setopt)
        & resolve(library, "curl_easy_getinfo", &curl.easy_getinfo)
        & resolve(library, "curl_multi_init", &curl.multi_init)
        & resolve(library, "curl_multi_add_handle", &curl.multi_add_handle)
        & resolve(library, "curl_multi_remove_handle", &curl.multi_remove_handle)
        & resolve(library, "curl_multi_perform", &curl.multi_perform)
        & resolve(library, "curl_multi_poll", &curl.multi_poll)
        & resolve(library, "curl_multi_wakeup", &curl.multi_wakeup)
        & resolve(library, "curl_multi_info_read", &curl.multi_info_read)
        & resolve(library, "curl_multi_cleanup", &curl.multi_cleanup)
        & resolve(library, "curl_slist_append", &curl.slist_append)
        & resolve(library, "curl_slist_free_all", &curl.slist_free_all);
    if (!found) {
        curl.easy_init = NULL;
        curl.multi_init = NULL;
        curl.slist_append = NULL;
        load_status = SNIPPETS_CURL_TOO_OLD;
        return;
    }
    // Process-wide set-up, before any easy handle exists (curl_global_init is not to race curl_easy_init).
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        curl.easy_init = NULL;
        curl.multi_init = NULL;
        curl.slist_append = NULL;
        load_status = SNIPPETS_CURL_INIT_FAILED;
        return;
    }
    load_status = SNIPPETS_CURL_LOADED;
}

snippets_curl_load_status snippets_curl_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *snippets_curl_library_name(void) { return library_name != NULL ? library_name : library_names[0]; }

// Every handle comes from these three, which answer NULL until libcurl is loaded; the other wrappers take a handle.
CURL *snippets_curl_easy_init(void) { return curl.easy_init != NULL ? curl.easy_init() : NULL; }
CURLM *snippets_curl_multi_init(void) { return curl.multi_init != NULL ? curl.multi_init() : NULL; }
struct curl_slist *snippets_curl_slist_append(struct curl_slist *list, const char *line) {
    return curl.slist_append != NULL ? curl.slist_append(list, line) : NULL;
}

void snippets_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
CURLMcode snippets_curl_multi_add_handle(CURLM *multi, CURL *handle) { return curl.multi_add_handle(multi, handle); }
CURLMcode snippets_curl_multi_remove_handle(CURLM *multi, CURL *handle) { return curl.multi_remove_handle(multi, handle); }
CURLMcode snippets_curl_multi_perform(CURLM *multi, int *running) { return curl.multi_perform(multi, running); }
CURLMcode snippets_curl_multi_poll(CURLM *multi, int timeout_ms) { return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL); }
CURLMcode snippets_curl_multi_wakeup(CURLM *multi) { return curl.multi_wakeup(multi); }
CURLMcode snippets_curl_multi_cleanup(CURLM *multi) { return curl.multi_cleanup(multi); }
void snippets_curl_slist_free_all(struct curl_slist *list) {
    // NULL is a no-op in libcurl too; here it may also come before libcurl is loaded.
    if (list != NULL) curl.slist_free_all(list);
}

CURLcode snippets_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode snippets_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode snippets_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode snippets_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode snippets_curl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl.easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

CURLcode snippets_curl_set_write_callback(CURL *handle, snippets_curl_write_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode snippets_curl_set_xferinfo_callback(CURL *handle, snippets_curl_xferinfo_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

long snippets_curl_response_code(CURL *handle) {
    long status = 0;
    if (curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK) return 0;
    return status;
}

int snippets_curl_multi_result(CURLM *multi) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->msg == CURLMSG_DONE) return (int)message->data.result;
    }
    return -1;
}
