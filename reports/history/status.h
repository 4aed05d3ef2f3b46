/* history/status.h: `kunai status` (history/status.c). */
#ifndef KUNAI_STATUS_H
#define KUNAI_STATUS_H

/* `kunai status`: the process exit status: 0, 1 (bad input/I-O), 2 (usage). */
int cmd_status(int argc, char **argv);

#endif
