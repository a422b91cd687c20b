/* log.c - the daemon's log: one line per HTTP request and per job
 * transition, always with the job id, so that `grep ID` tells a job's whole
 * story. Lines are formatted into one buffer and written with one call so
 * that threads never interleave inside a line. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int64_t ndem_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

double ndem_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *ndem_rfc3339(int64_t us, char *buf, unsigned long len)
{
    time_t s = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char date[24];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", date, (int)(us % 1000000 / 1000));
    return buf;
}

void ndem_log(const char *fmt, ...)
{
    char line[2048], when[32];
    int n = snprintf(line, sizeof line, "%s ", ndem_rfc3339(ndem_now_us(), when, sizeof when));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; c++) /* job names and paths are the client's words: one line */
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    fprintf(stderr, "%s\n", line);
}
