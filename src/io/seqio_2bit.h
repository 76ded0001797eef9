/* seqio_2bit — the UCSC 2bit reader of hz_seqset_load (seqio.h).  seqio.c picks it by the
 * magic and calls it; it uses only the loader helpers of seqrec.h and inread.h. */
#ifndef HZ_SEQIO_2BIT_H
#define HZ_SEQIO_2BIT_H
#include "seqrec.h"

/* The 2bit file on fd (a regular file; magic: its first 4 bytes) into L->s (seqio_2bit.c):
 * read front to back once, hashed on the way (L->s->sha256, file_bytes).  0 or -1 (err set:
 * seqio.h lists the messages). */
int hz_sq_load_2bit(loader *L, int fd, const uint8_t magic[4]);

#endif
