/* main.c - ndemd: start-up, the signal loop, and an orderly shutdown.
 *
 * Start-up order matters: the database first (migrations), then jobs left
 * `running` by a crash go back to the queue (a worker resumes each from its
 * checkpoint), then the disk writer (which first sweeps away files of jobs
 * whose delete was interrupted), the stream, the workers, and HTTP last, so
 * nothing is accepted before it can be served. SIGINT and SIGTERM are
 * blocked in every thread and taken here with sigtimedwait(): shutdown runs
 * in plain code, not in a signal handler. It goes in reverse: stop
 * accepting requests, let each worker checkpoint its job and put it back in
 * the queue (one step at most), drain the disk writer, close the streams. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "app.h"
#include "jobdir.h"
#include "log.h"
#include "origin.h"
#include "recover.h"

#include <curl/curl.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_dirs(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* An idle OpenMP thread spins, then sleeps. Spinning forever (ACTIVE)
 * takes the core of a thread another job or process needs, and a barrier
 * can then wait a whole time slice; never spinning (PASSIVE) costs a job
 * alone more than twice its step (docs/performance.md, "Session 10").
 * ndemd bounds the spin instead (--omp-spin). The runtime reads
 * GOMP_SPINCOUNT once, when it loads, so ndemd sets it and re-executes
 * itself (same pid, same arguments). A setting of the user's is kept. */
static void choose_wait_policy(const ndem_config *cfg, char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || cfg->omp_spin < 0) return;
    char spin[32];
    snprintf(spin, sizeof spin, "%ld", cfg->omp_spin);
    setenv("GOMP_SPINCOUNT", spin, 1);
    execv("/proc/self/exe", argv);
    /* exec failed: go on with the runtime's default */
}

/* --cores 0: the CPUs this process may run on (taskset, cgroups' cpusets),
 * not every CPU of the machine. */
static void choose_cores(ndem_config *cfg)
{
    if (cfg->cores > 0) return;
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) ? 0 : CPU_COUNT(&set);
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->cores = n > 0 ? n : 1;
}

/* Every HTTP and stream connection is a descriptor: take the hard limit,
 * and keep the connection limit below it (with room for the database,
 * files and streams) so that accept() never fails for want of one. */
static void raise_fd_limit(ndem_config *cfg)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl)) return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    long spare = 64 + cfg->max_stream_clients;
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)(cfg->connection_limit + spare) > rl.rlim_cur) {
        long limit = (long)rl.rlim_cur - spare;
        cfg->connection_limit = limit > 16 ? limit : 16;
        ndem_log("ndemd: %ld file descriptors: --connection-limit lowered to %ld",
                 (long)rl.rlim_cur, cfg->connection_limit);
    }
}

static int origin_ok(void *ctx, const char *origin)
{
    const ndem_app *app = ctx;
    return ndem_origin_allowed(&app->cfg, origin);
}

static int host_ok(void *ctx, const char *host)
{
    const ndem_app *app = ctx;
    return ndem_host_allowed(&app->cfg, host);
}

static int authenticate(void *ctx, const char *token, char *owner, int *admin)
{
    const ndem_app *app = ctx;
    return ndem_auth_check(app->auth, token, owner, admin);
}

/* Jobs still `running` were interrupted by a crash or a kill: back to the
 * queue, or failed once they were interrupted --max-attempts times (a job
 * that crashes or hangs the daemon must not do so forever). */
static int requeue_interrupted(ndem_app *app)
{
    ndem_id *ids;
    int failed, requeued;
    if (ndem_db_recover_running(app->db, app->cfg.max_attempts, &ids, &failed, &requeued))
        return -1;
    for (int i = 0; i < failed + requeued; i++) {
        ndem_jobdir_sync(app->cfg.data, app->db, ids[i]);
        if (i < failed)
            ndem_log("job %s: failed: interrupted %ld time(s) while running; not retried "
                     "(--max-attempts)",
                     ids[i], app->cfg.max_attempts);
    }
    free(ids);
    if (requeued > 0) ndem_log("recovery: %d interrupted job(s) back in the queue", requeued);
    return 0;
}

static void shutdown_app(ndem_app *app)
{
    ndem_http_stop(app->http); /* no new work */
    /* running jobs checkpoint and requeue; one whose step never ends is
     * left `running` and counts as interrupted at the next start */
    int left = ndem_pool_stop(app->pool, app->cfg.stop_timeout);
    if (left) {
        ndem_log("ndemd: %d job(s) still in a step after --stop-timeout %g s: exiting without "
                 "them (interrupted; --max-attempts bounds their retries)",
                 left, app->cfg.stop_timeout);
        _exit(1);
    }
    ndem_store_close(app->store);
    ndem_stream_stop(app->stream);
    ndem_meshes_close(app->meshes);
    ndem_auth_close(app->auth);
    ndem_db_close(app->db);
    ndem_health_destroy(app->health);
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* The engine's large arrays come and go (rows grow, lists are rebuilt):
     * a fixed threshold keeps them in mmap, so freed memory returns to the
     * system instead of fragmenting the heap (about 20% of a bed's peak). */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    if (argc > 1 && !strcmp(argv[1], "token")) return ndem_token_main(argc - 1, argv + 1);
    if (argc == 2 && !strcmp(argv[1], "routes")) return ndem_routes_main();
    ndem_app app;
    memset(&app, 0, sizeof app);
    int rc = ndem_config_load(&app.cfg, argc, argv, stderr);
    if (rc) return rc > 0 ? 0 : 2;
    choose_wait_policy(&app.cfg, argv);
    const char *cores_from = app.cfg.cores > 0 ? "--cores" : "the CPUs ndemd may run on";
    choose_cores(&app.cfg);
    raise_fd_limit(&app.cfg);
    app.parse_budget.limit = app.cfg.parse_budget;
    app.started = ndem_mono();
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL); /* inherited by every thread */
    signal(SIGPIPE, SIG_IGN);
    /* before any thread: libcurl's global set-up is not thread-safe
     * (--slurm-rest: workers speak to slurmrestd) */
    if (app.cfg.slurm_rest[0] && curl_global_init(CURL_GLOBAL_DEFAULT)) {
        fprintf(stderr, "ndemd: cannot initialize libcurl\n");
        return 1;
    }

    char err[1024], path[1100];
    if (make_dirs(app.cfg.data)) {
        fprintf(stderr, "ndemd: cannot create %s: %s\n", app.cfg.data, strerror(errno));
        return 1;
    }
    /* one daemon per data directory: a second would take the first's
     * running jobs for crashed ones */
    snprintf(path, sizeof path, "%s/ndemd.lock", app.cfg.data);
    int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB)) {
        fprintf(stderr, "ndemd: %s is in use by another ndemd (%s)\n", app.cfg.data,
                strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/ndem.db", app.cfg.data);
    if (app.cfg.recover ? ndem_recover_rebuild(app.cfg.data, err, sizeof err)
                        : ndem_recover_check_lost(app.cfg.data, err, sizeof err))
        goto fail;
    int damaged = 0;
    if (!(app.db = ndem_db_open(path, &damaged, err, sizeof err))) {
        if (damaged) {
            fprintf(stderr,
                    "ndemd: %s. Nothing was changed; start once with --recover to move it aside "
                    "and rebuild the job index from the job directories\n",
                    err);
            close(lock);
            return 1;
        }
        goto fail;
    }
    if (!(app.meshes = ndem_meshes_open(path, err, sizeof err))) goto fail;
    if (!(app.auth = ndem_auth_open(path, err, sizeof err))) goto fail;
    if (ndem_mesh_files_sweep(app.cfg.data) > 0)
        ndem_log("meshes: removed the temporary files of interrupted uploads");
    ndem_meshes_reconcile(app.meshes, app.cfg.data, app.cfg.recover);
    if (app.cfg.recover && ndem_meshes_rehold(app.meshes, app.db, app.cfg.data) < 0)
        ndem_log("recover: cannot list the jobs to find their meshes");
    if (requeue_interrupted(&app)) {
        snprintf(err, sizeof err, "cannot put interrupted jobs back in the queue (see the log)");
        goto fail;
    }
    if (ndem_recover_backfill(app.cfg.data, app.db))
        ndem_log("recover: cannot list the jobs to complete their directories");
    if (!(app.store = ndem_store_open(app.cfg.data, app.db, err, sizeof err))) goto fail;
    ndem_store_sweep(app.store);
    if (!(app.health = ndem_health_create(app.cfg.data, app.cfg.min_free))) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    ndem_stream_hooks hooks = {&app, ndem_resource_describe, ndem_resource_latest_frame, origin_ok,
                               ndem_resource_may_stream};
    if (!(app.stream = ndem_stream_start(app.cfg.ws_host, app.cfg.ws_port,
                                         app.cfg.max_stream_clients, &hooks, err, sizeof err)))
        goto fail;
    if (!(app.pool = ndem_pool_start(&app.cfg, app.db, app.store, app.stream, err, sizeof err)))
        goto fail;
    ndem_http_opts http = {.threads = app.cfg.http_threads,
                           .max_body = app.cfg.max_body,
                           .timeout = app.cfg.http_timeout,
                           .head_timeout = app.cfg.head_timeout,
                           .connection_limit = app.cfg.connection_limit,
                           .per_ip_limit = app.cfg.per_ip_limit,
                           .origin_ok = origin_ok,
                           .host_ok = host_ok,
                           .authenticate = app.cfg.auth ? authenticate : NULL};
    if (!(app.http = ndem_http_start(app.cfg.http_host, app.cfg.http_port, &http, ndem_routes,
                                     ndem_static_file, &app, err, sizeof err)))
        goto fail;
    /* say what a job will get, not the names of the settings */
    char threads[64] = "each job's solver.threads";
    if (app.cfg.threads > 0) snprintf(threads, sizeof threads, "%ld (--threads)", app.cfg.threads);
    const char *wait = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    char adapt[80] = "";
    if (app.cfg.adapt_load > 0)
        snprintf(adapt, sizeof adapt, ", less those other processes keep busy (read every %g s)",
                 app.cfg.adapt_load);
    ndem_log("ndemd: listening on http://%s:%d (streams on ws://%s:%d), data in %s, "
             "%ld worker(s), threads per job: %s, at most %ld core(s) / running jobs (%s)%s, "
             "OpenMP waits: OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s, authentication %s",
             app.cfg.http_host, ndem_http_port(app.http), app.cfg.ws_host,
             ndem_stream_port(app.stream), app.cfg.data, app.cfg.workers, threads, app.cfg.cores,
             cores_from, adapt, wait ? wait : "(unset)", spin ? spin : "(unset)",
             app.cfg.auth ? "on (bearer tokens)" : "off");

    for (;;) {
        struct timespec tick = {1, 0};
        int sig = sigtimedwait(&sigs, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
            ndem_log("ndemd: %s: stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
    }
    double t0 = ndem_mono();
    shutdown_app(&app);
    ndem_log("ndemd: stopped in %.2f s", ndem_mono() - t0);
    close(lock);
    if (app.cfg.slurm_rest[0]) curl_global_cleanup();
    return 0;
fail:
    fprintf(stderr, "ndemd: %s\n", err);
    shutdown_app(&app);
    close(lock);
    if (app.cfg.slurm_rest[0]) curl_global_cleanup();
    return 1;
}
