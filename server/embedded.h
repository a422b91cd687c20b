/* embedded.h - files compiled into the binary (scripts/embed.sh): the SQL
 * migrations/ and server/openapi.json. */
#ifndef NDEM_SERVER_EMBEDDED_H
#define NDEM_SERVER_EMBEDDED_H

typedef struct ndem_embedded_file {
    const char *name;
    const char *text;
} ndem_embedded_file;

extern const ndem_embedded_file ndem_embedded[]; /* ends with {NULL, NULL} */

#endif
