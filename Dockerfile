# ndemd on Debian 12. The image builds exactly as a developer does:
# scripts/deps.sh installs the Debian packages, `make all web` builds the
# programs and the web page with the project's Makefile. The daemon runs as
# an unprivileged user, listens on every interface (HTTP 8080, streams 8081)
# and keeps its database and job files in the /var/lib/ndem volume.
#
#   docker build -t ndem .
#   docker run -p 8080:8080 -p 8081:8081 -v ndem-data:/var/lib/ndem ndem
FROM debian:12

WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN bash scripts/deps.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make clean && make -j"$(nproc)" all web \
 && install -m 0755 build/release/ndemd build/release/ndem /usr/local/bin/ \
 && mkdir -p /usr/local/share/ndem && cp -r web /usr/local/share/ndem/web \
 && rm -rf /usr/local/share/ndem/web/node_modules

RUN useradd --system --create-home --home-dir /var/lib/ndem ndem
USER ndem
VOLUME /var/lib/ndem
EXPOSE 8080 8081
ENV NDEM_LISTEN=0.0.0.0:8080 NDEM_WS_LISTEN=0.0.0.0:8081 NDEM_DATA=/var/lib/ndem \
    NDEM_WEB=/usr/local/share/ndem/web
ENTRYPOINT ["/usr/local/bin/ndemd"]
