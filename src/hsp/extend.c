/* extend — CPU materializer. */
#include "extend.h"

size_t hz_extend_cpu(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                     const hz_anchor *a, const uint32_t *ids, size_t nid,
                     const hz_xparams *xp, hz_hsp *out)
{
    size_t k = 0;
    for (size_t i = 0; i < nid; i++) {
        const hz_anchor *an = &a[ids[i]];
        k += (size_t)hz_materialize(R, Rlen, Q, Qlen, an->ar, an->aq, xp, &out[k]);
    }
    return k;
}

int hz_finish_hsp(const uint8_t *R, const uint8_t *Q, const hz_anchor *an, const hz_ext *e,
                  const hz_xparams *xp, hz_hsp *out)
{
    return hz_keep_hsp(R, Q, an->ar, an->aq, e->right_score + e->left_score, e->left_ext,
                       e->right_ext, xp, out);
}
