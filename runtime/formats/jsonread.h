/* jsonread.h — JSON text to Python values (dict, list, str, int, float, bool, None) through jansson. */
#ifndef TFS_JSONREAD_H
#define TFS_JSONREAD_H

#include "object/object.h"

/* What json.loads gives for text[0..len) (owned): objects as dicts in the file's key order. Malformed text raises
 * ValueError naming `where` with jansson's reason, line and column. */
Val json_read(const char *text, tfs_i64 len, const char *where);

#endif
