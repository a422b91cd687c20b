/* test_storage.c - outputs, disks and damaged files (issue 12, items 4
 * and 5).
 *
 * Units: CRC-32C against its published check value and a bit-by-bit CRC;
 * NDF1 records, series rows and engine checkpoints refuse one changed byte;
 * the output estimate from a document's own numbers.
 * Daemon: the budget is a 422 at submission and a failure at run time; a
 * full disk fails a job at once naming the file; /health is 503 degraded on
 * a read-only or nearly full data directory; a resumed job falls back to the
 * previous checkpoint generation when the newest (or the series it counts)
 * is damaged and still ends byte-identical to an uninterrupted run; damaged
 * frames are never served with 200 and damaged series rows are not served.
 *
 * The disk tests mount a small tmpfs on DATA/jobs (the daemon runs as root
 * in CI); where mounting is refused they say so and check nothing else. */
#include "crc32c.h"
#include "daemon.h"
#include "frame_bin.h"
#include "job.h"
#include "ndem.h"
#include "scene.h"
#include "series.h"
#include "testutil.h"

#include <math.h>
#include <sys/mount.h>

/* ---- units ---- */

static uint32_t crc_bitwise(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
}

START_TEST(crc32c_matches_its_check_value)
{
    ck_assert_uint_eq(ndem_crc32c(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(ndem_crc32c(0, "", 0), 0);
    unsigned char buf[300];
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sizeof buf; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (unsigned char)x;
    }
    /* every length and alignment through the 8-byte loop and the tail */
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 0; n + off <= sizeof buf; n += 7) {
            uint32_t whole = ndem_crc32c(0, buf + off, n);
            ck_assert_uint_eq(whole, crc_bitwise(buf + off, n));
            size_t half = n / 3;
            ck_assert_uint_eq(
                ndem_crc32c(ndem_crc32c(0, buf + off, half), buf + off + half, n - half), whole);
        }
}
END_TEST

START_TEST(frame_records_refuse_damage)
{
    double pos[6] = {0, 0, 1, 0.5, 0.25, 2}, r[2] = {0.1, 0.2}, v[6] = {1, 2, 3, 4, 5, 6},
           w[6] = {0};
    ndem_frame f = {.count = 2, .step = 7, .time = 0.07};
    f.positions = pos, f.radii = r, f.velocities = v, f.angular_velocities = w;
    size_t size = ndem_frame_bin_size(&f, NDEM_FRAME_ALL);
    unsigned char *buf = malloc(size);
    ck_assert_uint_eq(ndem_frame_bin_encode(&f, 3, NDEM_FRAME_ALL, buf), size);
    char why[160];
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), 0); /* unsealed */
    ndem_frame_bin_seal(buf, size);
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), 0);
    ck_assert_uint_eq(buf[44], NDEM_FRAME_FLAG_CRC);
    /* one bit of one float */
    buf[60] ^= 0x04;
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), -1);
    ck_assert_str_eq(why, "checksum mismatch");
    buf[60] ^= 0x04;
    ck_assert_int_eq(ndem_frame_bin_check(buf, size - 4, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "truncated") != NULL, "%s", why);
    /* a record of an older writer (no CRC flag) is still read */
    memset(buf + 40, 0, 8);
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), 0);
    free(buf);
}
END_TEST

/* Materials (bit 5) and geometry poses (bit 6) after the old arrays: the
 * lengths docs/frames.md gives, exact doubles for the poses, and records
 * of older writers (fields 31) still decode, without them. */
START_TEST(frame_records_carry_materials_and_poses)
{
    double pos[6] = {0, 0, 1, 0.5, 0.25, 2}, r[2] = {0.1, 0.2}, v[6] = {1, 2, 3, 4, 5, 6},
           w[6] = {0};
    double poses[14] = {0.1, 0.2, 1.0 / 3.0, 1, 0, 0, 0, -1e-300, 2, 3, 0.6, 0.8, 0, 0};
    int mat[2] = {2, 0};
    ndem_frame f = {.count = 2, .step = 7, .time = 0.07};
    f.positions = pos, f.radii = r, f.velocities = v, f.angular_velocities = w;
    f.materials = mat, f.geometry_poses = poses, f.geometry_count = 2;
    size_t size = ndem_frame_bin_size(&f, NDEM_FRAME_ALL);
    ck_assert_uint_eq(size, 48 + 2 * 4 * (3 + 1 + 1 + 3 + 3 + 1) + 8 + 2 * 64);
    unsigned char *buf = malloc(size);
    ck_assert_uint_eq(ndem_frame_bin_encode(&f, 3, NDEM_FRAME_ALL, buf), size);
    ndem_frame_bin_seal(buf, size);
    char why[160];
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), 0);
    uint32_t fields;
    memcpy(&fields, buf + 32, 4);
    ck_assert_uint_eq(fields, 127);
    ndem_frame g;
    long index;
    ck_assert_int_eq(ndem_frame_bin_decode(buf, size, &g, &index), 0);
    ck_assert_int_eq(index, 3);
    ck_assert_int_eq(g.geometry_count, 2);
    ck_assert_mem_eq(g.geometry_poses, poses, sizeof poses);
    ck_assert_int_eq(g.materials[0], 2);
    ck_assert_int_eq(g.materials[1], 0);
    ck_assert_double_eq(g.positions[5], 2);
    ndem_frame_free(&g);
    /* a record cut inside the pose section, or with a pose count too large */
    ck_assert_int_eq(ndem_frame_bin_check(buf, size - 64, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "truncated") != NULL, "%s", why);
    ck_assert_int_eq(ndem_frame_bin_check(buf, 48 + 2 * 4 * 12 + 4, why, sizeof why), -1);
    buf[48 + 2 * 4 * 12] = 3;
    ck_assert_int_eq(ndem_frame_bin_check(buf, size, why, sizeof why), -1);
    free(buf);
    /* an older writer's record: fields 31, no CRC; no materials, no poses */
    f.materials = NULL, f.geometry_poses = NULL;
    size = ndem_frame_bin_size(&f, NDEM_FRAME_ALL);
    ck_assert_uint_eq(size, 48 + 2 * 4 * 11);
    buf = malloc(size);
    ndem_frame_bin_encode(&f, 4, NDEM_FRAME_ALL, buf);
    memcpy(&fields, buf + 32, 4);
    ck_assert_uint_eq(fields, 31);
    ck_assert_int_eq(ndem_frame_bin_decode(buf, size, &g, &index), 0);
    ck_assert_ptr_null(g.materials);
    ck_assert_ptr_null(g.geometry_poses);
    ck_assert_double_eq(g.velocities[3], 4);
    ndem_frame_free(&g);
    free(buf);
}
END_TEST

START_TEST(series_rows_carry_their_crc)
{
    ndem_step_stats s = {0};
    s.step = 12;
    s.time = 0.06;
    s.particles = 3;
    s.kinetic_energy = 1.5e-3;
    char row[512];
    int n = ndem_series_row(row, sizeof row, &s, NULL);
    ck_assert_int_eq(n, (int)strlen(row));
    ck_assert_int_eq(row[n - 1], '\n');
    ck_assert_int_eq(ndem_series_check_row(row, (size_t)n), 0);
    /* the CRC is of the text before it */
    char *comma = strrchr(row, ',');
    char want[16];
    snprintf(want, sizeof want, ",%08x\n", (unsigned)ndem_crc32c(0, row, (size_t)(comma - row)));
    ck_assert_str_eq(comma, want);
    row[3] = row[3] == '9' ? '8' : '9'; /* one digit of the time */
    ck_assert_int_eq(ndem_series_check_row(row, (size_t)n), -1);
    ck_assert(ndem_series_has_crc(ndem_series_header, strlen(ndem_series_header)));
    ck_assert(!ndem_series_has_crc("step,time,wall_seconds\n", 23));
}
END_TEST

START_TEST(damaged_checkpoint_is_refused_as_damaged)
{
    ndem_job *job = test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"geometry\": [{\"type\": \"plane\", \"point\": [0, 0, 0], "
        "\"normal\": [0, 0, 1]}], \"particles\": [{\"type\": \"lattice\", \"min\": [0, 0, 0.01], "
        "\"max\": [0.1, 0.1, 0.1], \"spacing\": 0.025, \"radius\": 0.01}]}, "
        "\"solver\": {\"time_step\": 0.002, \"duration\": 1}}");
    char err[256];
    ndem_sim *sim = ndem_sim_create(&job->scene, err, sizeof err);
    ck_assert_ptr_nonnull(sim);
    for (int i = 0; i < 20; i++) ck_assert_int_eq(ndem_sim_step(sim), NDEM_OK);
    void *buf;
    size_t len;
    ck_assert_int_eq(ndem_sim_checkpoint(sim, &buf, &len), 0);
    unsigned char *b = buf;
    ndem_sim *back = ndem_sim_restore(&job->scene, buf, len, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    ndem_sim_destroy(back);
    /* one double (the first particle's x, after the 40-byte head) off by 0.1% */
    double x;
    memcpy(&x, b + 40, 8);
    double y = x * 1.001 + 1e-9;
    memcpy(b + 40, &y, 8);
    ck_assert_ptr_null(ndem_sim_restore(&job->scene, buf, len, err, sizeof err));
    ck_assert_str_eq(err, "checkpoint is damaged (checksum mismatch)");
    memcpy(b + 40, &x, 8);
    /* random bytes over the middle */
    uint64_t s = 1234567;
    for (size_t i = len / 3; i < len / 3 + 256 && i < len; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        b[i] = (unsigned char)s;
    }
    ck_assert_ptr_null(ndem_sim_restore(&job->scene, buf, len, err, sizeof err));
    ck_assert_str_eq(err, "checkpoint is damaged (checksum mismatch)");
    free(buf);
    ndem_sim_destroy(sim);
    ndem_job_destroy(job);
}
END_TEST

START_TEST(output_estimate_from_the_document)
{
    /* 3 listed spheres, 1 s at 1 ms, a frame every 10 ms: 101 frames of 3
     * particles (48 + 8 + 3 * 48 bytes each: the header, an empty pose
     * section, 12 float32 a particle), 1000 series rows */
    ndem_job *job = test_job(
        "{\"scene\": {\"materials\": [{\"name\": \"ore\", \"density\": 2500, "
        "\"young_modulus\": 1e7}], \"particles\": [{\"type\": \"list\", \"spheres\": "
        "[[0, 0, 0.0099, 0.01], [0.03, 0, 0.0099, 0.01], [0, 0.03, 0.08, 0.01]]}]}, "
        "\"solver\": {\"time_step\": 0.001, \"duration\": 1}, \"output\": {\"frame_interval\": "
        "0.01}}");
    double want = 101.0 * (48 + 8 + 3 * 48) + 1000.0 * NDEM_SERIES_ROW_BYTES +
                  (double)strlen(ndem_series_header);
    ck_assert_double_eq(ndem_job_output_estimate(job), want);
    ndem_job_destroy(job);
}
END_TEST

/* ---- daemon helpers ---- */

/* tmpfs mounts still up: a failed check leaves its test early, and main
 * unmounts them before the daemons' directories are removed */
static char mounts[8][300];

static void track_mount(const char *path, int add)
{
    for (int i = 0; i < 8; i++)
        if (add ? !mounts[i][0] : !strcmp(mounts[i], path)) {
            snprintf(mounts[i], sizeof mounts[i], "%s", add ? path : "");
            return;
        }
}

/* A small tmpfs of `size` (e.g. "1m") on path: 0, or -1 when refused. */
static int mount_tmpfs(const char *path, const char *size)
{
    char opts[64];
    snprintf(opts, sizeof opts, "size=%s", size);
    mkdir(path, 0755);
    if (mount("tmpfs", path, "tmpfs", 0, opts)) {
        fprintf(stderr, "storage: cannot mount a tmpfs on %s (%s): disk test not run\n", path,
                strerror(errno));
        return -1;
    }
    track_mount(path, 1);
    return 0;
}

/* td_start with DATA/jobs on a tmpfs of `size`; -1 (nothing started) when
 * mounting is refused. */
static int start_on_tmpfs(td_daemon *d, const char *size, char *jobs, size_t jobs_len, ...)
{
    td_make_dir(d);
    char var[300];
    snprintf(var, sizeof var, "%s/var", d->dir);
    mkdir(var, 0755);
    snprintf(jobs, jobs_len, "%s/jobs", var);
    if (mount_tmpfs(jobs, size)) {
        td_stop(d);
        return -1;
    }
    va_list ap;
    va_start(ap, jobs_len);
    td_launch(d, ap);
    va_end(ap);
    return 0;
}

static void stop_on_tmpfs(td_daemon *d, const char *jobs)
{
    if (d->pid > 0) td_signal(d, SIGTERM, 10);
    umount2(jobs, MNT_DETACH);
    track_mount(jobs, 0);
    td_stop(d);
}

static char *job_error(const td_daemon *d, const char *id, long *step)
{
    cJSON *o = td_job(d, id);
    const cJSON *e = cJSON_GetObjectItem(o, "error");
    char *text = strdup(cJSON_IsString(e) ? e->valuestring : "");
    *step = (long)td_num(cJSON_GetObjectItem(o, "progress"), "step");
    cJSON_Delete(o);
    return text;
}

/* ---- budget ---- */

START_TEST(budget_is_checked_at_submission)
{
    td_daemon d;
    td_start(&d, "--max-output", "500000", (char *)NULL);
    /* td_job_doc: 3 listed + an emitter of at most 2 = 5 particles; 10 s at
     * 5 ms = 2000 steps; a frame every 5 ms = 2001 frames of 48 + 5 * 48
     * and the plane's pose (8 + 64) */
    char *doc = td_job_doc("big", 10, 0.005);
    td_resp r = td_post_job(&d, doc);
    ck_assert_int_eq(r.status, 422);
    cJSON *p = cJSON_Parse(r.body);
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "errors"), 0);
    ck_assert_str_eq(td_str(e, "pointer"), "/output/frame_interval");
    double want = 2001.0 * (48 + 8 + 64 + 5 * 48) + 2000.0 * NDEM_SERIES_ROW_BYTES +
                  (double)strlen(ndem_series_header);
    char num[64];
    snprintf(num, sizeof num, "about %.0f bytes", want);
    const char *msg = td_str(e, "message");
    ck_assert_msg(strstr(msg, num) && strstr(msg, "500000 bytes") && strstr(msg, "--max-output"),
                  "%s (want %s)", msg, num);
    cJSON_Delete(p);
    td_resp_free(&r);
    free(doc);
    /* ten times fewer frames fit */
    doc = td_job_doc("small", 10, 0.05);
    r = td_post_job(&d, doc);
    ck_assert_int_eq(r.status, 201);
    td_resp_free(&r);
    free(doc);
    td_stop(&d);
}
END_TEST

/* A job admitted under one budget and resumed under a smaller one stops
 * as soon as its output passes it (the run-time check that also catches
 * emitters outgrowing the estimate). */
START_TEST(budget_is_enforced_while_running)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--checkpoint-interval", "60", (char *)NULL);
    char a[64];
    char *doc = td_long_job_doc("budget", 3.0, 0.01);
    td_submit(&d, doc, a);
    free(doc);
    cJSON *o = td_job(&d, a);
    long total = (long)td_num(cJSON_GetObjectItem(o, "progress"), "steps_total");
    cJSON_Delete(o);
    td_wait_step(&d, a, total / 4, 60);
    td_signal(&d, SIGTERM, 10); /* checkpoints; the job goes back to the queue */
    /* the files written so far already exceed 200 kB: 75+ frames of 604 particles */
    d.args[d.nargs++] = "--max-output";
    d.args[d.nargs++] = "200000";
    td_spawn(&d);
    td_wait_status(&d, a, "failed", 60);
    long step;
    char *err = job_error(&d, a, &step);
    ck_assert_msg(strstr(err, "budget of 200000 bytes (--max-output)") != NULL, "%s", err);
    char needle[128];
    snprintf(needle, sizeof needle, "job %s: resumed from its checkpoint", a);
    long resumed = td_log_number(&d, needle, " at step ");
    ck_assert_int_gt(resumed, 0);
    ck_assert_int_le(step, resumed + 5); /* at its first frame, not at the end */
    free(err);
    td_stop(&d);
}
END_TEST

/* ---- disks ---- */

START_TEST(full_disk_fails_the_job_at_once)
{
    td_daemon d;
    char jobs[300];
    if (start_on_tmpfs(&d, "512k", jobs, sizeof jobs, "--workers", "1", "--min-free", "0",
                       (char *)NULL))
        return;
    /* 604 particles: 26.6 kB a frame, 301 frames: 8 MB on 512 kB */
    char a[64];
    char *doc = td_long_job_doc("full", 3.0, 0.01);
    td_submit(&d, doc, a);
    free(doc);
    td_wait_status(&d, a, "failed", 90);
    long step;
    char *err = job_error(&d, a, &step);
    ck_assert_msg(strstr(err, "No space left on device") &&
                      (strstr(err, "writing frames/") || strstr(err, "writing series.csv")),
                  "%s", err);
    /* about 19 frames fit (every 5 steps): it stopped far from its 1500 steps */
    ck_assert_int_lt(step, 300);
    free(err);
    /* the daemon answers: a new job cannot be recorded on the full disk (503,
     * the reason given), and is accepted once the failed job's files are gone */
    doc = td_job_doc("after", 0.05, 0.05);
    td_resp r = td_post_job(&d, doc);
    ck_assert_int_eq(r.status, 503);
    ck_assert_msg(r.body && strstr(r.body, "No space left on device"), "%s", r.body);
    td_resp_free(&r);
    char path[128];
    snprintf(path, sizeof path, "/api/v1/jobs/%s", a);
    r = td_http(&d, "DELETE", path, NULL, NULL, 0, NULL);
    ck_assert_int_eq(r.status, 204);
    td_resp_free(&r);
    r = td_post_job(&d, doc);
    ck_assert_int_eq(r.status, 201);
    td_resp_free(&r);
    free(doc);
    stop_on_tmpfs(&d, jobs);
}
END_TEST

static cJSON *wait_health(const td_daemon *d, long want, double timeout)
{
    double end = td_now() + timeout;
    for (;;) {
        td_resp r = td_http(d, "GET", "/health", NULL, NULL, 0, NULL);
        if (r.status == want || td_now() > end) {
            ck_assert_msg(r.status == want, "/health answered %ld, not %ld: %s", r.status, want,
                          r.body ? r.body : "");
            cJSON *o = cJSON_Parse(r.body);
            td_resp_free(&r);
            return o;
        }
        td_resp_free(&r);
        td_sleep(0.2);
    }
}

static int has_problem(const cJSON *o, const char *needle)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(o, "problems"))
    {
        if (cJSON_IsString(p) && strstr(p->valuestring, needle)) return 1;
    }
    return 0;
}

START_TEST(health_reports_a_degraded_disk)
{
    td_daemon d;
    char jobs[300], fill[400];
    if (start_on_tmpfs(&d, "4m", jobs, sizeof jobs, "--min-free", "2000000", (char *)NULL)) return;
    cJSON *o = wait_health(&d, 200, 10);
    ck_assert_str_eq(td_str(o, "status"), "ok");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "problems")), 0);
    cJSON_Delete(o);
    /* read-only: the probe's write fails */
    ck_assert_int_eq(mount(NULL, jobs, NULL, MS_REMOUNT | MS_RDONLY, "size=4m"), 0);
    o = wait_health(&d, 503, 10);
    ck_assert_str_eq(td_str(o, "status"), "degraded");
    ck_assert_msg(has_problem(o, "not writable: Read-only file system"), "%s",
                  cJSON_PrintUnformatted(o));
    ck_assert(
        cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "storage"), "data_writable")));
    cJSON_Delete(o);
    ck_assert_int_eq(mount(NULL, jobs, NULL, MS_REMOUNT, "size=4m"), 0);
    cJSON_Delete(wait_health(&d, 200, 10));
    /* nearly full: 3 MB of 4 MB taken, less than --min-free left */
    snprintf(fill, sizeof fill, "%s/fill", jobs);
    FILE *f = fopen(fill, "w");
    ck_assert_ptr_nonnull(f);
    static char block[1 << 16];
    for (int i = 0; i < 48; i++) ck_assert_uint_eq(fwrite(block, 1, sizeof block, f), sizeof block);
    ck_assert_int_eq(fclose(f), 0);
    o = wait_health(&d, 503, 10);
    ck_assert_msg(has_problem(o, "below --min-free (2000000)"), "%s", cJSON_PrintUnformatted(o));
    cJSON_Delete(o);
    unlink(fill);
    cJSON_Delete(wait_health(&d, 200, 10));
    stop_on_tmpfs(&d, jobs);
}
END_TEST

/* ---- damaged files and resume ---- */

static void job_file(const td_daemon *d, const char *id, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/var/jobs/%s/%s", d->dir, id, name);
}

/* Runs a job until both checkpoint generations exist, a little past the
 * newest, then kills the daemon with SIGKILL. */
static void crash_with_two_generations(td_daemon *d, const char *id)
{
    char ckpt[400], prev[400];
    job_file(d, id, "checkpoint.ndck", ckpt, sizeof ckpt);
    job_file(d, id, "checkpoint.prev.ndck", prev, sizeof prev);
    struct stat st;
    double end = td_now() + 60;
    while (stat(prev, &st) || stat(ckpt, &st)) {
        ck_assert_msg(td_now() < end, "no two checkpoint generations written");
        td_sleep(0.02);
    }
    td_sleep(0.25);
    td_signal(d, SIGKILL, 5);
}

static void flip_byte(const char *path, long at)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    ck_assert_int_ne(c, EOF);
    ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ 0x10, f);
    ck_assert_int_eq(fclose(f), 0);
}

static long file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return (long)st.st_size;
}

/* The series.csv length a checkpoint file counts (header offset 32). */
static long counted_series(const char *path)
{
    unsigned char h[40];
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fread(h, 1, sizeof h, f), sizeof h);
    fclose(f);
    long v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | h[32 + i];
    return v;
}

static void resume_and_compare(td_daemon *d, const char *id, const char *reference)
{
    td_spawn(d);
    td_wait_status(d, id, "succeeded", 120);
    td_same_output(d, id, reference);
}

START_TEST(resume_survives_damaged_files)
{
    td_daemon d;
    td_start(&d, "--workers", "1", "--checkpoint-interval", "0.4", "--progress-interval", "0.05",
             (char *)NULL);
    char ref[64], a[64], b[64], c[64], path[400], needle[200];
    char *doc = td_long_job_doc("damage", 2.0, 0.05);
    td_submit(&d, doc, ref);
    td_wait_status(&d, ref, "succeeded", 120);

    /* 1. one byte of the newest checkpoint's engine state (a particle
     * position): the previous generation is used */
    td_submit(&d, doc, a);
    crash_with_two_generations(&d, a);
    job_file(&d, a, "checkpoint.ndck", path, sizeof path);
    flip_byte(path, 56 + 40 + 5);
    resume_and_compare(&d, a, ref);
    snprintf(needle, sizeof needle,
             "job %s: checkpoint checkpoint.ndck not usable: damaged (checksum mismatch)", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    snprintf(needle, sizeof needle, "job %s: falling back to the previous checkpoint", a);
    ck_assert_int_eq(td_log_count(&d, needle), 1);

    /* 2. random bytes over both generations: from zero, with the reason
     * logged, never an engine error */
    td_submit(&d, doc, b);
    crash_with_two_generations(&d, b);
    const char *names[] = {"checkpoint.ndck", "checkpoint.prev.ndck"};
    for (int g = 0; g < 2; g++) {
        job_file(&d, b, names[g], path, sizeof path);
        FILE *f = fopen(path, "r+b");
        ck_assert_ptr_nonnull(f);
        fseek(f, file_size(path) / 2, SEEK_SET);
        uint64_t x = 99991;
        for (int i = 0; i < 512; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            fputc((int)(x & 0xff), f);
        }
        fclose(f);
    }
    resume_and_compare(&d, b, ref);
    snprintf(needle, sizeof needle, "job %s: no usable checkpoint; starting from zero", b);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    snprintf(needle, sizeof needle, "job %s: checkpoint checkpoint.prev.ndck not usable: damaged",
             b);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    ck_assert_int_eq(td_log_count(&d, "time step"), 0);

    /* 3. series.csv cut in the middle of a row between the two generations:
     * the newest counts rows that are gone, the previous does not */
    td_submit(&d, doc, c);
    crash_with_two_generations(&d, c);
    job_file(&d, c, "checkpoint.prev.ndck", path, sizeof path);
    long keep = counted_series(path) + 25;
    job_file(&d, c, "checkpoint.ndck", path, sizeof path);
    ck_assert_int_gt(counted_series(path), keep);
    job_file(&d, c, "series.csv", path, sizeof path);
    ck_assert_int_eq(truncate(path, keep), 0);
    resume_and_compare(&d, c, ref);
    snprintf(needle, sizeof needle, "job %s: falling back to the previous checkpoint", c);
    ck_assert_int_eq(td_log_count(&d, needle), 1);
    snprintf(path, sizeof path, "/api/v1/jobs/%s/series", c);
    cJSON *o = td_get_json(&d, path, 200);
    cJSON *j = td_job(&d, c);
    ck_assert_int_eq((long)td_num(o, "count"),
                     (long)td_num(cJSON_GetObjectItem(j, "progress"), "steps_total"));
    cJSON_Delete(j);
    cJSON_Delete(o);
    free(doc);
    td_stop(&d);
}
END_TEST

START_TEST(damaged_outputs_are_not_served)
{
    td_daemon d;
    td_start(&d, (char *)NULL);
    char a[64], path[400], route[200];
    char *doc = td_job_doc("served", 0.5, 0.05); /* 100 steps, 11 frames */
    td_submit(&d, doc, a);
    free(doc);
    td_wait_status(&d, a, "succeeded", 60);
    /* a frame with one changed byte, another cut short */
    job_file(&d, a, "frames/000003.ndf", path, sizeof path);
    flip_byte(path, 70);
    job_file(&d, a, "frames/000004.ndf", path, sizeof path);
    ck_assert_int_eq(truncate(path, file_size(path) - 12), 0);
    const char *accepts[] = {"application/octet-stream", "application/json"};
    for (int f = 3; f <= 4; f++)
        for (int k = 0; k < 2; k++) {
            snprintf(route, sizeof route, "/api/v1/jobs/%s/frames/%d", a, f);
            td_resp r = td_http(&d, "GET", route, NULL, NULL, 0, accepts[k]);
            ck_assert_int_eq(r.status, 500);
            char want[64];
            snprintf(want, sizeof want, "frame %d is damaged", f);
            ck_assert_msg(r.body && strstr(r.body, want), "%s", r.body ? r.body : "");
            td_resp_free(&r);
        }
    snprintf(route, sizeof route, "/api/v1/jobs/%s/frames/5", a);
    td_resp r = td_http(&d, "GET", route, NULL, NULL, 0, "application/octet-stream");
    ck_assert_int_eq(r.status, 200);
    td_resp_free(&r);
    /* one digit of row 40 of the series: rows 0..39 are served, and it says so */
    job_file(&d, a, "series.csv", path, sizeof path);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    long at = 0;
    for (int line = 0, ch; line < 41 && (ch = fgetc(f)) != EOF; at++) line += ch == '\n';
    fclose(f);
    flip_byte(path, at + 3);
    snprintf(route, sizeof route, "/api/v1/jobs/%s/series", a);
    cJSON *o = td_get_json(&d, route, 200);
    ck_assert_int_eq((long)td_num(o, "count"), 40);
    ck_assert_int_eq((long)td_num(o, "damaged_row"), 40);
    const cJSON *cols = cJSON_GetObjectItem(o, "columns");
    ck_assert_str_eq(cJSON_GetArrayItem(cols, cJSON_GetArraySize(cols) - 1)->valuestring,
                     "wall_seconds");
    cJSON_Delete(o);
    td_stop(&d);
}
END_TEST

static Suite *storage_suite(void)
{
    Suite *s = suite_create("storage");
    TCase *tc = tcase_create("units");
    tcase_add_test(tc, crc32c_matches_its_check_value);
    tcase_add_test(tc, frame_records_refuse_damage);
    tcase_add_test(tc, frame_records_carry_materials_and_poses);
    tcase_add_test(tc, series_rows_carry_their_crc);
    tcase_add_test(tc, damaged_checkpoint_is_refused_as_damaged);
    tcase_add_test(tc, output_estimate_from_the_document);
    suite_add_tcase(s, tc);
    tc = tcase_create("daemon");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, budget_is_checked_at_submission);
    tcase_add_test(tc, budget_is_enforced_while_running);
    tcase_add_test(tc, full_disk_fails_the_job_at_once);
    tcase_add_test(tc, health_reports_a_degraded_disk);
    tcase_add_test(tc, damaged_outputs_are_not_served);
    tcase_add_test(tc, resume_survives_damaged_files);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int rc = ndem_test_run_suite(storage_suite());
    for (int i = 0; i < 8; i++)
        if (mounts[i][0]) umount2(mounts[i], MNT_DETACH);
    td_kill_children();
    curl_global_cleanup();
    return rc;
}
