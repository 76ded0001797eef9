/* shquote — values written into POSIX sh command lines (lastz-commands.txt), and into
 * one-line messages (hz_printable).
 *
 * Hardening rule (README "lastz commands"): every value hspz writes into a line that is meant
 * for a shell is quoted for POSIX sh, so a data folder, format or path can never run a
 * command.  A value made only of safe bytes is written as it is, which keeps KegAlign's
 * exact bytes for every ordinary value (spec §6.4; the goldens compare lastz-commands.txt
 * byte for byte); any other value becomes one single-quoted string, each embedded ' written
 * as '\'' (POSIX XCU 2.2.3: inside single quotes nothing is special).
 */
#ifndef HZ_SHQUOTE_H
#define HZ_SHQUOTE_H
#include <stddef.h>

/* 1 when every byte of s is in the safe set  A-Z a-z 0-9 _ - . / : , = + @ %  (none of them
 * is special to sh anywhere in a word: no expansion, globbing, quoting, comment, tilde or
 * field splitting), else 0.  The empty string is safe: it adds nothing to the word it is
 * part of. */
int hz_sh_safe(const char *s);

/* s as a part of a sh word: a malloc'd copy of s when hz_sh_safe(s), else s in single
 * quotes with each ' as '\''.  NULL when out of memory. */
char *hz_sh_quote(const char *s);

/* At most maxlen bytes of s (up to its NUL) for a one-line message: control bytes (0x00-0x1f,
 * 0x7f) and bytes >= 0x80 that do not form a UTF-8 character as \xHH, into buf (n bytes, always terminated; cut where it is full).  Returns buf. */
const char *hz_printable(const char *s, size_t maxlen, char *buf, size_t n);

/* Split a command line hspz wrote (lastz-commands.txt: words, '...' quoting as hz_sh_quote
 * writes it, a '\' escaping the next byte, an optional "2> FILE" at the end) in place into
 * av[0..max).  *errfile gets FILE (NULL without a redirection).  Returns the word count, or -1
 * on a line it cannot read (other shell syntax: quotes ", $, `, |, ;, &, <; more than max words;
 * words after the redirection). */
int hz_sh_split(char *line, char **av, int max, char **errfile);

#endif
