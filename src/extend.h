/* extend — materialization: full X-drop extension + entropy of gate survivors.
 *
 * Follows spec §4.2-4.5 with the 0.3.x counting rule (RULES.md "entropy counting");
 * arithmetic in xdrop.h, shared with cuda/extend.cu.
 */
#ifndef HZ_EXTEND_H
#define HZ_EXTEND_H
#include <stddef.h>
#include <stdint.h>
#include "gate.h"

/* For k = 0..nid-1 extend anchor a[ids[k]]; kept HSPs are appended to out in that order.
 * out must have room for nid records.  Returns the number kept. */
size_t hz_extend_cpu(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                     const hz_anchor *a, const uint32_t *ids, size_t nid,
                     const hz_xparams *xp, hz_hsp *out);

#endif
