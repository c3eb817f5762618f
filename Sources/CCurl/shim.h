#ifndef FEEDCRAWL_CCURL_SHIM_H
#define FEEDCRAWL_CCURL_SHIM_H

/* Typed wrappers for libcurl's variadic functions, which Swift cannot call. */

#include <curl/curl.h>
#include <sys/prctl.h>

static inline CURLcode fc_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode fc_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode fc_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode fc_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode fc_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode fc_setopt_writefn(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode fc_setopt_headerfn(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode fc_setopt_xferinfofn(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode fc_setopt_opensocketfn(CURL *h, curl_opensocket_callback f) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
static inline CURLcode fc_setopt_prereqfn(CURL *h, curl_prereq_callback f) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
static inline CURLcode fc_setopt_readfn(CURL *h, curl_read_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode fc_setopt_seekfn(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }

static inline CURLcode fc_getinfo_long(CURL *h, CURLINFO i, long *o) { return curl_easy_getinfo(h, i, o); }
static inline CURLcode fc_getinfo_off(CURL *h, CURLINFO i, curl_off_t *o) { return curl_easy_getinfo(h, i, o); }
static inline CURLcode fc_getinfo_dbl(CURL *h, CURLINFO i, double *o) { return curl_easy_getinfo(h, i, o); }
static inline CURLcode fc_getinfo_str(CURL *h, CURLINFO i, const char **o) { return curl_easy_getinfo(h, i, o); }
static inline CURLcode fc_getinfo_ptr(CURL *h, CURLINFO i, void **o) { return curl_easy_getinfo(h, i, o); }

static inline CURLSHcode fc_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }

static inline CURLMcode fc_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode fc_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode fc_multi_setopt_socketfn(CURLM *m, curl_socket_callback f) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }

/* Names the calling thread (shown by top -H, /proc/self/task/N/comm); prctl is variadic. */
static inline int fc_set_thread_name(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

static inline curl_version_info_data *fc_version_info(void) { return curl_version_info(CURLVERSION_NOW); }

/* The commit this build was made from, when the build was given it (scripts/run passes
   -Xcc -DFEEDCRAWL_COMMIT="\"<hash>\""); "" otherwise. */
static inline const char *fc_build_commit(void) {
#ifdef FEEDCRAWL_COMMIT
    return FEEDCRAWL_COMMIT;
#else
    return "";
#endif
}

#endif
