/* jsonfile.c -- see jsonfile.h. */
#include <stdlib.h>

#include "sim/jsonfile.h"
#include "sim/textfile.h"

json_t *jsonfile_load(const char *path, struct err *e)
{
	size_t len;
	char *text = textfile_read(path, &len, e);	/* its messages, and no NUL */
	json_error_t je;
	json_t *doc;

	if (text == NULL)
		return NULL;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (doc == NULL)
		err_set(e, ERR_USAGE, "%s:%d:%d: bad JSON: %s", path, je.line, je.column,
			je.text);
	return doc;
}
