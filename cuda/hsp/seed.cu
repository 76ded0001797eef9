/* seed (CUDA) — the target seed-position table built on the device (spec §3.3), the query's
 * seed codes and device seeding of query chunks (spec §3.2, §3.4).
 *
 * One thread per indexed position computes the k-mer of its window from the block's
 * extension codes (codes < 4 are A C G T, the only seedable bytes; invalid windows get the
 * key 4^K); a stable CUB radix sort by key keeps positions ascending inside each bucket, so
 * the table is identical to hz_seedtable_build's of the block's bytes.  The table is either
 * copied back to the host (host seed lookups, the index) or kept on the device.
 */
#include "cuda_common.cuh"
#include <cub/device/device_radix_sort.cuh>
extern "C" {
#include "seed.h"
}

struct dev_shape { int span, weight; int care[HZ_SEED_MAX_SPAN]; };

__global__ void kmer_kernel(const uint8_t *__restrict__ T, uint64_t num_steps, uint32_t start_offset,
                            uint32_t step, dev_shape sh, uint32_t invalid, uint32_t *key, uint32_t *pos)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_steps) return;
    uint32_t p = start_offset + (uint32_t)i * step;
    uint32_t v = 0;
    bool ok = true;
    for (int k = 0; k < sh.span; k++) ok &= T[p + k] < 4;
    if (ok)
        for (int k = 0; k < sh.weight; k++) v = (v << 2) | T[p + sh.care[k]];
    key[i] = ok ? v : invalid;
    pos[i] = p;
}

/* off[v] = first index with key >= v, v = 0..nb (keys sorted) */
__global__ void offsets_kernel(const uint32_t *__restrict__ key, uint64_t n, uint64_t nb, uint32_t *off)
{
    uint64_t v = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v > nb) return;
    uint64_t lo = 0, hi = n;
    while (lo < hi) { uint64_t m = (lo + hi) >> 1; if (key[m] < v) lo = m + 1; else hi = m; }
    off[v] = (uint32_t)lo;
}

__global__ void pack_kernel(const uint32_t *key, const uint32_t *pos, uint64_t n, uint64_t *out)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = ((uint64_t)key[i] << 32) | pos[i];
}

/* Build the table of a block with extension codes T[0..L) on the current device.  keep_pos
 * NULL: into tab on the host.  Else (direct mode only, weight <= 13) the table stays on the
 * device: *keep_pos (positions grouped by bucket) and *keep_boff (4^K + 1 offsets), cudaFree'd
 * by the caller, and tab gets only weight and n_pos.  Returns 0 or -1 (err). */
extern "C" int hz_cuda_seedtable_build(hz_seedtable *tab, const uint8_t *T, uint32_t L,
                                       const hz_shape *sh, uint32_t step, uint32_t **keep_pos,
                                       uint32_t **keep_boff, char *err, size_t errlen)
{
    memset(tab, 0, sizeof *tab);
    tab->weight = sh->weight;
    uint32_t W = (uint32_t)sh->span;
    uint64_t num_steps = 0, start_offset = 0;
    if (L >= W) {
        uint32_t offset = (W + 1) % step;
        start_offset = step - offset;
        num_steps = ((uint64_t)L - W + offset) / step;
    }
    uint64_t nb = 1ULL << (2 * sh->weight);
    uint32_t invalid = (uint32_t)nb;
    int direct = sh->weight <= 13;
    dev_shape ds; ds.span = sh->span; ds.weight = sh->weight;
    memcpy(ds.care, sh->care, sizeof ds.care);
    uint8_t *dT = NULL; uint32_t *k1 = NULL, *k2 = NULL, *p1 = NULL, *p2 = NULL, *doff = NULL;
    uint64_t *dpack = NULL; void *tmp = NULL; size_t tb = 0;
    uint64_t n = num_steps ? num_steps : 1, nvalid = 0;
    int endbit = 2 * sh->weight + 1;
    HZ_CUDA_CHECK(cudaMalloc(&dT, (size_t)L + 1), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpy(dT, T, L, cudaMemcpyHostToDevice), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&k1, n * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&k2, n * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&p1, n * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&p2, n * 4), err, errlen, fail);
    if (num_steps) {
        kmer_kernel<<<(unsigned)((num_steps + 255) / 256), 256>>>(dT, num_steps, (uint32_t)start_offset, step, ds, invalid, k1, p1);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        HZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tb, k1, k2, p1, p2, (int64_t)num_steps, 0, endbit), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&tmp, tb), err, errlen, fail);
        HZ_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp, tb, k1, k2, p1, p2, (int64_t)num_steps, 0, endbit), err, errlen, fail);
    }
    if (direct) {
        HZ_CUDA_CHECK(cudaMalloc(&doff, (nb + 1) * 4), err, errlen, fail);
        offsets_kernel<<<(unsigned)((nb + 1 + 255) / 256), 256>>>(k2, num_steps, nb, doff);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        if (keep_pos) {   /* resident: the sorted positions and offsets are the table */
            uint32_t nv = 0;
            HZ_CUDA_CHECK(cudaMemcpy(&nv, doff + nb, 4, cudaMemcpyDeviceToHost), err, errlen, fail);
            tab->n_pos = nv;
            *keep_pos = p2; *keep_boff = doff;
            p2 = doff = NULL;
            cudaFree(dT); cudaFree(k1); cudaFree(k2); cudaFree(p1); cudaFree(tmp);
            return 0;
        }
        tab->bucket_off = (uint32_t *)malloc((nb + 1) * 4);
        if (!tab->bucket_off) { snprintf(err, errlen, "out of host memory"); goto fail; }
        HZ_CUDA_CHECK(cudaMemcpy(tab->bucket_off, doff, (nb + 1) * 4, cudaMemcpyDeviceToHost), err, errlen, fail);
        nvalid = tab->bucket_off[nb];
        tab->pos = (uint32_t *)malloc((nvalid ? nvalid : 1) * 4);
        if (!tab->pos) { snprintf(err, errlen, "out of host memory"); goto fail; }
        if (nvalid) HZ_CUDA_CHECK(cudaMemcpy(tab->pos, p2, nvalid * 4, cudaMemcpyDeviceToHost), err, errlen, fail);
    } else {
        uint32_t *hk = (uint32_t *)malloc(n * 4);
        if (!hk) { snprintf(err, errlen, "out of host memory"); goto fail; }
        if (num_steps) HZ_CUDA_CHECK(cudaMemcpy(hk, k2, num_steps * 4, cudaMemcpyDeviceToHost), err, errlen, fail);
        uint64_t lo = 0, hi = num_steps;
        while (lo < hi) { uint64_t m = (lo + hi) / 2; if (hk[m] < invalid) lo = m + 1; else hi = m; }
        free(hk);
        nvalid = lo;
        HZ_CUDA_CHECK(cudaMalloc(&dpack, (nvalid ? nvalid : 1) * 8), err, errlen, fail);
        if (nvalid) pack_kernel<<<(unsigned)((nvalid + 255) / 256), 256>>>(k2, p2, nvalid, dpack);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        tab->sorted = (uint64_t *)malloc((nvalid ? nvalid : 1) * 8);
        if (!tab->sorted) { snprintf(err, errlen, "out of host memory"); goto fail; }
        if (nvalid) HZ_CUDA_CHECK(cudaMemcpy(tab->sorted, dpack, nvalid * 8, cudaMemcpyDeviceToHost), err, errlen, fail);
    }
    tab->n_pos = nvalid;
    cudaFree(dT); cudaFree(k1); cudaFree(k2); cudaFree(p1); cudaFree(p2); cudaFree(doff); cudaFree(dpack); cudaFree(tmp);
    return 0;
fail:
    cudaFree(dT); cudaFree(k1); cudaFree(k2); cudaFree(p1); cudaFree(p2); cudaFree(doff); cudaFree(dpack); cudaFree(tmp);
    hz_seedtable_free(tab);
    return -1;
}

/* ---- device seeding of one query chunk (spec §3.2, §3.4) ------------------------------ */
#include <cub/device/device_scan.cuh>

__global__ void window_kernel(const uint8_t *__restrict__ S, uint32_t j0, uint32_t n, dev_shape sh,
                              uint8_t *valid, uint32_t *kmer)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint8_t *w = S + j0 + i;
    bool ok = true;
    for (int k = 0; k < sh.span; k++) ok &= w[k] < 4;
    uint32_t v = 0;
    if (ok)
        for (int k = 0; k < sh.weight; k++) v = (v << 2) | w[sh.care[k]];
    valid[i] = ok;
    kmer[i] = v;
}

__global__ void seed_count_kernel(const uint32_t *__restrict__ kmer, const uint32_t *__restrict__ vid,
                                  uint64_t ns, uint32_t per, uint32_t j0, const uint32_t *__restrict__ boff,
                                  uint64_t *cnt, uint64_t *bstart, uint32_t *qpos)
{
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    uint32_t idx = (uint32_t)(s / per), t = (uint32_t)(s % per);
    uint32_t i = vid[idx];
    uint32_t v = kmer[i] ^ (t ? (2u << (2 * (t - 1))) : 0u);
    uint32_t a = boff[v];
    cnt[s] = boff[v + 1] - a;
    bstart[s] = a;
    qpos[s] = j0 + i;
}

__global__ void excl_kernel(const uint64_t *pref, const uint64_t *cnt, uint64_t ns, uint64_t *off)
{
    uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < ns) off[s] = pref[s] - cnt[s];
}

__global__ void minus_codes_kernel(const uint8_t *__restrict__ Qr, uint32_t L, uint8_t *S)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < L) S[i] = Qr[i] < 4 ? Qr[i] : 4;
}

__global__ void u_kernel(const uint32_t *__restrict__ u, uint64_t nu, uint32_t L, uint8_t *S)
{
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nu) S[L - 1 - u[k]] = 0;   /* the host reverse complement seeds 'U' as 'A' (delta §1b) */
}

int hz_cuda_minus_seed_codes(const uint8_t *Qr, uint32_t L, const uint32_t *u, size_t nu, uint8_t *S,
                             char *err, size_t errlen)
{
    uint32_t *du = NULL;
    if (L) minus_codes_kernel<<<(L + 255) / 256, 256>>>(Qr, L, S);
    HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    if (nu) {
        HZ_CUDA_CHECK(cudaMalloc(&du, nu * 4), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMemcpy(du, u, nu * 4, cudaMemcpyHostToDevice), err, errlen, fail);
        u_kernel<<<(unsigned)((nu + 255) / 256), 256>>>(du, nu, L, S);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    }
    HZ_CUDA_CHECK(cudaDeviceSynchronize(), err, errlen, fail);
    cudaFree(du);
    return 0;
fail:
    cudaFree(du);
    return -1;
}

void hz_seed_scratch_free(hz_seed_scratch *sc)
{
    cudaFree(sc->valid); cudaFree(sc->kmer); cudaFree(sc->vid); cudaFree(sc->cnt);
    cudaFree(sc->pref); cudaFree(sc->off); cudaFree(sc->bstart); cudaFree(sc->qpos);
    cudaFree(sc->d_n); cudaFree(sc->d_nh); cudaFree(sc->temp);
    memset(sc, 0, sizeof *sc);
}

int hz_cuda_seed_chunk(const uint8_t *S, uint32_t j0, uint32_t j1, const hz_shape *sh,
                       const uint32_t *bucket_off, hz_seed_scratch *sc, uint32_t *ns_out, uint64_t *nh_out,
                       cudaStream_t st, char *err, size_t errlen)
{
    uint32_t n = j1 > j0 ? j1 - j0 : 0;
    uint32_t per = 1 + (sh->transition ? (uint32_t)sh->weight : 0);
    uint32_t nv = 0;
    uint64_t ns, nh = 0;
    size_t tb;
    *ns_out = 0; *nh_out = 0;
    if (!n) return 0;
    if (n > sc->pos_cap || (size_t)n * per > sc->seed_cap) {
        hz_seed_scratch_free(sc);
        size_t pc = n, scap = (size_t)n * per;
        HZ_CUDA_CHECK(cudaMalloc(&sc->valid, pc), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->kmer, pc * 4), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->vid, pc * 4), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->cnt, scap * 8), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->pref, scap * 8), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->off, scap * 8), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->bstart, scap * 8), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->qpos, scap * 4), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->d_n, 8), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMalloc(&sc->d_nh, 8), err, errlen, fail);
        size_t b1 = 0, b2 = 0;
        HZ_CUDA_CHECK(hz_cuda_select(sc->valid, pc, 1, sc->vid, sc->d_n, NULL, &b1, st), err, errlen, fail);
        HZ_CUDA_CHECK(cub::DeviceScan::InclusiveSum(NULL, b2, sc->cnt, sc->pref, (int64_t)scap, st), err, errlen, fail);
        sc->temp_bytes = b1 > b2 ? b1 : b2;
        HZ_CUDA_CHECK(cudaMalloc(&sc->temp, sc->temp_bytes), err, errlen, fail);
        sc->pos_cap = pc; sc->seed_cap = scap;
    }
    {
        dev_shape ds; ds.span = sh->span; ds.weight = sh->weight;
        memcpy(ds.care, sh->care, sizeof ds.care);
        window_kernel<<<(n + 255) / 256, 256, 0, st>>>(S, j0, n, ds, sc->valid, sc->kmer);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    }
    tb = sc->temp_bytes;
    HZ_CUDA_CHECK(hz_cuda_select(sc->valid, n, 1, sc->vid, sc->d_n, sc->temp, &tb, st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpyAsync(&nv, sc->d_n, 4, cudaMemcpyDeviceToHost, st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(st), err, errlen, fail);
    ns = (uint64_t)nv * per;
    if (!ns) return 0;
    seed_count_kernel<<<(unsigned)((ns + 255) / 256), 256, 0, st>>>(sc->kmer, sc->vid, ns, per, j0, bucket_off,
                                                                   sc->cnt, sc->bstart, sc->qpos);
    HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    tb = sc->temp_bytes;
    HZ_CUDA_CHECK(cub::DeviceScan::InclusiveSum(sc->temp, tb, sc->cnt, sc->pref, (int64_t)ns, st), err, errlen, fail);
    excl_kernel<<<(unsigned)((ns + 255) / 256), 256, 0, st>>>(sc->pref, sc->cnt, ns, sc->off);
    HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpyAsync(&nh, sc->pref + ns - 1, 8, cudaMemcpyDeviceToHost, st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(st), err, errlen, fail);
    *ns_out = (uint32_t)ns; *nh_out = nh;
    return 0;
fail:
    return -1;
}
