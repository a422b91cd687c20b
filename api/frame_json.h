/* frame_json.h - engine frames and statistics as JSON (docs/frames.md, "JSON
 * frame"). */
#ifndef NDEM_FRAME_JSON_H
#define NDEM_FRAME_JSON_H

#include "ndem.h"

/* {"index", "step", "time", "particles", "positions", "radii",
 *  "velocities", "angular_velocities"}: malloc'd text. */
char *ndem_frame_to_json(const ndem_frame *frame, long index);

#endif
