/*
 * The server's database schema and its migrations. The table
 * schema_version holds the version a database is at; opening it applies,
 * in one transaction, the migrations it lacks. A database from a newer
 * Veles is refused rather than misread.
 */
#ifndef SERVE_SCHEMA_H
#define SERVE_SCHEMA_H

#include "serve/db.h"

/* The version this Veles writes. */
int schema_latest(void);
/* Brings @db up to schema_latest(); *@from gets the version it was at
 * (0: new). */
int schema_migrate(struct db *db, int *from);

#endif
