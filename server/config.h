/* config.h - the daemon's settings (config.c holds the table). */
#ifndef NDEM_SERVER_CONFIG_H
#define NDEM_SERVER_CONFIG_H

#include <stdio.h>

typedef struct ndem_config {
    char listen[256];            /* HOST:PORT of the HTTP API */
    char ws_listen[256];         /* HOST:PORT of the WebSocket streams; "" = HTTP port + 1 */
    char data[1024];             /* data directory: ndem.db and jobs/<id>/ */
    char web[1024];              /* static files served at / */
    long workers;                /* jobs run at once */
    long threads;                /* OpenMP threads per job; 0 = the job's solver.threads */
    long cores;                  /* the running jobs' thread budget; 0 = the CPUs we may use */
    double adapt_load;           /* seconds between outside load readings; 0 = off */
    long omp_spin;               /* GOMP_SPINCOUNT to set; -1 = the runtime's default */
    long http_threads;           /* libmicrohttpd thread pool */
    long max_body;               /* bytes of a request body */
    long parse_budget;           /* bytes of job documents being parsed at once */
    char public_url[256];        /* scheme://host[:port] of the API; "" = http://LISTEN */
    char allow_origin[1024];     /* more allowed origins, comma-separated */
    long http_timeout;           /* idle seconds before a connection is closed */
    double head_timeout;         /* seconds a connection may take to send its request head */
    long connection_limit;       /* HTTP connections at once */
    long per_ip_limit;           /* HTTP connections at once from one address */
    long max_particles;          /* ndem_job_particle_estimate */
    double max_duration;         /* simulated seconds of one job */
    long max_steps;              /* steps of one job */
    long max_queued;             /* jobs waiting in the queue */
    long max_sweep_jobs;         /* variants of one sweep */
    long max_stream_clients;     /* WebSocket clients at once */
    double checkpoint_interval;  /* wall seconds between checkpoints of a running job */
    double progress_interval;    /* wall seconds between progress records */
    long max_output;             /* bytes of frames and series of one job; 0 = no limit */
    long min_free;               /* free bytes of the data directory below which /health is 503 */
    long max_attempts;           /* interruptions before a job fails instead of requeued */
    double stuck_after;          /* wall seconds without a step: a worker is stuck */
    double stop_timeout;         /* wall seconds a shutdown waits for running jobs */
    long recover;                /* --recover: rebuild the database, then start */
    char auth_mode[8];           /* --auth: "on", "off" or "auto" */
    long insecure;               /* --insecure: --auth off may listen beyond loopback */
    char executor[16];           /* "local" (worker threads) or "slurm" (docs/scale-out.md) */
    char slurm_bin[1024];        /* directory of sbatch, scontrol, scancel; "" = PATH */
    char slurm_partition[128];   /* sbatch --partition; "" = Slurm's default */
    char slurm_time[64];         /* sbatch --time; "" = the partition's limit */
    char slurm_ndem[1024];       /* the ndem binary as the compute nodes find it */
    char slurm_report_url[300];  /* ndemd as compute nodes reach it; "" = the served origin */
    char slurm_log[1024];        /* directory of the Slurm jobs' output files; "" = none */
    double slurm_poll;           /* wall seconds between Slurm state queries of a job */
    char slurm_rest[300];        /* slurmrestd's http://HOST:PORT; "" = Slurm's commands */
    char slurm_token_file[1024]; /* file of the JWT for slurmrestd; "" = $SLURM_JWT */
    char slurm_user[64];         /* X-SLURM-USER-NAME; "" = the user ndemd runs as */
    /* derived from listen and ws_listen */
    char http_host[256];
    int http_port;
    char ws_host[256];
    int ws_port;
    /* derived from public_url (or listen): the served origin, "http://127.0.0.1:8080";
     * alt_origin is its "localhost" twin when the API is on loopback ("" otherwise) */
    char origin[300];
    char alt_origin[300];
    char public_host[300]; /* the host of origin, for links.stream */
    int public_tls;        /* origin is https: streams are wss */
    int auth;              /* from auth_mode: every route but the public ones needs a token */
} ndem_config;

/* Fills c from defaults, then the environment, then argv. Returns 0 to run,
 * 1 when --help was printed (exit 0), -1 after printing an error to err. */
int ndem_config_load(ndem_config *c, int argc, char **argv, FILE *err);
void ndem_config_help(FILE *out);
/* 1 when host is a loopback address (127.0.0.0/8, ::1, localhost). */
int ndem_config_loopback(const char *host);
/* Sets c->auth from c->auth_mode and the listen hosts (auto: on unless both
 * are loopback); -1 with a message for an unknown mode, or for --auth off
 * beyond loopback without --insecure. */
int ndem_config_decide_auth(ndem_config *c, FILE *err);
/* Splits "HOST:PORT" ("[v6]:PORT" too); -1 when malformed. */
int ndem_config_split_hostport(const char *s, char *host, size_t host_len, int *port);

#endif
