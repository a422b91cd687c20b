# ndemd on Debian 12. The image builds exactly as a developer does:
# scripts/deps.sh installs the Debian packages, `make all web` builds the
# programs and the web page with the project's Makefile. The daemon runs as
# an unprivileged user, listens on every interface (HTTP 8080, streams 8081)
# and keeps its database and job files in the /var/lib/ndem volume.
#
#   docker build -t ndem .
#   docker run -p 8080:8080 -p 8081:8081 -v ndem-data:/var/lib/ndem ndem
#
# Two ways to scale out beyond one machine (docs/scale-out.md):
# - The Slurm executor: each job a Slurm job running `ndem run --report`,
#   which reports to this ndemd. Through slurmrestd the image needs nothing
#   more (--slurm-rest URL --slurm-token-file FILE); through sbatch,
#   scontrol and scancel build it with Slurm's commands and munge, and mount
#   the cluster's /etc/slurm and munge key:
#     docker build --build-arg NDEM_DEPS=slurm-client -t ndem-slurm .
#     docker run ... ndem-slurm --executor slurm --slurm-ndem /shared/bin/ndem \
#         --slurm-report-url http://THIS-HOST:8080 [--slurm-partition P --slurm-time 1:00:00]
#   (the compute nodes run the ndem named by --slurm-ndem, /usr/local/bin/ndem
#   here, so it must exist at that path there too).
# - MPI, one NDEM scene of spheres over several ranks (a first slice: slabs;
#   no checkpoints, smooth DEM or emitters yet): the image has Open MPI,
#     docker run --entrypoint mpirun ndem -np 2 --allow-run-as-root \
#         ndem run JOB.json --mpi
FROM debian:12

# extra groups of scripts/deps.sh, e.g. slurm-client (see above)
ARG NDEM_DEPS=""
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN bash scripts/deps.sh $NDEM_DEPS && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make clean && make -j"$(nproc)" all web \
 && install -m 0755 build/release/ndemd build/release/ndem build/release/ndem-mpi /usr/local/bin/ \
 && mkdir -p /usr/local/share/ndem && cp -r web /usr/local/share/ndem/web \
 && rm -rf /usr/local/share/ndem/web/node_modules

RUN useradd --system --create-home --home-dir /var/lib/ndem ndem
USER ndem
VOLUME /var/lib/ndem
EXPOSE 8080 8081
ENV NDEM_LISTEN=0.0.0.0:8080 NDEM_WS_LISTEN=0.0.0.0:8081 NDEM_DATA=/var/lib/ndem \
    NDEM_WEB=/usr/local/share/ndem/web
ENTRYPOINT ["/usr/local/bin/ndemd"]
