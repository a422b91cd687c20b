/* log.h - one line per event on stderr, with a UTC timestamp. */
#ifndef NDEM_SERVER_LOG_H
#define NDEM_SERVER_LOG_H

#include <stdint.h>

void ndem_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Wall-clock microseconds since the epoch, and their RFC 3339 form
 * ("2026-01-02T03:04:05.678Z"; buf of at least 32 bytes). */
int64_t ndem_now_us(void);
const char *ndem_rfc3339(int64_t us, char *buf, unsigned long len);
/* Monotonic seconds, for rates and intervals. */
double ndem_mono(void);

#endif
