/* fuzz_frame.c - libFuzzer target for the NDF1 reader (`make fuzz`): the
 * bytes go to ndem_frame_bin_check and ndem_frame_bin_decode, the parser of
 * every stored frame the daemon serves (records from disk, checksummed or
 * from older writers). Besides "no crash, no leak, no hang" it checks the
 * reader's promises: a refusal says why, decode accepts only what check
 * accepts, a decoded frame re-encodes to a record of the input's length
 * (never longer) when the encoder writes back every field the input had
 * (no section of a later version, no orientations without shapes) and it
 * had no extents (their records may be of a later, longer size), and the bytes with the CRC flag
 * set are checked again after sealing. */
#include "frame_bin.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The decoder frees with free(); so does this (no engine linked). */
static void frame_release(ndem_frame *f)
{
    free(f->positions);
    free(f->radii);
    free(f->velocities);
    free(f->angular_velocities);
    free(f->materials);
    free(f->geometry_poses);
    free(f->orientations);
    free(f->shapes);
    free(f->geometry_extents);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[160] = "";
    int ok = ndem_frame_bin_check(data, size, why, sizeof why) == 0;
    if (!ok && !why[0]) abort();
    ndem_frame f;
    long index;
    int decoded = ndem_frame_bin_decode(data, size, &f, &index) == 0;
    if (decoded && !ok) abort();
    if (!decoded) return 0;
    uint32_t fields;
    memcpy(&fields, data + 32, 4);
    /* the header size may exceed 48: re-encoding writes 48 */
    uint32_t header;
    memcpy(&header, data + 4, 4);
    size_t want = size - header + NDEM_FRAME_HEADER;
    size_t len = ndem_frame_bin_size(&f, fields);
    /* never longer; as long when every field goes back (extent records of
     * a later, longer size come back at this version's 56 bytes) */
    if (len > want) abort();
    if (ndem_frame_bin_fields(&f, fields) == fields && !(fields & NDEM_FRAME_EXTENTS) &&
        len != want)
        abort();
    uint8_t *buf = malloc(len);
    if (buf) {
        if (ndem_frame_bin_encode(&f, index, fields, buf) != len) abort();
        ndem_frame_bin_seal(buf, len);
        if (ndem_frame_bin_check(buf, len, why, sizeof why) != 0) abort();
        free(buf);
    }
    frame_release(&f);
    return 0;
}
