/* frame_json.h - engine frames and statistics as JSON (docs/frames.md, "JSON
 * frame"). */
#ifndef NDEM_FRAME_JSON_H
#define NDEM_FRAME_JSON_H

#include "ndem.h"

/* {"index", "step", "time", "particles", "positions", "radii",
 *  "velocities", "angular_velocities", "materials", "orientations" and
 *  "shapes" (when frame->shapes), "geometry"}: malloc'd
 * text. names (may be NULL) has frame->geometry_count entries: a geometry's
 * name, or NULL or "" for none. */
char *ndem_frame_to_json(const ndem_frame *frame, long index, const char *const *names);

#endif
