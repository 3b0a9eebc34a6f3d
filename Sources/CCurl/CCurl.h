// libcurl for Swift. `curl_easy_setopt` and `curl_easy_getinfo` are variadic, which Swift
// cannot call: these typed wrappers pass each kind of argument the way the C API expects.
#ifndef SELFDB_CCURL_H
#define SELFDB_CCURL_H

#include <curl/curl.h>

/// A write or header callback (`CURLOPT_WRITEFUNCTION`, `CURLOPT_HEADERFUNCTION`).
typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *context);
/// A progress callback (`CURLOPT_XFERINFOFUNCTION`): non-zero aborts the transfer.
typedef int (*ccurl_progress_callback)(void *context, curl_off_t download_total, curl_off_t downloaded,
                                       curl_off_t upload_total, curl_off_t uploaded);

/// A pre-request callback (`CURLOPT_PREREQFUNCTION`, libcurl 7.80 and later): called before
/// each time the request goes out on a connection, `CURL_PREREQFUNC_ABORT` stops the transfer.
typedef int (*ccurl_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port, int local_port);

static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode ccurl_setopt_progress_callback(CURL *handle, ccurl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

/// Sets the pre-request callback and its context; `CURLE_UNKNOWN_OPTION` where libcurl (at
/// build time or at run time) is older than 7.80.
static inline CURLcode ccurl_setopt_prereq_callback(CURL *handle, ccurl_prereq_callback callback, void *context) {
#if LIBCURL_VERSION_NUM >= 0x075000
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_PREREQDATA, context);
#else
    (void)handle; (void)callback; (void)context;
    return CURLE_UNKNOWN_OPTION;
#endif
}

static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
