/* The static site of veles serve --export (serve.h's serve_export). */
#ifndef SERVE_EXPORT_H
#define SERVE_EXPORT_H

/*
 * The file (relative to the site's folder) holding the answer to GET
 * @uri: the path, then "@" and the query's parameters but the paging ones
 * (limit, after: the export holds whole lists), every character but
 * [A-Za-z0-9.-] (and the path's slashes) written as _XX, then ".json".
 * web/serve/api.js names them alike. Caller frees.
 */
char *export_file_name(const char *uri);

#endif
