/* contacts_out.c - contacts/NNNNNN.ndc of `ndem run` (contacts_out.h). */
#include "contacts_out.h"

#include "contact_bin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int ndem_output_contacts(const char *dir, long index, const ndem_sim *sim)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/contacts", dir);
    if (mkdir(path, 0777) && errno != EEXIST) return -1;
    ndem_contact_set s;
    if (ndem_sim_copy_contacts(sim, &s)) {
        errno = ENOMEM;
        return -1;
    }
    size_t size = ndem_contact_bin_size(s.count, NDEM_CONTACT_ALL);
    unsigned char *buf = malloc(size);
    int rc = -1;
    if (!buf) errno = ENOMEM;
    else {
        size_t n = ndem_contact_bin_encode(&s, index, NDEM_CONTACT_ALL, buf);
        snprintf(path, sizeof path, "%s/contacts/%06ld.ndc", dir, index);
        FILE *fp = fopen(path, "wb");
        if (fp) {
            rc = fwrite(buf, 1, n, fp) == n ? 0 : -1;
            if (fclose(fp)) rc = -1;
        }
    }
    free(buf);
    ndem_contact_set_free(&s);
    return rc;
}
