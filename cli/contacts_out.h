/* contacts_out.h - the contact network files of `ndem run` with
 * output.contacts: contacts/NNNNNN.ndc beside frames/NNNNNN.ndf, one NDC1
 * record (api/contact_bin.h, docs/frames.md) per frame, same number. */
#ifndef NDEM_CLI_CONTACTS_OUT_H
#define NDEM_CLI_CONTACTS_OUT_H

#include "ndem.h"

/* Writes DIR/contacts/NNNNNN.ndc (index NNNNNN) of sim's last step,
 * creating DIR/contacts when needed. 0, or -1 with errno set. */
int ndem_output_contacts(const char *dir, long index, const ndem_sim *sim);

#endif
