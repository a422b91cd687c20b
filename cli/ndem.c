/* ndem.c - the `ndem` command line (CONTRACT.md "Programs"). */
#include "ndem.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        printf("usage: ndem run JOB.json [--out DIR] [--threads N]\n"
               "       ndem validate JOB.json\n");
        return argc < 2 ? 2 : 0;
    }
    fprintf(stderr, "ndem: '%s' is not implemented yet\n", argv[1]);
    return 2;
}
