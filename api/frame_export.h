/* frame_export.h - one frame as files other programs read (docs/frames.md,
 * "Exports"): VTK XML PolyData (.vtp, for ParaView) and CSV. */
#ifndef NDEM_FRAME_EXPORT_H
#define NDEM_FRAME_EXPORT_H

#include "ndem.h"

#include <stddef.h>

/* VTK XML PolyData, ASCII: one vertex per particle at its centre, point
 * data radius, velocity, speed, angular_velocity, material when the frame
 * has materials, orientation (4) and shape when it has shapes, and id (its place in the frame); the
 * time as field data TimeValue. malloc'd text (*len bytes), NULL when out of memory. */
char *ndem_frame_to_vtp(const ndem_frame *frame, long index, size_t *len);
/* CSV: a header row "id,x,y,z,radius,vx,vy,vz,wx,wy,wz" (",material" when
 * the frame has materials, ",qw,qx,qy,qz,shape" when it has shapes), then
 * one row per particle. */
char *ndem_frame_to_csv(const ndem_frame *frame, size_t *len);

#endif
