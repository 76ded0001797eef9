/* tap.h — the TAP helpers shared by the C unit tests: check() prints "ok N - ..." or
 * "not ok N - ..." and counts; define HZ_TEST_SEED before including for rnd(), a xorshift64
 * generator (fixed seed, so every run draws the same data). */
#ifndef HZ_TEST_TAP_H
#define HZ_TEST_TAP_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

static int n_tests, n_fail;

static int check(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - ", cond ? "ok" : "not ok", n_tests);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    return cond;
}

#ifdef HZ_TEST_SEED
static uint64_t rng_state = HZ_TEST_SEED;
static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return rng_state = x;
}
#endif
#endif
