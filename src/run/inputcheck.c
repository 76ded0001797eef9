/* inputcheck — record rules after loading (see inputcheck.h). */
#include "inputcheck.h"
#include "shquote.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HZ_2BIT_NAME_MAX 255   /* the 2bit index stores a name's length in one byte */

static int bad_name_byte(unsigned c) { return c <= ' ' || c == 0x7f; }   /* blank or control */

/* A name for a message: at most 60 bytes, then "..." */
static const char *shown(const char *name, char buf[72])
{
    snprintf(buf, 72, "%.60s%s", name, strlen(name) > 60 ? "..." : "");
    return buf;
}

int hz_prefix_check(const char *flag, const char *prefix, char *err, size_t errlen)
{
    for (const unsigned char *p = (const unsigned char *)(prefix ? prefix : ""); *p; p++)
        if (bad_name_byte(*p)) {
            char sv[256];
            snprintf(err, errlen, "%s: '%s' holds a blank or control byte (0x%02x at byte %zu); record "
                     "names cannot (lastz reads a name up to the first blank)", flag, hz_printable(prefix, 200, sv, sizeof sv), *p,
                     (size_t)(p - (const unsigned char *)prefix) + 1);
            return -1;
        }
    return 0;
}

static int ctrl_check(const char *flag, const char *value, const char *why, char *err, size_t errlen)
{
    for (const unsigned char *p = (const unsigned char *)(value ? value : ""); *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            char shown_v[256];
            snprintf(err, errlen, "%s: '%s' holds a control byte (0x%02x at byte %zu); %s", flag,
                     hz_printable(value, SIZE_MAX, shown_v, sizeof shown_v), *p, (size_t)(p - (const unsigned char *)value) + 1, why);
            return -1;
        }
    return 0;
}

int hz_cmdvalue_check(const char *flag, const char *value, char *err, size_t errlen)
{
    return ctrl_check(flag, value, "lastz-commands.txt has one command per line", err, errlen);
}

int hz_path_check(const char *flag, const char *path, char *err, size_t errlen)
{
    return ctrl_check(flag, path, "messages, the manifest and queries.tsv keep a path on one line", err, errlen);
}

typedef struct { const char *name; size_t idx; } named;

static int cmp_named(const void *pa, const void *pb)
{
    const named *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The first record (file order) whose non-empty name an earlier record has: *dup and *first
 * (0-based).  Returns 1 if there is one, 0 if not, -1 out of memory. */
static int first_duplicate(const hz_side *s, size_t *dup, size_t *first)
{
    if (s->n_rec < 2) return 0;
    named *v = malloc(s->n_rec * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < s->n_rec; i++) v[i] = (named){ s->name[i], i };
    qsort(v, s->n_rec, sizeof *v, cmp_named);
    int found = 0;
    size_t g = 0;   /* start of the current group of equal names */
    for (size_t i = 1; i < s->n_rec; i++) {
        if (strcmp(v[i].name, v[g].name)) { g = i; continue; }
        if (i == g + 1 && v[i].name[0] && (!found || v[i].idx < *dup)) { *dup = v[i].idx; *first = v[g].idx; found = 1; }
    }
    free(v);
    return found;
}

/* Rules that hold with and without --tarball.  0, or -1 with err. */
static int check_always(const hz_side *s, const char *flag, const char *prefix, char *err, size_t errlen)
{
    const char *path = s->seqs->path;
    for (size_t i = 0; i < s->n_rec; i++)
        for (const unsigned char *p = (const unsigned char *)s->name[i]; *p; p++)
            if (bad_name_byte(*p)) {
                char nb[72];
                snprintf(err, errlen, "%s: record %zu '%s' has a blank or control byte (0x%02x) in its name; "
                         "segment and .name files are TAB and line separated", path, i + 1, shown(s->name[i], nb), *p);
                return -1;
            }
    size_t dup = 0, first = 0;
    int d = first_duplicate(s, &dup, &first);
    if (d < 0) { snprintf(err, errlen, "%s: out of memory checking record names", path); return -1; }
    if (d) {
        char pf[300] = "", nb[72];
        if (prefix && prefix[0]) snprintf(pf, sizeof pf, " (with %s '%.200s')", flag, prefix);
        snprintf(err, errlen, "%s: record %zu '%s' has the same name as record %zu%s; segment lines and "
                 "lastz could not tell them apart", path, dup + 1, shown(s->name[dup], nb), first + 1, pf);
        return -1;
    }
    return 0;
}

/* 1 when LASTZ reads the name as another one: it drops a trailing ".nib", ".2bit", ".hsx",
 * ".fasta" or ".fa" (case-sensitive) from a name longer than that ending (lastz-gapped-spec.md
 * §1.3 step 5; Debian's lastz 1.04.22: "x.fa" -> "x", "x.FA" and ".fa" kept), so the
 * package's [subset=...] and segment lines name a record lastz does not have */
static int lastz_renames(const char *name)
{
    static const char *const END[] = { ".nib", ".2bit", ".hsx", ".fasta", ".fa" };
    size_t l = strlen(name);
    for (int k = 0; k < 5; k++) {
        size_t el = strlen(END[k]);
        if (l > el && !strcmp(name + l - el, END[k])) return 1;
    }
    return 0;
}

/* The package rules: kind 0 empty name, 1 no bases, 2 name over 255 bytes, 3 a name LASTZ
 * shortens. */
#define N_FAULT 4
static int package_fault(const hz_side *s, size_t i, int kind)
{
    switch (kind) {
    case 0: return s->name[i][0] == 0;
    case 1: return s->seqs->len[i] == 0;
    case 2: return strlen(s->name[i]) > HZ_2BIT_NAME_MAX;
    default: return lastz_renames(s->name[i]);
    }
}

static const char *const FAULT[N_FAULT] = {
    "has an empty name; lastz selects records by name (an empty name gives "
    "\"contigs-of-interest file is empty\")",
    "has no bases; LASTZ refuses a 2bit record of length 0 (\"bad 2bit length\")",
    "has a name longer than 255 bytes, the 2bit limit",
    "has a name ending in .fa, .fasta, .nib, .2bit or .hsx, which lastz drops from the names it reads "
    "(its lines would fail: \"extra segments in file\")",
};
static const char *const FAULT_ONE[N_FAULT] = { "has an empty name", "has no bases", "has a name longer than 255 bytes",
                                                "has a name ending in .fa, .fasta, .nib, .2bit or .hsx (lastz drops the ending)" };
static const char *const FAULT_MANY[N_FAULT] = { "have an empty name", "have no bases", "have a name longer than 255 bytes",
                                                 "have a name ending in .fa, .fasta, .nib, .2bit or .hsx (lastz drops the ending)" };

/* With --tarball or --gapped: the first record of s that breaks a package rule is an error
 * (--gapped gives lastz's bytes for the package's lines, and lastz fails those lines: refused
 * here, before any work, rather than in the gapped stage after the HSPs).  what: "--tarball
 * cannot package it" or "--gapped cannot align it". */
static int check_package(const hz_side *s, const char *what, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->n_rec; i++)
        for (int k = 0; k < N_FAULT; k++)
            if (package_fault(s, i, k)) {
                char nb[72];
                snprintf(err, errlen, "%s: record %zu '%s' %s, so %s", s->seqs->path,
                         i + 1, shown(s->name[i], nb), FAULT[k], what);
                return -1;
            }
    return 0;
}

/* Without --tarball: one note per package rule that some records break. */
static void note_package(const hz_side *s)
{
    for (int k = 0; k < N_FAULT; k++) {
        size_t n = 0, first = 0;
        for (size_t i = 0; i < s->n_rec; i++)
            if (package_fault(s, i, k) && n++ == 0) first = i;
        char nb[72];
        if (n)
            fprintf(stderr, "hspz: note: %s: %zu record%s %s (first: record %zu '%s'); the segments are "
                    "KegAlign's, but lastz-commands.txt cannot select such records from a 2bit (--tarball refuses them)\n",
                    s->seqs->path, n, n == 1 ? "" : "s", n == 1 ? FAULT_ONE[k] : FAULT_MANY[k], first + 1, shown(s->name[first], nb));
    }
}

static void note_other(const hz_side *s)
{
    const hz_seqset *q = s->seqs;
    if (!q->n_other) return;
    unsigned c = q->other_byte;
    char b[8], nb[72];
    if (c > ' ' && c < 0x7f) snprintf(b, sizeof b, "'%c'", (int)c); else snprintf(b, sizeof b, "0x%02x", c);
    fprintf(stderr, "hspz: note: %s: %llu base%s not IUPAC nucleotide letters (X, digits, '*', '-', blanks...): kept, "
            "and they never match, as in KegAlign (first: %s in record %zu '%s', byte offset %llu)\n",
            q->path, (unsigned long long)q->n_other, q->n_other == 1 ? " is" : "s are", b, q->other_rec + 1,
            shown(s->name[q->other_rec], nb), (unsigned long long)q->other_off);
}

/* Nothing to seed on a side: no upper-case A, C, G or T (seeds and their X-drop anchors use only
 * those, spec §2.2: lower case is the masked code L, N and other letters never seed).  One note
 * with the reason, so a run with 0 segments says why (issue 31).  Stops at the first ACGT. */
static void note_seedable(const hz_side *s)
{
    const hz_seqset *q = s->seqs;
    int lower = 0;
    for (uint64_t i = 0; i < q->total; i++) {
        unsigned char c = q->data[i];
        if (c == 'A' || c == 'C' || c == 'G' || c == 'T') return;
        lower |= c == 'a' || c == 'c' || c == 'g' || c == 't';
    }
    fprintf(stderr, "hspz: note: %s: nothing to seed: %s; seeds use only upper-case A, C, G and T, so no HSPs "
            "can be found\n", q->path,
            !q->total ? "no bases (headers only)" : lower ? "every A, C, G and T is soft-masked (lower case)"
                      : "no A, C, G or T bases (only N or other letters)");
}

int hz_input_check(const hz_opts *o, const hz_side *t, const hz_side *q, char *err, size_t errlen)
{
    if (check_always(t, "--target-prefix", o->target_prefix, err, errlen)) return -1;
    if (check_always(q, "--query-prefix", o->query_prefix, err, errlen)) return -1;
    if (o->tarball && !o->segments_archive) {
        const char *w = "--tarball cannot package it";
        if (check_package(t, w, err, errlen) || check_package(q, w, err, errlen)) return -1;
    }
    if (o->gapped && !o->nogapped) {
        const char *w = "--gapped cannot align it";
        if (check_package(t, w, err, errlen) || check_package(q, w, err, errlen)) return -1;
    }
    if (o->quiet) return 0;
    if (!o->tarball && !o->gapped && !o->nogapped) { note_package(t); note_package(q); }
    note_other(t);
    note_other(q);
    note_seedable(t);
    note_seedable(q);
    return 0;
}
