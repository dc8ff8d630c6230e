/*
 * include-t.c -- @include and trace paths (sim/cfg_include.c, sim/path.c):
 * the search order (including file's directory, scenario's directory,
 * $TRAINSIM_PATH, installed data), the checks before anything is parsed
 * (found, regular file, no NUL byte, no cycle, at most 10 deep, a closing
 * quote), the FILE:LINE of every message, and the lines of the spliced
 * text mapped back to the files they came from.
 *
 * Every expected message is written out here by hand from the files this
 * test writes; "~" stands for the test's temporary directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "sim/path.h"
#include "tests/tap.h"

static const struct cfg_setting tab[] = {
	{ "model.layers", CFG_INT, "", 1, 1000, "1", NULL, "layers" },
	{ "model.name", CFG_STRING, "", 0, 0, "", NULL, "a label" },
	{ "gpus.*.tdp_w", CFG_FLOAT, "W", 1, 2000, NULL, NULL, "board power" },
	CFG_END
};

#define DATA TRAINSIM_DATADIR "/scenarios"

static char dir[64];
static struct cfg_schema *schema;

/* dir/name with text (n bytes; strlen when n is 0). */
static void put(const char *name, const char *text, size_t n)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f == NULL) {
		perror(p);
		exit(99);
	}
	fwrite(text, 1, n ? n : strlen(text), f);
	fclose(f);
}

/* "~" in s replaced by dir (every one), into out. */
static void at_dir(const char *s, char *out, size_t cap)
{
	size_t k = 0;
	for (; *s && k + 1 < cap; s++) {
		if (*s == '~') {
			k += (size_t)snprintf(out + k, cap - k, "%s", dir);
			if (k >= cap)
				k = cap - 1;
		} else
			out[k++] = *s;
	}
	out[k] = '\0';
}

static struct scenario *load(const char *file, struct err *e)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	memset(e, 0, sizeof *e);
	return sc_load(schema, p, NULL, 0, e);
}

/* Loading file fails with exactly msg. */
static void bad(const char *file, const char *msg, const char *name)
{
	struct err e;
	char want[1024];
	struct scenario *sc = load(file, &e);

	at_dir(msg, want, sizeof want);
	tap_ok(sc == NULL && e.status == ERR_USAGE && strcmp(e.msg, want) == 0,
	       "%s", name);
	if (sc != NULL || strcmp(e.msg, want) != 0)
		tap_diag("got \"%s\", want \"%s\"", e.msg, want);
	sc_free(sc);
}

/* Loading file works, and sc_error on path then reads exactly msg. */
static void where(const char *file, const char *path, const char *msg,
		  const char *name)
{
	struct err e;
	char want[1024];
	struct scenario *sc = load(file, &e);

	at_dir(msg, want, sizeof want);
	if (sc == NULL) {
		tap_ok(0, "%s", name);
		tap_diag("load failed: %s", e.msg);
		return;
	}
	sc_error(sc, &e, path, "here");
	tap_ok(strcmp(e.msg, want) == 0, "%s", name);
	if (strcmp(e.msg, want) != 0)
		tap_diag("got \"%s\", want \"%s\"", e.msg, want);
	sc_free(sc);
}

/* A case: files written (name, text; up to two), then x.cfg, with
 * $TRAINSIM_PATH set to env ("~" for the temp dir; NULL: unset); path NULL:
 * loading x.cfg fails with exactly msg; else it loads and sc_error on path
 * reads msg. */
struct inc_case {
	const char *file[4];
	const char *x, *env, *path, *msg, *name;
};

static const struct inc_case cases[] = {
	/* The search: lib/cat.cfg is only on $TRAINSIM_PATH's third entry
	 * (the first is empty, the second does not exist). */
	{ { "lib/cat.cfg", "# catalog\ngpus = { a = { tdp_w = 400.0; }; };\n" },
	  "@include \"cat.cfg\"\nmodel = { layers = 2; };\n", NULL, NULL,
	  "~/x.cfg:1: @include \"cat.cfg\": not found in ~/, $TRAINSIM_PATH "
	  "(not set), " DATA,
	  "not found: the include's FILE:LINE, its name, each place looked in" },
	{ { NULL }, "@include \"cat.cfg\"\nmodel = { layers = 2; };\n",
	  ":/nonexistent:~/lib", "gpus.a.tdp_w", "~/lib/cat.cfg:2: gpus.a.tdp_w: here",
	  "found on $TRAINSIM_PATH's third entry; its settings name that file, line 2" },
	{ { NULL }, "@include \"cat.cfg\"\nmodel = { layers = 2; };\n",
	  ":/nonexistent:~/lib", "model.layers", "~/x.cfg:2: model.layers: here",
	  "the scenario's own line 2 after an included file of 2 lines" },
	{ { NULL }, "@include \"cat.cfg\"\n", "/nonexistent", NULL,
	  "~/x.cfg:1: @include \"cat.cfg\": not found in ~/, $TRAINSIM_PATH "
	  "(/nonexistent), " DATA, "not found: $TRAINSIM_PATH's value in the list" },
	/* sub/a.cfg includes b.cfg from its own directory, sub/. */
	{ { "sub/a.cfg", "@include \"b.cfg\"\n",
	    "sub/b.cfg", "gpus = {\n  b = { tdp_w = 300.0; };\n};\n" },
	  "@include \"sub/a.cfg\"\n", NULL, "gpus.b.tdp_w",
	  "~/sub/b.cfg:2: gpus.b.tdp_w: here",
	  "a nested include is found in the including file's directory first" },
	{ { "sub/a.cfg", "\n@include \"c.cfg\"\n" }, "@include \"sub/a.cfg\"\n", NULL,
	  NULL, "~/sub/a.cfg:2: @include \"c.cfg\": not found in ~/sub/, ~/, "
	  "$TRAINSIM_PATH (not set), " DATA,
	  "nested miss: the including file's directory, then the scenario's" },
	/* The checks before parsing. */
	{ { "self.cfg", "\n\n@include \"self.cfg\"\n" }, "@include \"self.cfg\"\n",
	  NULL, NULL, "~/self.cfg:3: @include \"self.cfg\": ~/self.cfg is already "
	  "being read (it includes itself)", "a file that includes itself" },
	{ { NULL }, "model = { layers = 2; };\n  @include \"cat.cfg\n", NULL, NULL,
	  "~/x.cfg:2: @include: the name's closing quote is missing",
	  "an @include without its closing quote" },
	{ { NULL }, "@include \"\"\n", NULL, NULL,
	  "~/x.cfg:1: @include \"\": an empty name", "an empty name" },
	/* The splice. */
	{ { "cat.cfg", "gpus = {\n  a = { tdp_w = 400.0; };\n};" },	/* no final newline */
	  "@include \"cat.cfg\" model = { layers = 0; };\n", NULL, NULL,
	  "~/x.cfg:1: model.layers: 0 is out of range (expected an integer in "
	  "1..1000)", "text after the @include's name: its own line 1" },
	{ { NULL }, "/*\n@include \"none.cfg\"\n*/\nmodel = { layers = 5; };\n", NULL,
	  "model.layers", "~/x.cfg:4: model.layers: here",
	  "an @include inside a block comment is not one" },
	/* A string may not span lines (libconfig would read an @include in it
	 * as text, and leaks the string on a later error): refused at its line. */
	{ { NULL }, "model = { name = \"a\n@include \\\"none.cfg\\\"\nb\"; layers = 6; };\n",
	  NULL, NULL, "~/x.cfg:1: a string with no closing quote on its line "
	  "(expected \"text\" on one line)",
	  "nor is one inside a string that spans lines: that string is refused" },
	{ { "cat.cfg", "gpus = {\n  a = { source = \"x; };\n};\n" },
	  "\n@include \"cat.cfg\"\n", NULL, NULL,
	  "~/cat.cfg:2: a string with no closing quote on its line "
	  "(expected \"text\" on one line)",
	  "an open string in an included file: that file's line 2" },
	{ { "q\"x.cfg", "model = { layers = 7; };\n" }, "@include \"q\\\"x.cfg\"\n",
	  NULL, "model.layers", "~/q\"x.cfg:1: model.layers: here",
	  "\\\" in the name is a quote, as in libconfig" },
	{ { "cat.cfg", "gpus = {\n  a = { tdp_w = 400.0; };\n};" },
	  "@include \"cat.cfg\"\nmodel = {\n  layers = ;\n};\n", NULL, NULL,
	  "~/x.cfg:3: syntax error",
	  "a syntax error after a 3-line include: the scenario's line 3" },
	{ { "cat.cfg", "gpus = {\n  a = { tdp_w = ; };\n};\n" },
	  "\n\n@include \"cat.cfg\"\n", NULL, NULL, "~/cat.cfg:2: syntax error",
	  "a syntax error in an included file: that file, its line 2" },
};

static void test_cases(void)
{
	char env[256];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct inc_case *c = &cases[i];
		for (int f = 0; f < 4 && c->file[f]; f += 2)
			put(c->file[f], c->file[f + 1], 0);
		put("x.cfg", c->x, 0);
		if (c->env) {
			at_dir(c->env, env, sizeof env);
			setenv("TRAINSIM_PATH", env, 1);
		} else
			unsetenv("TRAINSIM_PATH");
		if (c->path)
			where("x.cfg", c->path, c->msg, c->name);
		else
			bad("x.cfg", c->msg, c->name);
	}
	unsetenv("TRAINSIM_PATH");
}

/* What a table cannot write: an absolute path, a directory, a FIFO, NUL
 * bytes, a chain of files, an unreadable one. */
static void test_special(void)
{
	char p[256], text[256];

	snprintf(text, sizeof text, "@include \"%s/sub/b.cfg\"\n", dir);
	put("sub/b.cfg", "gpus = {\n  b = { tdp_w = 300.0; };\n};\n", 0);
	put("x.cfg", text, 0);
	where("x.cfg", "gpus.b.tdp_w", "~/sub/b.cfg:2: gpus.b.tdp_w: here",
	      "an absolute @include");
	mkdir(strcat(strcpy(p, dir), "/adir"), 0700);
	put("x.cfg", "# one\n@include \"adir\"\n", 0);
	bad("x.cfg", "~/x.cfg:2: @include \"adir\": ~/adir: cannot read: Is a directory",
	    "a directory: named, with the include's line 2");
	snprintf(p, sizeof p, "%s/fifo", dir);
	if (mkfifo(p, 0600) < 0)
		perror(p);
	put("x.cfg", "@include \"fifo\"\n", 0);
	bad("x.cfg", "~/x.cfg:1: @include \"fifo\": ~/fifo: not a regular file "
	    "(a directory, device or FIFO is never read)",
	    "a FIFO is not read (libconfig would block on it)");
	put("nul.cfg", "a = 1;\nb = 2;\nc = \0;\n", 21);
	put("x.cfg", "@include \"nul.cfg\"\n", 0);
	bad("x.cfg", "~/x.cfg:1: @include \"nul.cfg\": ~/nul.cfg:3: a NUL byte "
	    "(a scenario file is text)", "a NUL byte in an included file: its line 3");
	put("x.cfg", "model = {\n\0};\n", 14);
	bad("x.cfg", "~/x.cfg:2: a NUL byte (a scenario file is text)",
	    "a NUL byte in the scenario itself, line 2");
	/* d0 -> d1 -> ... -> d10: x is level 0, d9 at level 10 may not include. */
	for (int i = 0; i <= 10; i++) {
		char n[32], t[64];
		snprintf(n, sizeof n, "d%d.cfg", i);
		snprintf(t, sizeof t, i < 10 ? "@include \"d%d.cfg\"\n" : "\n", i + 1);
		put(n, t, 0);
	}
	put("x.cfg", "@include \"d0.cfg\"\n", 0);
	bad("x.cfg", "~/d9.cfg:1: @include \"d10.cfg\": nested more than 10 deep",
	    "11 levels of @include: libconfig's limit of 10");
	put("d8.cfg", "model = { layers = 3; };\n", 0);
	where("x.cfg", "model.layers", "~/d8.cfg:1: model.layers: here",
	      "10 levels are fine");
	if (geteuid() != 0) {
		put("locked.cfg", "a = 1;\n", 0);
		snprintf(p, sizeof p, "%s/locked.cfg", dir);
		chmod(p, 0);
		put("x.cfg", "@include \"locked.cfg\"\n", 0);
		bad("x.cfg", "~/x.cfg:1: @include \"locked.cfg\": ~/locked.cfg: "
		    "cannot read: Permission denied", "an unreadable file");
	} else
		tap_ok(1, "an unreadable file # SKIP running as root: every file is readable");
}

static void test_sc_path(void)
{
	struct err e;
	char out[256], want[512];

	put("t.csv", "x\n", 0);
	mkdir(strcat(strcpy(out, dir), "/tr"), 0700);
	put("tr/u.csv", "x\n", 0);
	put("x.cfg", "model = {\n  name = \"t.csv\";\n};\n", 0);
	struct scenario *sc = load("x.cfg", &e);
	if (sc == NULL) {
		tap_ok(0, "sc_path scenario loads");
		tap_diag("%s", e.msg);
		return;
	}
	snprintf(want, sizeof want, "%s/t.csv", dir);
	tap_ok(sc_path(sc, "model.name", "t.csv", out, sizeof out, &e) == 0 &&
	       strcmp(out, want) == 0, "a trace in the scenario's directory");
	memset(&e, 0, sizeof e);
	at_dir("~/x.cfg:2: model.name: \"v.csv\": not found in ~/, $TRAINSIM_PATH "
	       "(not set), " DATA, want, sizeof want);
	tap_ok(sc_path(sc, "model.name", "v.csv", out, sizeof out, &e) < 0 &&
	       e.status == ERR_USAGE && strcmp(e.msg, want) == 0,
	       "a missing trace: the setting's FILE:LINE and each place looked in");
	if (strcmp(e.msg, want) != 0)
		tap_diag("got \"%s\"", e.msg);
	snprintf(want, sizeof want, "%s/tr", dir);
	setenv("TRAINSIM_PATH", want, 1);
	snprintf(want, sizeof want, "%s/tr/u.csv", dir);
	memset(&e, 0, sizeof e);
	tap_ok(sc_path(sc, "model.name", "u.csv", out, sizeof out, &e) == 0 &&
	       strcmp(out, want) == 0, "a trace on $TRAINSIM_PATH");
	unsetenv("TRAINSIM_PATH");

	/* A reader's error on a file a setting named ends with that setting. */
	memset(&e, 0, sizeof e);
	err_set(&e, ERR_USAGE, "t.csv:3: price: \"x\" is not a number");
	at_dir("t.csv:3: price: \"x\" is not a number (read for model.name at ~/x.cfg:2)",
	       want, sizeof want);
	tap_ok(sc_where_named(sc_where_of(sc), &e, "model.name") < 0 &&
	       e.status == ERR_USAGE && strcmp(e.msg, want) == 0,
	       "a trace's error names the setting that named the trace, and where");
	if (strcmp(e.msg, want) != 0)
		tap_diag("got \"%s\"", e.msg);
	/* 1,023 bytes of reader message: the tail replaces its end. */
	memset(&e, 0, sizeof e);
	e.status = ERR_USAGE;
	memset(e.msg, 'x', sizeof e.msg - 1);
	e.msg[sizeof e.msg - 1] = '\0';
	sc_where_named(sc_where_of(sc), &e, "model.name");
	at_dir(" (read for model.name at ~/x.cfg:2)", want, sizeof want);
	size_t n = strlen(e.msg), t = strlen(want);
	tap_ok(n == sizeof e.msg - 1 && n > t && strcmp(e.msg + n - t, want) == 0 &&
	       e.msg[0] == 'x', "a full message keeps its start and gains the setting");
	sc_free(sc);

	char d[64];
	path_dir("a/b/c.cfg", d, sizeof d);
	tap_ok(strcmp(d, "a/b") == 0, "path_dir of a/b/c.cfg is a/b");
	path_dir("c.cfg", d, sizeof d);
	tap_ok(strcmp(d, ".") == 0, "path_dir of c.cfg is .");
	path_dir("/c.cfg", d, sizeof d);
	tap_ok(strcmp(d, "/") == 0, "path_dir of /c.cfg is /");
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof dir, "/tmp/include-t.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 99;
	}
	for (const char *s = "lib sub"; *s;) {
		char p[128];
		int n = (int)strcspn(s, " ");
		snprintf(p, sizeof p, "%s/%.*s", dir, n, s);
		mkdir(p, 0700);
		s += n + (s[n] == ' ');
	}
	schema = cfg_schema_new();
	cfg_schema_add(schema, tab);
	test_cases();
	test_special();
	test_sc_path();
	cfg_schema_free(schema);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", dir);
	return tap_done();
}
