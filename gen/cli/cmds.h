/* cmds.h: the subcommands that are the CLI's own (the others are declared
 * by their parts: gen/write/gen.h, gen/model/model.h, rules/job/job.h,
 * reports/report.h). */
#ifndef KUNAI_CMDS_H
#define KUNAI_CMDS_H

/* `kunai run`: gen, ninja run, ninja report, the table. Returns the exit
 * status (1 when a run did not pass, 128+N when stopped by signal N). */
int cmd_run(int argc, char **argv);
/* `kunai install` / `kunai uninstall`: gen, then `ninja install` /
 * `ninja uninstall`. Returns ninja's exit status (1 when it could not run). */
int cmd_install(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);

#endif
