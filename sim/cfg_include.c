/*
 * cfg_include.c -- @include done by the loader itself, before libconfig
 * sees the text.
 *
 * libconfig 1.5 (Debian 12) opens an @include relative to one include
 * directory, has no hook to look elsewhere, says only "cannot open include
 * file" without the name, and its scanner exit()s on a directory or a NUL
 * byte.  So the scenario and every file it includes are read here and
 * checked alike (a regular file of bounded size, infile.h; no NUL byte; no
 * string left open at the end of its line or opened where no value can
 * be), each @include line is checked
 * (found on the path of sim/path.h, no cycle, at most CFG_INCLUDE_DEPTH
 * deep) with the FILE:LINE of the @include and the path tried, and the
 * files are spliced into one text for config_read_string().  A table maps
 * each line of that text back to its file and line, so every later message
 * still names the file the user wrote (cfg_line_src).
 *
 * The splice follows libconfig's scanner: an @include is a line starting
 * with blanks, "@include", blanks and a quoted name ("\\" and "\"" are its
 * only escapes), and it is not one inside a string or a block comment; the
 * included text comes in its place and the rest of the line after it.
 *
 * sc_path() finds the other files a scenario names (traces) the same way.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cfg_int.h"
#include "sim/infile.h"
#include "sim/path.h"

#define CFG_INCLUDE_DEPTH 10		/* libconfig's own limit */
#define CFG_FILE_MAX (64u << 20)	/* a scenario file bigger is not one */

struct cfg_lines {
	char **files;			/* files[0]: the scenario, as given */
	size_t n_files;
	uint32_t *file_of, *line_of;	/* by line of the text - 1 */
	size_t n, cap;
};

enum lex { LEX_CODE, LEX_STRING, LEX_COMMENT };

struct splice {
	struct scenario *sc;
	char *text;			/* the spliced text so far */
	size_t len, cap;
	enum lex lex;			/* scanner state, across files as libconfig's */
	char prev;			/* the last code character before, 0: none */
	bool misplaced;			/* a string opened where no value can be */
	struct stat open[CFG_INCLUDE_DEPTH + 1];	/* files being read, for cycles */
	int depth;
};

/* ---- the line table ----------------------------------------------------- */

static uint32_t lines_file(struct cfg_lines *l, const char *path)
{
	l->files = cfg_xrealloc(l->files, (l->n_files + 1) * sizeof *l->files);
	l->files[l->n_files] = cfg_xstrndup(path, strlen(path));
	return (uint32_t)l->n_files++;
}

/* Append n bytes of one source line (file f, line) to the text; each
 * newline ends a line of the text that maps back there. */
static void emit(struct splice *sp, const char *p, size_t n, uint32_t f,
		 uint32_t line)
{
	struct cfg_lines *l = sp->sc->lines;

	if (sp->len + n + 2 > sp->cap) {
		sp->cap = (sp->len + n + 2) * 2;
		sp->text = cfg_xrealloc(sp->text, sp->cap);
	}
	memcpy(sp->text + sp->len, p, n);
	sp->len += n;
	sp->text[sp->len] = '\0';
	for (const char *q = p, *end = p + n;
	     (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) {
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->file_of = cfg_xrealloc(l->file_of, l->cap * sizeof *l->file_of);
			l->line_of = cfg_xrealloc(l->line_of, l->cap * sizeof *l->line_of);
		}
		l->file_of[l->n] = f;
		l->line_of[l->n++] = line;
	}
}

const char *cfg_line_src(const struct scenario *sc, unsigned line,
			 unsigned *file_line)
{
	const struct cfg_lines *l = sc->lines;

	if (l == NULL || l->n == 0 || line == 0) {
		*file_line = line;
		return sc->file;
	}
	if (line > l->n)
		line = (unsigned)l->n;	/* libconfig's EOF is past the last line */
	*file_line = l->line_of[line - 1];
	return l->files[l->file_of[line - 1]];
}

const char *cfg_setting_src(const struct scenario *sc,
			    const config_setting_t *s, unsigned *line)
{
	return cfg_line_src(sc, config_setting_source_line(s), line);
}

size_t cfg_src_files(const struct scenario *sc, const char *const **files)
{
	if (sc->lines == NULL) {
		*files = NULL;
		return 0;
	}
	*files = (const char *const *)sc->lines->files;
	return sc->lines->n_files;
}

void cfg_lines_free(struct cfg_lines *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n_files; i++)
		free(l->files[i]);
	free(l->files);
	free(l->file_of);
	free(l->line_of);
	free(l);
}

/* ---- reading one file --------------------------------------------------- */

/* The whole of an open file, NUL-terminated, in *buf; -1 with why. */
static int slurp(FILE *f, char **buf, size_t *len, char *why, size_t n)
{
	size_t cap = 4096, k = 0;
	char *b = cfg_xrealloc(NULL, cap);

	for (;;) {
		size_t got = fread(b + k, 1, cap - k - 1, f);
		k += got;
		if (got == 0)
			break;
		if (k > CFG_FILE_MAX) {
			free(b);
			snprintf(why, n, "larger than %u MiB (not a scenario)",
				 CFG_FILE_MAX >> 20);
			return -1;
		}
		if (cap - k - 1 < 4096)
			b = cfg_xrealloc(b, cap *= 2);
	}
	if (ferror(f)) {
		free(b);
		snprintf(why, n, "cannot read: %s", strerror(errno));
		return -1;
	}
	b[k] = '\0';
	*buf = b;
	*len = k;
	return 0;
}

/* Open path for splicing: the scenario or an @included file alike must be
 * a regular file of bounded size (infile.h: a FIFO or /dev/zero is never
 * read), readable, text; its stat in st.  A NUL byte sets *nul_line to
 * its line. */
static int read_text(const char *path, struct stat *st, char **buf,
		     size_t *len, unsigned *nul_line, char *why, size_t n)
{
	FILE *f;
	const char *nul;
	struct err ie = { 0 };

	*nul_line = 0;
	if (infile_check(path, &ie) < 0) {	/* "PATH: what", the PATH dropped */
		size_t at = strlen(path) + 2;
		snprintf(why, n, "%.500s", strlen(ie.msg) > at ? ie.msg + at : ie.msg);
		return -1;
	}
	if (stat(path, st) < 0) {
		snprintf(why, n, "cannot read: %s", strerror(errno));
		return -1;
	}
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(why, n, "cannot read: %s", strerror(errno));
		return -1;
	}
	int rc = slurp(f, buf, len, why, n);
	fclose(f);
	if (rc < 0)
		return -1;
	if ((nul = memchr(*buf, '\0', *len)) != NULL) {
		*nul_line = 1;
		for (const char *p = *buf; p < nul; p++)
			*nul_line += *p == '\n';
		snprintf(why, n, "a NUL byte (a scenario file is text)");
		free(*buf);
		return -1;
	}
	/* A UTF-8 byte-order mark (an editor's) is no part of the text,
	 * as textfile.h drops it from traces; the lines do not move. */
	if (*len >= 3 && memcmp(*buf, "\xEF\xBB\xBF", 3) == 0) {
		memmove(*buf, *buf + 3, *len - 2);	/* and its NUL */
		*len -= 3;
	}
	return 0;
}

/* ---- splicing ----------------------------------------------------------- */

static int splice_file(struct splice *sp, const char *path, const char *text,
		       size_t len, uint32_t f, struct err *e);

/* The first of the bytes a (and b, and c; 0 for none) in [p, end), or end:
 * memchr is far quicker than a loop over every byte (the planner loads a
 * scenario thousands of times). */
static const char *first_of(const char *p, const char *end, char a, char b, char c)
{
	const char *best = end, *q;
	size_t n = (size_t)(end - p);

	if ((q = memchr(p, a, n)) != NULL)
		best = q, n = (size_t)(q - p);
	if (b && (q = memchr(p, b, n)) != NULL)
		best = q, n = (size_t)(q - p);
	if (c && (q = memchr(p, c, n)) != NULL)
		best = q;
	return best;
}

/* The last character of code in [from, to) that is not blank into
 * sp->prev (unchanged when all are blank). */
static void note_prev(struct splice *sp, const char *from, const char *to)
{
	while (to > from && (to[-1] == ' ' || to[-1] == '\t' || to[-1] == '\r' ||
			     to[-1] == '\n' || to[-1] == '\f' || to[-1] == '\v'))
		to--;
	if (to > from)
		sp->prev = to[-1];
}

/* Move the scanner state over one line's code part [p, end).  Where a
 * string opens, the code before it must allow one (a value after = or :,
 * an element after [, ( or ",", or a string to join): elsewhere libconfig
 * 1.5 fails with "syntax error" and leaks the string's buffer (its grammar
 * frees no token it drops; found by tests/fuzz), so sp->misplaced says so
 * and the caller refuses the line first. */
static void lex_line(struct splice *sp, const char *p, const char *end)
{
	const char *seg = p;	/* where the current run of code began */

	for (; p < end; p++) {
		switch (sp->lex) {
		case LEX_CODE:
			if ((p = first_of(p, end, '"', '#', '/')) == end) {
				note_prev(sp, seg, end);
				return;
			}
			if (*p == '"') {
				note_prev(sp, seg, p);
				if (!strchr("=:,([\"", sp->prev) || sp->prev == '\0')
					sp->misplaced = true;
				sp->lex = LEX_STRING;
			} else if (*p == '#' || (p + 1 < end && p[1] == '/')) {
				note_prev(sp, seg, p);
				return;		/* a comment to the end of the line */
			} else if (p + 1 < end && p[1] == '*') {
				note_prev(sp, seg, p);
				sp->lex = LEX_COMMENT;
				p++;
			}
			break;
		case LEX_STRING:
			if ((p = first_of(p, end, '"', '\\', 0)) == end)
				return;
			if (*p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"') {
				sp->lex = LEX_CODE;
				sp->prev = '"';
				seg = p + 1;
			}
			break;
		case LEX_COMMENT:
			if ((p = first_of(p, end, '*', 0, 0)) == end)
				return;
			if (p + 1 < end && p[1] == '/') {
				sp->lex = LEX_CODE;
				p++;
				seg = p + 1;
			}
			break;
		}
	}
}

/* If the line [p, end) is an @include, its name (unescaped) into name and
 * the byte after the closing quote in *rest; 1 if so, 0 if not, -1 if the
 * quote does not close on the line. */
static int include_line(const char *p, const char *end, char *name, size_t n,
			const char **rest)
{
	size_t k = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 9 || memcmp(p, "@include", 8) != 0 ||
	    (p[8] != ' ' && p[8] != '\t'))
		return 0;
	for (p += 8; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	if (p == end || *p != '"')
		return 0;
	for (p++; p < end && *p != '"' && *p != '\n'; p++) {
		if (*p == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\'))
			p++;
		if (k + 1 < n)
			name[k++] = *p;
	}
	name[k] = '\0';
	if (p == end || *p != '"')
		return -1;
	*rest = p + 1;
	return 1;
}

/* One @include at path:line of name: find it, check it, splice it in. */
static int splice_include(struct splice *sp, const char *path, unsigned line,
			  const char *name, struct err *e)
{
	char dir[CFG_PATH_MAX], found[CFG_PATH_MAX], tried[CFG_WHY_MAX],
	     why[CFG_WHY_MAX];
	struct stat st;
	char *text;
	size_t len;
	unsigned nul;

	if (sp->depth == CFG_INCLUDE_DEPTH)
		return err_set(e, ERR_USAGE, "%s:%u: @include \"%s\": nested more "
			       "than %d deep", path, line, name, CFG_INCLUDE_DEPTH);
	path_dir(path, dir, sizeof dir);
	if (name[0] == '\0')
		return err_set(e, ERR_USAGE, "%s:%u: @include \"\": an empty name",
			       path, line);
	if (path_find(dir, sp->sc->incdir, name, found, sizeof found, tried,
		      sizeof tried) < 0)
		return err_set(e, ERR_USAGE, "%s:%u: @include \"%s\": not found in %s",
			       path, line, name, tried);
	if (read_text(found, &st, &text, &len, &nul, why, sizeof why) < 0) {
		char at[16] = "";
		if (nul)
			snprintf(at, sizeof at, ":%u", nul);
		return err_set(e, ERR_USAGE, "%s:%u: @include \"%s\": %s%s: %s", path,
			       line, name, found, at, why);
	}
	for (int i = 0; i <= sp->depth; i++)
		if (sp->open[i].st_dev == st.st_dev && sp->open[i].st_ino == st.st_ino) {
			free(text);
			return err_set(e, ERR_USAGE, "%s:%u: @include \"%s\": %s is "
				       "already being read (it includes itself)",
				       path, line, name, found);
		}
	sp->open[++sp->depth] = st;
	int rc = splice_file(sp, found, text, len, lines_file(sp->sc->lines, found), e);
	sp->depth--;
	free(text);
	return rc;
}

static int splice_file(struct splice *sp, const char *path, const char *text,
		       size_t len, uint32_t f, struct err *e)
{
	const char *p = text, *end = text + len;
	unsigned line = 1;
	char name[CFG_PATH_MAX];

	for (; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next = eol ? eol + 1 : end, *rest = p;
		int inc = sp->lex == LEX_CODE ?
			include_line(p, next, name, sizeof name, &rest) : 0;
		if (inc < 0)
			return err_set(e, ERR_USAGE, "%s:%u: @include: the name's "
				       "closing quote is missing", path, line);
		if (inc > 0 && splice_include(sp, path, line, name, e) < 0)
			return -1;
		lex_line(sp, rest, next);
		/* libconfig lets a string span lines, so a missing closing quote
		 * swallows the settings after it; and when the parse then fails
		 * it leaks the string's buffer (libconfig 1.5, found by
		 * tests/fuzz).  Refused here, in every file, with the real place. */
		if (sp->lex == LEX_STRING)
			return err_set(e, ERR_USAGE, "%s:%u: a string with no closing "
				       "quote on its line (expected \"text\" on one "
				       "line)", path, line);
		if (sp->misplaced)
			return err_set(e, ERR_USAGE, "%s:%u: syntax error (a string where "
				       "no value can be: expected one after =, :, [, ( "
				       "or a comma)", path, line);
		emit(sp, rest, (size_t)(next - rest), f, line);
		if (eol == NULL)
			emit(sp, "\n", 1, f, line);
		p = next;
	}
	return 0;
}

int cfg_include_read(struct scenario *sc, char **text, struct err *e)
{
	struct splice sp = { .sc = sc };
	char why[CFG_WHY_MAX], *top;
	size_t len;
	unsigned nul;

	cfg_lines_free(sc->lines);
	sc->lines = cfg_xrealloc(NULL, sizeof *sc->lines);
	memset(sc->lines, 0, sizeof *sc->lines);
	if (read_text(sc->file, &sp.open[0], &top, &len, &nul, why,
		      sizeof why) < 0) {
		if (nul)
			return err_set(e, ERR_USAGE, "%s:%u: %s", sc->file, nul, why);
		return err_set(e, ERR_USAGE, "%s: %s", sc->file, why);
	}
	int rc = splice_file(&sp, sc->file, top, len, lines_file(sc->lines, sc->file), e);
	free(top);
	if (rc < 0) {
		free(sp.text);
		return -1;
	}
	*text = sp.text ? sp.text : cfg_xstrndup("", 0);
	return 0;
}

/* ---- other files a scenario names -------------------------------------- */

int sc_path(const struct scenario *sc, const char *key, const char *rel,
	    char *out, size_t cap, struct err *e)
{
	char tried[CFG_WHY_MAX];

	if (path_find(sc->incdir, sc->incdir, rel, out, cap, tried, sizeof tried) == 0)
		return 0;
	if (key != NULL)
		return sc_error(sc, e, key, "\"%s\": not found in %s", rel, tried);
	return err_set(e, ERR_USAGE, "%s: not found in %s", rel, tried);
}
