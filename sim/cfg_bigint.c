/*
 * cfg_bigint.c -- integer literals beyond 32 bits, which libconfig 1.5
 * truncates.
 *
 * libconfig 1.5 stores an integer literal without an L suffix in an int,
 * so 300000000000 silently reads as -647710720.  cfg_bigint_repair()
 * rescans the source text of every file the scenario read, lists its
 * plain integer literals with their lines, and puts the true value back
 * into each int setting whose literal was truncated (as an int64), so
 * scenario authors can write byte and token counts plainly.  A literal
 * beyond 64 bits is an error: "FILE:LINE: PATH: ... is out of range".
 *
 * Matching a setting to its literal: the int settings of one file, visited
 * depth first, come in the order of their literals in the text, so the
 * next literal on the setting's line is its own (starting over when a file
 * is included twice).  A literal whose low 32 bits differ from the stored
 * value is not the setting's after all, and the value is left alone.  The
 * scanner skips comments, strings, names and floats as libconfig's does.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg_int.h"
#include "sim/textfile.h"

struct int_lit {
	unsigned line;
	long long v;
	bool too_big;		/* beyond 64 bits */
	char text[24];		/* the literal, for a message */
};

struct big_file {
	const char *name;	/* libconfig's pointer, as in settings */
	struct int_lit *v;	/* every plain (no L) integer literal, in order */
	size_t n;
	size_t next_lit;	/* where the next int setting's literal is */
	struct big_file *next;
};

/* ---- scanning the text ------------------------------------------------- */

/* Past the rest of a float literal ("5e-3", ".25"). */
static const char *skip_float(const char *p)
{
	while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == 'E' ||
	       ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
		p++;
	return p;
}

/* Add the plain integer literal start..end (on line) to bf. */
static void add_lit(struct big_file *bf, const char *start, const char *end,
		    unsigned line, bool hex)
{
	errno = 0;
	long long v = hex ? (long long)strtoull(start, NULL, 16)
			  : strtoll(start, NULL, 10);
	bool too_big = errno == ERANGE ||
		       (hex && strtoull(start, NULL, 16) > LLONG_MAX);
	bf->v = cfg_xrealloc(bf->v, (bf->n + 1) * sizeof *bf->v);
	struct int_lit *l = &bf->v[bf->n++];
	*l = (struct int_lit){ line, v, too_big, "" };
	int tl = (int)(end - start);
	if (tl < (int)sizeof l->text)
		snprintf(l->text, sizeof l->text, "%.*s", tl, start);
	else
		snprintf(l->text, sizeof l->text, "%.16s...", start);
}

/* A number literal at p: a plain integer goes into bf, a float or an
 * integer with L is only skipped.  Returns the end of the literal. */
static const char *scan_number(const char *p, unsigned line,
			       struct big_file *bf)
{
	const char *start = p;
	bool hex = false;

	if (*p == '+' || *p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		hex = true;
		for (p += 2; isxdigit((unsigned char)*p); p++)
			;
	} else {
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '.' || *p == 'e' || *p == 'E')
			return skip_float(p);	/* libconfig reads it whole */
	}
	if (*p == 'L') {
		while (*p == 'L')
			p++;
		return p;
	}
	add_lit(bf, start, p, line, hex);
	return p;
}

/* Past a comment or a string at p, counting its newlines into *line. */
static const char *skip_comment_or_string(const char *p, unsigned *line)
{
	if (*p == '#' || (p[0] == '/' && p[1] == '/'))
		return p + strcspn(p, "\n");
	if (p[0] == '/' && p[1] == '*') {
		for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
			*line += *p == '\n';
		return p + (*p ? 2 : 0);
	}
	for (p++; *p && *p != '"'; p++) {	/* a string */
		if (*p == '\\' && p[1])
			p++;
		*line += *p == '\n';
	}
	return p + (*p == '"');
}

/* The plain integer literals of one file, in order, into bf. */
static void big_scan(const char *path, struct big_file *bf)
{
	struct err unread = { 0 };	/* libconfig read it; if we cannot, leave it be */
	char *buf = textfile_read(path, NULL, &unread);
	unsigned line = 1;

	if (buf == NULL)
		return;
	for (const char *p = buf; *p;) {
		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == '#' || *p == '"' ||
			   (p[0] == '/' && (p[1] == '/' || p[1] == '*'))) {
			p = skip_comment_or_string(p, &line);
		} else if (isalpha((unsigned char)*p) || *p == '*') {
			while (isalnum((unsigned char)*p) ||
			       (*p && strchr("-_*", *p)))
				p++;
		} else if (isdigit((unsigned char)*p) || (strchr("+-", *p) &&
			   isdigit((unsigned char)p[1]))) {
			p = scan_number(p, line, bf);
		} else if (*p == '.' && isdigit((unsigned char)p[1])) {
			p = skip_float(p);	/* ".5" */
		} else {
			p++;
		}
	}
	free(buf);
}

/* ---- repairing the settings -------------------------------------------- */

static struct big_file *big_file_of(struct big_file **files, const char *name)
{
	struct big_file *bf;

	for (bf = *files; bf != NULL; bf = bf->next)
		if (bf->name == name || strcmp(bf->name, name) == 0)
			return bf;
	bf = cfg_xrealloc(NULL, sizeof *bf);
	*bf = (struct big_file){ name, NULL, 0, 0, *files };
	*files = bf;
	big_scan(name, bf);
	return bf;
}

/* The literal of the int setting on line, or NULL. */
static const struct int_lit *big_lit(struct big_file *bf, unsigned line)
{
	size_t i;

	for (i = bf->next_lit; i < bf->n && bf->v[i].line != line; i++)
		;
	if (i == bf->n)
		for (i = 0; i < bf->n && bf->v[i].line != line; i++)
			;
	if (i == bf->n)
		return NULL;
	bf->next_lit = i + 1;
	return &bf->v[i];
}

/* Put back the value of one int setting if libconfig truncated it. */
static int big_fix(struct scenario *sc, struct big_file **files,
		   config_setting_t *s, const char *path, struct err *e)
{
	unsigned line;
	const char *f = cfg_setting_src(sc, s, &line);

	if (line == 0)
		return 0;
	const struct int_lit *l = big_lit(big_file_of(files, f), line);
	if (l == NULL)
		return 0;	/* not found: leave libconfig's value */
	if ((uint32_t)s->value.ival != (uint32_t)(unsigned long long)l->v)
		return 0;	/* not this literal after all: be safe */
	if (l->too_big) {
		char exp[CFG_WHY_MAX] = "an integer of at most 64 bits";
		long idx = cfg_schema_find(sc->schema, path);
		if (idx >= 0)
			cfg_expected_words(sc, sc->schema->ent[idx], exp, sizeof exp);
		return err_set(e, ERR_USAGE, "%s:%u: %s: %s is out of range "
			       "(expected %s)", f, line, path, l->text, exp);
	}
	if (l->v >= INT_MIN && l->v <= INT_MAX)
		return 0;
	/* The struct is public in libconfig.h; there is no API to widen a
	 * setting's type in place. */
	s->type = CONFIG_TYPE_INT64;
	s->value.llval = l->v;
	return 0;
}

static int big_walk(struct scenario *sc, struct big_file **files,
		    config_setting_t *g, char *path, size_t plen, struct err *e)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(s);
		size_t len = plen;
		if (name != NULL) {
			long k = cfg_path_push(path, plen, name, strlen(name));
			if (k < 0)
				continue;	/* the validation walk reports it */
			len = (size_t)k;
		}
		if (config_setting_type(s) == CONFIG_TYPE_INT &&
		    big_fix(sc, files, s, path, e) < 0)
			return -1;
		if (config_setting_is_aggregate(s) &&
		    big_walk(sc, files, s, path, len, e) < 0)
			return -1;
		path[plen] = '\0';
	}
	return 0;
}

int cfg_bigint_repair(struct scenario *sc, struct err *e)
{
	struct big_file *files = NULL;
	char path[CFG_PATH_MAX] = "";
	int rc = big_walk(sc, &files, config_root_setting(&sc->cfg), path, 0, e);

	while (files != NULL) {
		struct big_file *next = files->next;
		free(files->v);
		free(files);
		files = next;
	}
	return rc;
}
