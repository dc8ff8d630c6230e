/*
 * files-t.c -- the readers of text inputs: CSV rows (quotes, blanks,
 * comments, line numbers), a NUL byte refused with its line, and jansson's
 * strict parse with FILE:LINE:COLUMN.  Every expected field and line is
 * read off the file text written here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "sim/csv.h"
#include "sim/jsonfile.h"
#include "sim/textfile.h"

static char dir[] = "/tmp/files-t.XXXXXX";
static char path[256];
static char written[32][256];	/* to remove at the end */
static int n_written;

/* Write `len` bytes of text to dir/name; path holds its name after. */
static const char *put(const char *name, const char *text, size_t len)
{
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(text, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	if (n_written < 32)
		snprintf(written[n_written++], sizeof written[0], "%s", path);
	return path;
}
#define PUT(name, lit) put(name, lit, sizeof lit - 1)

static void test_rows(void)
{
	struct csv c;
	struct err e = { 0 };
	const char *p = PUT("rows.csv", "a, b ,\"c, \"\"d\"\"\"\r\n\n  \n# note\n1,,\"\"\n");
	double v;

	if (csv_open(&c, p, CSV_COMMENTS, &e) < 0 || csv_next(&c, &e) != 1) {
		tap_ok(0, "rows.csv: %s", e.msg);
		return;
	}
	tap_ok(c.n == 3 && c.line == 1 && strcmp(c.f[0], "a") == 0 && strcmp(c.f[1], "b") == 0 &&
	       strcmp(c.f[2], "c, \"d\"") == 0,
	       "row 1: blanks trimmed, a quoted comma kept, \"\" is a quote, CR dropped");
	tap_ok(csv_next(&c, &e) == 1 && c.line == 5 && c.n == 3 && c.f[1][0] == '\0' &&
	       c.f[2][0] == '\0', "blank lines and a # comment skipped: the next row is line 5");
	tap_ok(csv_next(&c, &e) == 0 && e.status == ERR_OK, "then the end");
	csv_close(&c);

	p = PUT("comment.csv", "# not a comment here\n");
	if (csv_open(&c, p, 0, &e) == 0) {
		tap_ok(csv_next(&c, &e) == 1 && strcmp(c.f[0], "# not a comment here") == 0,
		       "without CSV_COMMENTS a # line is a row");
		csv_close(&c);
	} else {
		tap_ok(0, "comment.csv: %s", e.msg);
	}
	tap_ok(csv_number("2.5e3", &v) == 0 && v == 2500, "2.5e3 is 2500");
	tap_ok(csv_number("12x", &v) < 0 && csv_number("", &v) < 0 && csv_number("inf", &v) < 0 &&
	       csv_number("1e999", &v) < 0, "12x, empty, inf and 1e999 are not numbers");
}

/* Tab-separated (the kernel tables): leading empty fields count, blanks
 * other than tabs are trimmed, commas are text. */
static void test_tabs(void)
{
	struct csv c;
	struct err e = { 0 };
	const char *p = PUT("rows.tsv", "# header next\nM\tN\tK\n\t\t a,b \t7\n");

	if (csv_open(&c, p, CSV_COMMENTS | CSV_TABS, &e) < 0 || csv_next(&c, &e) != 1) {
		tap_ok(0, "rows.tsv: %s", e.msg);
		return;
	}
	tap_ok(c.n == 3 && c.line == 2 && strcmp(c.f[2], "K") == 0, "TSV header: 3 fields, line 2");
	tap_ok(csv_next(&c, &e) == 1 && c.n == 4 && c.f[0][0] == '\0' && c.f[1][0] == '\0' &&
	       strcmp(c.f[2], "a,b") == 0 && strcmp(c.f[3], "7") == 0,
	       "two empty leading fields, a comma kept as text, blanks trimmed");
	csv_close(&c);
}

/* The error of reading `text` as CSV to its end, or "" if none. */
static const char *csv_fails_as(const char *name, const char *text, size_t len,
				int flags, struct err *e)
{
	struct csv c;
	int rc;

	*e = (struct err){ 0 };
	if (csv_open(&c, put(name, text, len), flags, e) < 0)
		return e->msg;
	while ((rc = csv_next(&c, e)) > 0)
		;
	csv_close(&c);
	return rc < 0 ? e->msg : "";
}
#define csv_fails(name, text, len, e) csv_fails_as(name, text, len, 0, e)

static void test_errors(void)
{
	struct err e;
	char want[300];
	size_t len;
	char *text;

	csv_fails("open.csv", "a,b\n1,\"2\n3,4\n", 12, &e);
	snprintf(want, sizeof want, "%s/open.csv:2: field 2: a quote left open", dir);
	tap_ok(strncmp(e.msg, want, strlen(want)) == 0 && e.status == ERR_USAGE,
	       "a quote left open: FILE:2, field 2 (%s)", e.msg);
	csv_fails("after.csv", "\"a\"b,c\n", 7, &e);
	snprintf(want, sizeof want, "%s/after.csv:1: field 1: text after the closing quote", dir);
	tap_ok(strncmp(e.msg, want, strlen(want)) == 0, "text after a closing quote (%s)", e.msg);
	csv_fails("nul.csv", "a,b\n1,2\n3\0,4\n", 13, &e);
	snprintf(want, sizeof want, "%s/nul.csv:3: a NUL byte", dir);
	tap_ok(strncmp(e.msg, want, strlen(want)) == 0, "a NUL byte on line 3 (%s)", e.msg);
	e = (struct err){ 0 };
	snprintf(want, sizeof want, "%s/none.csv", dir);
	tap_ok(textfile_read(want, NULL, &e) == NULL && strstr(e.msg, "none.csv: cannot read: ") &&
	       e.status == ERR_USAGE, "a missing file: cannot read (%s)", e.msg);
	text = textfile_read(put("ok.txt", "ab\ncd", 5), &len, &e);
	tap_ok(text && len == 5 && strcmp(text, "ab\ncd") == 0 && textfile_line(text, 3) == 2,
	       "text read whole; offset 3 is on line 2");
	free(text);

	/* A spreadsheet's UTF-8 byte-order mark is dropped: "ab" is the first
	 * field, and the lines do not move. */
	text = textfile_read(put("bom.txt", "\xEF\xBB\xBF" "ab\ncd", 8), &len, &e);
	tap_ok(text && len == 5 && strcmp(text, "ab\ncd") == 0, "a byte-order mark dropped");
	free(text);
	/* CSV_HEADER: a row wider than the header (a trailing comma) and a
	 * name twice in the header are refused at their lines. */
	csv_fails_as("wide.csv", "t,v\n1,2\n3,4,\n", 13, CSV_HEADER, &e);
	snprintf(want, sizeof want, "%s/wide.csv:3: 3 fields, the header has 2 (a trailing comma?)",
		 dir);
	tap_ok(strcmp(e.msg, want) == 0, "CSV_HEADER: line 3 has 3 fields of 2 (%s)", e.msg);
	csv_fails_as("twice.csv", "t,v,t\n1,2,3\n", 12, CSV_HEADER, &e);
	snprintf(want, sizeof want, "%s/twice.csv:1: column 't' named twice in the header "
		 "(fields 1 and 3)", dir);
	tap_ok(strcmp(e.msg, want) == 0, "CSV_HEADER: t named twice (%s)", e.msg);
	tap_ok(csv_fails_as("narrow.csv", "t,v,w\n1,2\n", 10, CSV_HEADER, &e)[0] == '\0',
	       "CSV_HEADER: a narrower row is the reader's to judge (%s)", e.msg);
	struct csv c;
	e = (struct err){ 0 };
	if (csv_open(&c, put("empty.csv", "", 0), 0, &e) == 0) {
		tap_ok(csv_next(&c, &e) == 0 && csv_error(&c, &e, "no rows") < 0, "empty file: no rows");
		snprintf(want, sizeof want, "%s/empty.csv:1: no rows", dir);
		tap_ok(strcmp(e.msg, want) == 0, "an empty file's error is on line 1, not 0 (%s)",
		       e.msg);
		csv_close(&c);
	} else
		tap_ok(0, "empty.csv opens (%s)", e.msg);
}

/* jsonfile_load's message for `text` (NULL if it loads). */
static const char *json_fails(const char *name, const char *text, size_t len, struct err *e)
{
	json_t *doc;

	*e = (struct err){ 0 };
	doc = jsonfile_load(put(name, text, len), e);
	if (doc == NULL)
		return e->msg;
	json_decref(doc);
	return NULL;
}
#define JSON_FAILS(name, lit, e) json_fails(name, lit, sizeof lit - 1, e)

static void test_json(void)
{
	struct err e;
	const char *m;
	char want[300];

	tap_ok(JSON_FAILS("ok.json", "{\"a\": [1, 2.5, \"x\"]}\n", &e) == NULL, "valid JSON loads");
	m = JSON_FAILS("syntax.json", "[1,\n 2, x]\n", &e);
	snprintf(want, sizeof want, "%s/syntax.json:2:5: bad JSON: invalid token", dir);
	tap_ok(m && strncmp(m, want, strlen(want)) == 0 && e.status == ERR_USAGE,
	       "x at line 2, column 5: jansson's line and column (%s)", m ? m : "loaded");
	m = JSON_FAILS("dup.json", "{\"a\": 1,\n \"a\": 2}", &e);
	tap_ok(m && strstr(m, "dup.json:2:") && strstr(m, "duplicate object key"),
	       "a duplicate key refused, on its line (%s)", m ? m : "loaded");
	m = JSON_FAILS("big.json", "[99999999999999999999]", &e);
	tap_ok(m && strstr(m, "too big integer"), "an integer beyond 64 bits refused (%s)",
	       m ? m : "loaded");
	m = JSON_FAILS("huge.json", "[1e999]", &e);
	tap_ok(m && strstr(m, "real number overflow"), "1e999 refused (%s)", m ? m : "loaded");
	m = JSON_FAILS("u0.json", "[\"a\\u0000b\"]", &e);
	tap_ok(m && strstr(m, "u0.json:1:"), "\\u0000 refused (%s)", m ? m : "loaded");
	m = JSON_FAILS("nul.json", "[1,\n2]\0", &e);
	tap_ok(m && strstr(m, "nul.json:2: a NUL byte"), "a NUL byte refused with its line (%s)",
	       m ? m : "loaded");
	m = JSON_FAILS("tail.json", "[1]\n[2]", &e);
	tap_ok(m && strstr(m, "tail.json:2:"), "text after the value refused (%s)",
	       m ? m : "loaded");
}

int main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_rows();
	test_tabs();
	test_errors();
	test_json();
	for (int i = 0; i < n_written; i++)
		unlink(written[i]);
	rmdir(dir);
	return tap_done();
}
