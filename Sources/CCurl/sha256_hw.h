#ifndef FEEDCRAWL_SHA256_HW_H
#define FEEDCRAWL_SHA256_HW_H

/*
 * SHA-256 block compression with the x86 SHA extensions (SHA-NI), for `SHA256` in FeedCrawlSupport.
 * Swift cannot name these instructions, so this one routine lives here as a static inline C
 * function (no library, no build step: the Swift compiler's clang importer compiles it).
 * `fc_sha256_hw_available()` says whether the CPU has them; elsewhere (other CPUs, other
 * architectures) it returns 0 and the pure-Swift compression runs instead.
 *
 * State layout: state[0..7] = H0..H7 (FIPS 180-4). `data` holds `blocks` 64-byte blocks.
 */

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>

static inline int fc_sha256_hw_available(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & (1u << 9)) || !(c & (1u << 19))) return 0; /* SSSE3, SSE4.1 */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & (1u << 29)) != 0; /* SHA */
}

__attribute__((target("sha,sse4.1,ssse3")))
static inline void fc_sha256_hw_compress(uint32_t *state, const uint8_t *data, size_t blocks) {
    static const uint32_t k[64] __attribute__((aligned(16))) = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };
    /* Big-endian words: reverse the bytes of each 32-bit lane. */
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

    /* The rounds instruction wants the state as ABEF and CDGH. */
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1); /* CDAB */
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);  /* EFGH */
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);                                           /* ABEF */
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                                /* CDGH */

    while (blocks-- > 0) {
        const __m128i abef = s0, cdgh = s1;
        __m128i w0, w1, w2, w3, m;
        /* Four rounds on message words wa (+ constants k[4i..]). */
#define FC_ROUNDS(i, wa)                                                        \
        m = _mm_add_epi32(wa, _mm_load_si128((const __m128i *)&k[4 * (i)]));    \
        s1 = _mm_sha256rnds2_epu32(s1, s0, m);                                  \
        s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E))
        /* The next four schedule words into wn (which holds msg1(older words)). */
#define FC_NEXT(wn, wa, wb) \
        wn = _mm_sha256msg2_epu32(_mm_add_epi32(wn, _mm_alignr_epi8(wa, wb, 4)), wa)
        w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 0)), swap);
        w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), swap);
        w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), swap);
        w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), swap);
        FC_ROUNDS(0, w0);
        FC_ROUNDS(1, w1); w0 = _mm_sha256msg1_epu32(w0, w1);
        FC_ROUNDS(2, w2); w1 = _mm_sha256msg1_epu32(w1, w2);
        FC_ROUNDS(3, w3); FC_NEXT(w0, w3, w2); w2 = _mm_sha256msg1_epu32(w2, w3);
        FC_ROUNDS(4, w0); FC_NEXT(w1, w0, w3); w3 = _mm_sha256msg1_epu32(w3, w0);
        FC_ROUNDS(5, w1); FC_NEXT(w2, w1, w0); w0 = _mm_sha256msg1_epu32(w0, w1);
        FC_ROUNDS(6, w2); FC_NEXT(w3, w2, w1); w1 = _mm_sha256msg1_epu32(w1, w2);
        FC_ROUNDS(7, w3); FC_NEXT(w0, w3, w2); w2 = _mm_sha256msg1_epu32(w2, w3);
        FC_ROUNDS(8, w0); FC_NEXT(w1, w0, w3); w3 = _mm_sha256msg1_epu32(w3, w0);
        FC_ROUNDS(9, w1); FC_NEXT(w2, w1, w0); w0 = _mm_sha256msg1_epu32(w0, w1);
        FC_ROUNDS(10, w2); FC_NEXT(w3, w2, w1); w1 = _mm_sha256msg1_epu32(w1, w2);
        FC_ROUNDS(11, w3); FC_NEXT(w0, w3, w2); w2 = _mm_sha256msg1_epu32(w2, w3);
        FC_ROUNDS(12, w0); FC_NEXT(w1, w0, w3); w3 = _mm_sha256msg1_epu32(w3, w0);
        FC_ROUNDS(13, w1); FC_NEXT(w2, w1, w0);
        FC_ROUNDS(14, w2); FC_NEXT(w3, w2, w1);
        FC_ROUNDS(15, w3);
#undef FC_ROUNDS
#undef FC_NEXT
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
        data += 64;
    }

    tmp = _mm_shuffle_epi32(s0, 0x1B);       /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);        /* DCHG */
    s0 = _mm_blend_epi16(tmp, s1, 0xF0);     /* DCBA */
    s1 = _mm_alignr_epi8(s1, tmp, 8);        /* HGFE */
    _mm_storeu_si128((__m128i *)&state[0], s0);
    _mm_storeu_si128((__m128i *)&state[4], s1);
}

#else

static inline int fc_sha256_hw_available(void) { return 0; }
static inline void fc_sha256_hw_compress(uint32_t *state, const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
}

#endif

#endif
