/* diagpart — automatic chunk size of the diagonal partition (diagpart.h; spec §7.3, §7.4). */
#include "diagpart.h"
#include <stdlib.h>

#define HZ_DIAG_MAX_CHUNK 50000u   /* runner.py's MAX_CHUNK_SIZE */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t hz_diagpart_auto_chunk(uint64_t *sizes, size_t n, uint64_t line_size)
{
    if (n < 2 || !line_size) return 0;
    qsort(sizes, n, sizeof *sizes, cmp_u64);
    /* statistics.quantiles, method 'exclusive', n=4: cut point i (1..3) sits at j = i*m//4 with
     * m = len+1, j clamped to 1..len-1, value (d[j-1]*(4-delta) + d[j]*delta) / 4 where
     * delta = i*m - 4*j.  The median is i=2, the third quartile i=3. */
    uint64_t i = n < 7 ? 2 : 3, m = (uint64_t)n + 1, j = i * m / 4;
    if (j < 1) j = 1;
    if (j > n - 1) j = n - 1;
    uint64_t delta = i * m - 4 * j;
    /* runner.py: int(value // line_size); value is num/4, exact, so this is num // (4*line_size) */
    unsigned __int128 num = (unsigned __int128)sizes[j - 1] * (4 - delta) + (unsigned __int128)sizes[j] * delta;
    unsigned __int128 chunk = num / ((unsigned __int128)4 * line_size);
    return chunk > HZ_DIAG_MAX_CHUNK ? HZ_DIAG_MAX_CHUNK : (uint64_t)chunk;
}

int hz_diagpart_must_split(uint64_t file_size, uint64_t first_line_size, uint64_t N)
{
    if (!first_line_size) return 0;
    return file_size / first_line_size > N;
}
