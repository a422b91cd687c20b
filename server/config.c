/* config.c - every setting of ndemd in one table: name, type, default,
 * bounds, environment variable and help text. The same table parses the
 * command line (--name VALUE or --name=VALUE) and the environment (the
 * command line wins), prints --help, and is what docs/api.md lists, so the
 * three cannot drift apart. Values are checked against their bounds at
 * start-up: a typo stops the daemon with a message instead of running with
 * a surprise. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { OPT_STRING, OPT_LONG, OPT_DOUBLE, OPT_FLAG } opt_type;

typedef struct opt {
    const char *name;
    opt_type type;
    const char *def;
    double min, max; /* numbers only */
    const char *env;
    size_t offset;
    size_t size; /* strings: buffer size */
    const char *help;
} opt;

static const opt options[] = {
    {"listen", OPT_STRING, "127.0.0.1:8080", 0, 0, "NDEM_LISTEN", offsetof(ndem_config, listen),
     sizeof(((ndem_config *)0)->listen), "HOST:PORT of the HTTP API and web page"},
    {"ws-listen", OPT_STRING, "", 0, 0, "NDEM_WS_LISTEN", offsetof(ndem_config, ws_listen),
     sizeof(((ndem_config *)0)->ws_listen),
     "HOST:PORT of the WebSocket streams (empty: the HTTP host, port + 1)"},
    {"data", OPT_STRING, "./var", 0, 0, "NDEM_DATA", offsetof(ndem_config, data),
     sizeof(((ndem_config *)0)->data), "data directory: ndem.db, jobs/<id>/ and meshes/<id>.stl"},
    {"web", OPT_STRING, "web", 0, 0, "NDEM_WEB", offsetof(ndem_config, web),
     sizeof(((ndem_config *)0)->web), "directory of the static files served at /"},
    {"workers", OPT_LONG, "1", 1, 256, "NDEM_WORKERS", offsetof(ndem_config, workers), 0,
     "jobs run at the same time (one worker thread each)"},
    {"threads", OPT_LONG, "0", 0, 1024, "NDEM_THREADS", offsetof(ndem_config, threads), 0,
     "OpenMP threads per job (0: the job's solver.threads)"},
    {"cores", OPT_LONG, "0", 0, 4096, "NDEM_CORES", offsetof(ndem_config, cores), 0,
     "cores the running jobs share: each gets at most cores / running jobs threads, set anew "
     "every step (0: the CPUs ndemd may run on)"},
    {"adapt-load", OPT_DOUBLE, "0.5", 0, 3600, "NDEM_ADAPT_LOAD", offsetof(ndem_config, adapt_load),
     0,
     "wall seconds between readings of the load other processes put on the CPUs ndemd may run "
     "on; the cores they keep busy are taken from --cores (0: not read, the budget is --cores)"},
    {"omp-spin", OPT_LONG, "1000", -1, 1e12, "NDEM_OMP_SPIN", offsetof(ndem_config, omp_spin), 0,
     "GOMP_SPINCOUNT ndemd sets when neither it nor OMP_WAIT_POLICY is in the environment: how "
     "long an idle OpenMP thread spins before it sleeps (0: not at all, as PASSIVE; -1: the "
     "runtime's default)"},
    {"http-threads", OPT_LONG, "4", 1, 256, "NDEM_HTTP_THREADS",
     offsetof(ndem_config, http_threads), 0, "threads answering HTTP requests"},
    {"max-body", OPT_LONG, "8388608", 1024, 1073741824, "NDEM_MAX_BODY",
     offsetof(ndem_config, max_body), 0, "largest request body in bytes (413 above)"},
    {"parse-budget", OPT_LONG, "268435456", 1048576, 68719476736.0, "NDEM_PARSE_BUDGET",
     offsetof(ndem_config, parse_budget), 0,
     "bytes all job documents being parsed at once may take (503 when full, 413 above)"},
    {"public-url", OPT_STRING, "", 0, 0, "NDEM_PUBLIC_URL", offsetof(ndem_config, public_url),
     sizeof(((ndem_config *)0)->public_url),
     "scheme://host[:port] clients use for the API (empty: http://LISTEN); the served origin"},
    {"allow-origin", OPT_STRING, "", 0, 0, "NDEM_ALLOW_ORIGIN", offsetof(ndem_config, allow_origin),
     sizeof(((ndem_config *)0)->allow_origin),
     "more origins (comma-separated) allowed to change jobs and open streams"},
    {"http-timeout", OPT_LONG, "30", 1, 3600, "NDEM_HTTP_TIMEOUT",
     offsetof(ndem_config, http_timeout), 0,
     "seconds an HTTP connection may stay silent before it is closed"},
    {"head-timeout", OPT_DOUBLE, "10", 0.1, 3600, "NDEM_HEAD_TIMEOUT",
     offsetof(ndem_config, head_timeout), 0,
     "seconds a new HTTP connection may take to send its whole request head before it is "
     "closed"},
    {"connection-limit", OPT_LONG, "4000", 16, 1000000, "NDEM_CONNECTION_LIMIT",
     offsetof(ndem_config, connection_limit), 0,
     "HTTP connections open at once (more are refused)"},
    {"per-ip-limit", OPT_LONG, "256", 1, 1000000, "NDEM_PER_IP_LIMIT",
     offsetof(ndem_config, per_ip_limit), 0,
     "HTTP connections open at once from one address (more are refused)"},
    {"max-particles", OPT_LONG, "2000000", 1, 50000000, "NDEM_MAX_PARTICLES",
     offsetof(ndem_config, max_particles), 0, "most particles a job may hold (422 above)"},
    {"max-duration", OPT_DOUBLE, "3600", 1e-9, 1e9, "NDEM_MAX_DURATION",
     offsetof(ndem_config, max_duration), 0, "longest simulated duration in seconds (422 above)"},
    {"max-steps", OPT_LONG, "100000000", 1, 1e9, "NDEM_MAX_STEPS", offsetof(ndem_config, max_steps),
     0, "most time steps of one job (422 above)"},
    {"max-queued", OPT_LONG, "10000", 1, 1e9, "NDEM_MAX_QUEUED", offsetof(ndem_config, max_queued),
     0, "most jobs waiting in the queue (503 above)"},
    {"max-sweep-jobs", OPT_LONG, "1000", 1, 1e6, "NDEM_MAX_SWEEP_JOBS",
     offsetof(ndem_config, max_sweep_jobs), 0, "most jobs one sweep may expand into (422 above)"},
    {"max-stream-clients", OPT_LONG, "256", 1, 100000, "NDEM_MAX_STREAM_CLIENTS",
     offsetof(ndem_config, max_stream_clients), 0,
     "most WebSocket clients at once (each holds at most about one frame)"},
    {"checkpoint-interval", OPT_DOUBLE, "10", 0.01, 86400, "NDEM_CHECKPOINT_INTERVAL",
     offsetof(ndem_config, checkpoint_interval), 0,
     "wall seconds between checkpoints of a running job"},
    {"progress-interval", OPT_DOUBLE, "0.25", 0.01, 60, "NDEM_PROGRESS_INTERVAL",
     offsetof(ndem_config, progress_interval), 0,
     "wall seconds between progress records and stream messages"},
    {"max-output", OPT_LONG, "2147483648", 0, 1e15, "NDEM_MAX_OUTPUT",
     offsetof(ndem_config, max_output), 0,
     "bytes of frames and series one job may write (0: no limit; 422 when its document "
     "asks for more, failed when it writes more)"},
    {"min-free", OPT_LONG, "104857600", 0, 1e15, "NDEM_MIN_FREE", offsetof(ndem_config, min_free),
     0, "free bytes of the data directory below which /health answers 503 degraded"},
    {"max-attempts", OPT_LONG, "3", 1, 1000, "NDEM_MAX_ATTEMPTS",
     offsetof(ndem_config, max_attempts), 0,
     "times a job may be found running at start-up (crash or kill) before it fails"},
    {"stuck-after", OPT_DOUBLE, "300", 0.01, 1e7, "NDEM_STUCK_AFTER",
     offsetof(ndem_config, stuck_after), 0,
     "wall seconds without a step before /health reports a worker stuck"},
    {"stop-timeout", OPT_DOUBLE, "30", 0.1, 86400, "NDEM_STOP_TIMEOUT",
     offsetof(ndem_config, stop_timeout), 0,
     "wall seconds SIGTERM waits for running jobs to checkpoint before exiting without them"},
    {"executor", OPT_STRING, "local", 0, 0, "NDEM_EXECUTOR", offsetof(ndem_config, executor),
     sizeof(((ndem_config *)0)->executor),
     "who runs jobs: local (worker threads) or slurm (one Slurm job each, see docs/scale-out.md)"},
    {"slurm-bin", OPT_STRING, "", 0, 0, "NDEM_SLURM_BIN", offsetof(ndem_config, slurm_bin),
     sizeof(((ndem_config *)0)->slurm_bin),
     "directory of sbatch, scontrol and scancel (empty: found in PATH)"},
    {"slurm-partition", OPT_STRING, "", 0, 0, "NDEM_SLURM_PARTITION",
     offsetof(ndem_config, slurm_partition), sizeof(((ndem_config *)0)->slurm_partition),
     "Slurm partition of the jobs (empty: the cluster's default)"},
    {"slurm-time", OPT_STRING, "", 0, 0, "NDEM_SLURM_TIME", offsetof(ndem_config, slurm_time),
     sizeof(((ndem_config *)0)->slurm_time),
     "time limit of each Slurm job, as sbatch --time takes it (empty: the partition's)"},
    {"slurm-ndem", OPT_STRING, "ndem", 0, 0, "NDEM_SLURM_NDEM", offsetof(ndem_config, slurm_ndem),
     sizeof(((ndem_config *)0)->slurm_ndem), "the ndem command on the compute nodes"},
    {"slurm-report-url", OPT_STRING, "", 0, 0, "NDEM_SLURM_REPORT_URL",
     offsetof(ndem_config, slurm_report_url), sizeof(((ndem_config *)0)->slurm_report_url),
     "http://HOST:PORT of this daemon as the compute nodes reach it (empty: the served origin)"},
    {"slurm-log", OPT_STRING, "", 0, 0, "NDEM_SLURM_LOG", offsetof(ndem_config, slurm_log),
     sizeof(((ndem_config *)0)->slurm_log),
     "directory (seen by the compute nodes) for each Slurm job's output, ndem-JOBID.out (empty: "
     "discarded)"},
    {"slurm-poll", OPT_DOUBLE, "5", 0.1, 3600, "NDEM_SLURM_POLL", offsetof(ndem_config, slurm_poll),
     0, "wall seconds between Slurm state queries of each running job"},
    {"auth", OPT_STRING, "auto", 0, 0, "NDEM_AUTH", offsetof(ndem_config, auth_mode),
     sizeof(((ndem_config *)0)->auth_mode),
     "bearer tokens on every route but /health: on, off, or auto (on unless --listen and "
     "--ws-listen are loopback addresses)"},
    {"insecure", OPT_FLAG, "0", 0, 1, NULL, offsetof(ndem_config, insecure), 0,
     "allow --auth off on an address that is not loopback (anyone who reaches it may run, "
     "read and delete every job)"},
    {"slurm-rest", OPT_STRING, "", 0, 0, "NDEM_SLURM_REST", offsetof(ndem_config, slurm_rest),
     sizeof(((ndem_config *)0)->slurm_rest),
     "http://HOST:PORT of slurmrestd: submit, follow and cancel through Slurm's REST API instead "
     "of "
     "sbatch, scontrol and scancel (empty: the commands)"},
    {"slurm-token-file", OPT_STRING, "", 0, 0, "NDEM_SLURM_TOKEN_FILE",
     offsetof(ndem_config, slurm_token_file), sizeof(((ndem_config *)0)->slurm_token_file),
     "file holding the JWT for slurmrestd, read at each request (empty: the environment's "
     "SLURM_JWT)"},
    {"slurm-user", OPT_STRING, "", 0, 0, "NDEM_SLURM_USER", offsetof(ndem_config, slurm_user),
     sizeof(((ndem_config *)0)->slurm_user),
     "the Slurm user slurmrestd submits as, whose JWT it is (empty: the user ndemd runs as)"},
    {"recover", OPT_FLAG, "0", 0, 1, NULL, offsetof(ndem_config, recover), 0,
     "rebuild DATA/ndem.db from the job directories (the old file kept aside), then start"},
};
#define OPTION_COUNT (sizeof options / sizeof options[0])

void ndem_config_help(FILE *out)
{
    fprintf(out, "usage: ndemd [--OPTION VALUE]...\n\n"
                 "The ndem simulation daemon: REST API, job queue, workers and live streams.\n"
                 "Every option may also come from its environment variable; the command\n"
                 "line wins.\n\n");
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const opt *o = &options[i];
        char arg[64];
        snprintf(arg, sizeof arg, "--%s %s", o->name,
                 o->type == OPT_STRING ? "TEXT"
                 : o->type == OPT_LONG ? "N"
                 : o->type == OPT_FLAG ? ""
                                       : "X");
        fprintf(out, "  %-30s %s\n  %-30s default %s%s%s", arg, o->help, "",
                o->def[0] ? o->def : "(empty)", o->env ? ", env " : "", o->env ? o->env : "");
        if (o->type == OPT_LONG || o->type == OPT_DOUBLE)
            fprintf(out, ", from %.15g to %.15g", o->min, o->max);
        fprintf(out, "\n");
    }
    fprintf(out, "  %-30s %s\n", "--help", "prints this and exits");
    fprintf(out, "  %-30s %s\n", "--help-markdown", "prints the options as a Markdown table");
    fprintf(
        out,
        "\ncommands (docs/api.md, \"Authentication\"):\n"
        "  ndemd token create NAME [--admin] [--data DIR]   prints a new bearer token once\n"
        "  ndemd token list [--data DIR]                    the tokens' names, never the tokens\n"
        "  ndemd token revoke NAME [--data DIR]             refused from the next request on\n"
        "  ndemd routes                                     every route and who may call it\n");
}

/* The table of docs/api.md, from the same entries as --help. */
static void help_markdown(FILE *out)
{
    fprintf(out, "| option | environment | type | default | bounds | meaning |\n"
                 "| --- | --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const opt *o = &options[i];
        char bounds[64] = "";
        if (o->type == OPT_LONG || o->type == OPT_DOUBLE)
            snprintf(bounds, sizeof bounds, "%.15g .. %.15g", o->min, o->max);
        fprintf(out, "| `--%s` | %s%s%s | %s | %s%s%s | %s | %s |\n", o->name, o->env ? "`" : "",
                o->env ? o->env : "(none)", o->env ? "`" : "",
                o->type == OPT_STRING ? "text"
                : o->type == OPT_LONG ? "integer"
                : o->type == OPT_FLAG ? "flag"
                                      : "number",
                o->def[0] ? "`" : "", o->def[0] ? o->def : "(empty)", o->def[0] ? "`" : "", bounds,
                o->help);
    }
}

static int set_value(ndem_config *c, const opt *o, const char *value, const char *from, FILE *err)
{
    char *field = (char *)c + o->offset;
    if (o->type == OPT_STRING) {
        if (strlen(value) >= o->size) {
            fprintf(err, "ndemd: %s for %s is too long\n", from, o->name);
            return -1;
        }
        memcpy(field, value, strlen(value) + 1);
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end || errno || !isfinite(v) || v < o->min || v > o->max ||
        (o->type == OPT_LONG && v != floor(v))) {
        fprintf(err, "ndemd: %s for --%s wants %s from %g to %g, not '%s'\n", from, o->name,
                o->type == OPT_LONG ? "a whole number" : "a number", o->min, o->max, value);
        return -1;
    }
    if (o->type == OPT_LONG || o->type == OPT_FLAG) *(long *)(void *)field = (long)v;
    else *(double *)(void *)field = v;
    return 0;
}

int ndem_config_split_hostport(const char *s, char *host, size_t host_len, int *port)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s) return -1;
    size_t n = (size_t)(colon - s);
    const char *h = s;
    if (h[0] == '[' && n >= 2 && h[n - 1] == ']') h++, n -= 2;
    if (n >= host_len) return -1;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || p < 0 || p > 65535) return -1;
    memcpy(host, h, n);
    host[n] = 0;
    *port = (int)p;
    return 0;
}

/* The served origin (scheme://host[:port], lower case, no path) from
 * --public-url, else from --listen; links and the Origin checks use it. */
static int derive_origin(ndem_config *c, FILE *err)
{
    char url[300];
    snprintf(url, sizeof url, "%s", c->public_url);
    size_t n = strlen(url);
    while (n > 0 && url[n - 1] == '/') url[--n] = 0;
    if (!url[0]) {
        const char *h = c->http_host;
        int loopback = !strcmp(h, "127.0.0.1") || !strcmp(h, "localhost");
        if (!h[0] || !strcmp(h, "0.0.0.0") || loopback) h = "127.0.0.1";
        snprintf(url, sizeof url, "http://%s:%d", h, c->http_port);
        if (loopback || h != c->http_host)
            snprintf(c->alt_origin, sizeof c->alt_origin, "http://localhost:%d", c->http_port);
    }
    for (char *p = url; *p; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    int tls = !strncmp(url, "https://", 8);
    const char *host = url + (tls ? 8 : 7);
    if ((!tls && strncmp(url, "http://", 7)) || !host[0] || strpbrk(host, "/?#@ ")) {
        fprintf(err, "ndemd: --public-url wants http(s)://HOST[:PORT] without a path, not '%s'\n",
                c->public_url);
        return -1;
    }
    snprintf(c->origin, sizeof c->origin, "%s", url);
    c->public_tls = tls;
    snprintf(c->public_host, sizeof c->public_host, "%s", host);
    char *colon = strrchr(c->public_host, ':'), *bracket = strrchr(c->public_host, ']');
    if (colon && (!bracket || colon > bracket)) *colon = 0;
    return 0;
}

int ndem_config_load(ndem_config *c, int argc, char **argv, FILE *err)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < OPTION_COUNT; i++)
        if (set_value(c, &options[i], options[i].def, "the default", err)) return -1;
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const char *v = options[i].env ? getenv(options[i].env) : NULL;
        if (v && set_value(c, &options[i], v, options[i].env, err)) return -1;
    }
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            ndem_config_help(stdout);
            return 1;
        }
        if (!strcmp(arg, "--help-markdown")) {
            help_markdown(stdout);
            return 1;
        }
        const opt *o = NULL;
        const char *value = NULL;
        for (size_t i = 0; i < OPTION_COUNT && !o; i++) {
            size_t n = strlen(options[i].name);
            if (strncmp(arg, "--", 2) || strncmp(arg + 2, options[i].name, n)) continue;
            if (arg[2 + n] == '=') o = &options[i], value = arg + 3 + n;
            else if (!arg[2 + n]) o = &options[i];
        }
        if (!o) {
            fprintf(err, "ndemd: unknown option '%s' (see --help)\n", arg);
            return -1;
        }
        if (o->type == OPT_FLAG) {
            if (value) {
                fprintf(err, "ndemd: --%s takes no value\n", o->name);
                return -1;
            }
            value = "1";
        }
        if (!value) {
            if (a + 1 >= argc) {
                fprintf(err, "ndemd: --%s needs a value\n", o->name);
                return -1;
            }
            value = argv[++a];
        }
        if (set_value(c, o, value, "the value", err)) return -1;
    }
    if (ndem_config_split_hostport(c->listen, c->http_host, sizeof c->http_host, &c->http_port)) {
        fprintf(err, "ndemd: --listen wants HOST:PORT, not '%s'\n", c->listen);
        return -1;
    }
    if (!c->ws_listen[0]) {
        snprintf(c->ws_host, sizeof c->ws_host, "%s", c->http_host);
        c->ws_port = c->http_port ? c->http_port + 1 : 0;
        if (c->ws_port > 65535) {
            fprintf(err, "ndemd: no port above %d for the streams: set --ws-listen\n",
                    c->http_port);
            return -1;
        }
    } else if (ndem_config_split_hostport(c->ws_listen, c->ws_host, sizeof c->ws_host,
                                          &c->ws_port)) {
        fprintf(err, "ndemd: --ws-listen wants HOST:PORT, not '%s'\n", c->ws_listen);
        return -1;
    }
    if (strcmp(c->executor, "local") && strcmp(c->executor, "slurm")) {
        fprintf(err, "ndemd: --executor wants local or slurm, not '%s'\n", c->executor);
        return -1;
    }
    if (c->slurm_rest[0] && strncmp(c->slurm_rest, "http://", 7) &&
        strncmp(c->slurm_rest, "https://", 8)) {
        fprintf(err, "ndemd: --slurm-rest wants http://HOST:PORT, not '%s'\n", c->slurm_rest);
        return -1;
    }
    /* values go into a shell command line between single quotes */
    if (strchr(c->slurm_ndem, '\'') || strchr(c->slurm_log, '\'')) {
        fprintf(err, "ndemd: --slurm-ndem and --slurm-log may not contain a single quote\n");
        return -1;
    }
    if (ndem_config_decide_auth(c, err)) return -1;
    return derive_origin(c, err);
}

int ndem_config_loopback(const char *host)
{
    return !strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "::1") ||
           !strcmp(host, "[::1]");
}

int ndem_config_decide_auth(ndem_config *c, FILE *err)
{
    int exposed = !ndem_config_loopback(c->http_host) || !ndem_config_loopback(c->ws_host);
    if (!strcmp(c->auth_mode, "auto")) c->auth = exposed;
    else if (!strcmp(c->auth_mode, "on")) c->auth = 1;
    else if (!strcmp(c->auth_mode, "off")) c->auth = 0;
    else {
        fprintf(err, "ndemd: --auth wants on, off or auto, not '%s'\n", c->auth_mode);
        return -1;
    }
    if (!c->auth && exposed && !c->insecure) {
        fprintf(err,
                "ndemd: --auth off on %s (not a loopback address) would let anyone who reaches "
                "it run, read and delete every job: add --insecure if that is meant\n",
                ndem_config_loopback(c->http_host) ? c->ws_listen : c->listen);
        return -1;
    }
    return 0;
}
